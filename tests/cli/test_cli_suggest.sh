#!/bin/sh
# SPDX-License-Identifier: MIT
# "Did you mean": a mistyped command or long option exits 2 with the error, a hint naming the
# nearest command or option, and the "See ... --help" line, as git does; a word near nothing
# gets no hint.
#
#   sh test_cli_suggest.sh path/to/proxyscope
set -eu

bin=${1:?usage: test_cli_suggest.sh PROXYSCOPE}
. "$(dirname "$0")/../cli_harness.sh"

# hint WORD ARGS...: exit 2, "error:" then "hint: did you mean 'WORD'?" on stderr, nothing on stdout.
hint() {
	word=$1
	shift
	run 2 "$@" || return 0
	grep -q '^error: unknown ' "$err" || fail "proxyscope $*: no 'error: unknown ...' line"
	grep -qx "hint: did you mean '$word'?" "$err" || fail "proxyscope $*: no hint of '$word'"
	grep -q "^See 'proxyscope" "$err" || fail "proxyscope $*: no 'See ...' line"
	[ ! -s "$out" ] || fail "proxyscope $*: a usage error wrote to stdout"
}

# no_hint ARGS...: exit 2 and no hint.
no_hint() {
	run 2 "$@" || return 0
	! grep -q '^hint:' "$err" || fail "proxyscope $*: a hint for a word near nothing"
}

hint report reprot
hint export exprot --format chrome -o x.json trace
hint timeline timelien
hint report help reprot
hint --version --verison
hint --format export --fromat chrome -o "$tmp/x.json" "$tmp"
hint --format export --fromat=chrome -o "$tmp/x.json" "$tmp"
hint --json report --jsno "$tmp"
hint --threshold watchdog --treshold 1s "$tmp"
hint --overall stats --overal "$tmp"
hint --kind timeline --knid network "$tmp"
hint --loglevel record --logelvel debug -- true
hint --no-trace run --no-trcae
hint --threshold watch --thresold 1s -- true
hint --no-sessiond hosts --no-sesiond
no_hint frobnicate
no_hint export --zzzzzz chrome
no_hint run --_chidl 1

harness_finish "did you mean"
