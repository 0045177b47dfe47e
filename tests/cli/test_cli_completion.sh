#!/bin/bash
# SPDX-License-Identifier: MIT
# The bash completion as bash calls it: COMP_WORDS split at bash's word breaks ('=' and ':'
# are words of their own), COMP_LINE, COMP_CWORD; then COMPREPLY. A path with a space is one
# reply, a directory ends with its '/', an option's value comes from its documented values (in
# both "--format csv" and "--format=csv" forms), and a fault spec completes its kinds and keys.
#
#   bash test_cli_completion.sh path/to/proxyscope.bash
set -u

completion=${1:?usage: test_cli_completion.sh COMPLETION}
# shellcheck source=/dev/null
. "$completion" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

# comp LINE WORD...: complete LINE (cursor at its end) split into WORD... as bash splits it.
comp() {
	COMP_LINE=$1
	COMP_POINT=${#1}
	shift
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	_proxyscope proxyscope "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	got=
	((${#COMPREPLY[@]})) && got=$(printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort | tr '\n' '|')
}

# expect WHAT 'a|b|': the replies of the last comp, sorted, each followed by '|'.
expect() {
	if [ "$got" != "$2" ]; then
		echo "FAIL: $1: got '$got', expected '$2'" >&2
		failed=$((failed + 1))
	fi
}

cd "$tmp" || exit 1
mkdir "my trace" traces out
: >"my file.txt"
: >notes.txt

# --- paths ---------------------------------------------------------------------------------
comp 'proxyscope report my' proxyscope report my
expect "a path with a space" 'my file.txt|my trace/|'
comp 'proxyscope report my\ t' proxyscope report 'my\ t'
expect "an escaped space" 'my trace/|'
comp 'proxyscope report tr' proxyscope report tr
expect "a directory" 'traces/|'
comp 'proxyscope run -o ' proxyscope run -o ''
expect "-o DIR offers directories only" 'my trace/|out/|traces/|'
comp 'proxyscope export --format csv -o n' proxyscope export --format csv -o n
expect "export -o FILE" 'notes.txt|'

# --- commands and options ------------------------------------------------------------------
comp 'proxyscope rep' proxyscope rep
expect "a command" 'report|'
comp 'proxyscope help wa' proxyscope help wa
expect "help's command" 'watch|watchdog|'
comp 'proxyscope export --f' proxyscope export --f
expect "an option" '--format|'
comp 'proxyscope run --ranks-' proxyscope run --ranks-
expect "run's options" '--ranks-per-proxy|'
comp 'proxyscope run --_' proxyscope run --_
expect "internal options are not offered" ''

# --- option values -------------------------------------------------------------------------
comp 'proxyscope export --format ' proxyscope export --format ''
expect "--format VALUE" 'chrome|csv|html|'
comp 'proxyscope export --format=' proxyscope export --format =
expect "--format=VALUE" 'chrome|csv|html|'
comp 'proxyscope export --format=c' proxyscope export --format = c
expect "--format=c" 'chrome|csv|'
comp 'proxyscope record --loglevel d' proxyscope record --loglevel d
expect "--loglevel" 'debug|'
comp 'proxyscope run --loglevel=w' proxyscope run --loglevel = w
expect "--loglevel=w" 'warning|'
comp 'proxyscope timeline --kind ' proxyscope timeline --kind ''
expect "--kind" 'barrier|network|'
comp 'proxyscope run --backend ' proxyscope run --backend ''
expect "--backend" 'loop|ofi|'
comp 'proxyscope run --ranks ' proxyscope run --ranks ''
expect "a number: nothing to offer" ''

# --- fault specs ---------------------------------------------------------------------------
comp 'proxyscope run --inject ' proxyscope run --inject ''
expect "--inject kinds" 'device-delay:|device-stall:|kill:|net-break:|net-drop:|partition:|slow-link:|slow-progress:|'
comp 'proxyscope run --inject dev' proxyscope run --inject dev
expect "--inject dev" 'device-delay:|device-stall:|'
comp 'proxyscope run --inject device-stall:' proxyscope run --inject device-stall :
expect "--inject keys" 'exec=|proc=|rank=|stream=|'
comp 'proxyscope run --inject device-stall:rank=1,' proxyscope run --inject device-stall : rank = 1,
# proc= too: the completion does not know that rank= and proc= exclude each other (the parser does)
expect "--inject keys not given yet" '1,exec=|1,proc=|1,stream=|'
comp 'proxyscope run --inject partition:h' proxyscope run --inject partition : h
expect "--inject partition's keys" 'host=|'
comp 'proxyscope run --inject=kill:rank=2,e' proxyscope run --inject = kill : rank = 2,e
expect "--inject=kill:rank=2,e" '2,exec=|'

# --- without COMP_LINE (pieces glued at '=' and ':') ----------------------------------------
unset COMP_LINE
COMP_WORDS=(proxyscope run --inject slow-progress : r)
COMP_CWORD=5
COMPREPLY=()
_proxyscope
got=
((${#COMPREPLY[@]})) && got=$(printf '%s\n' "${COMPREPLY[@]}" | tr '\n' '|')
expect "no COMP_LINE" 'rank=|'

# --- after "--": a command, then files -----------------------------------------------------
comp 'proxyscope record -- no' proxyscope record -- no
case "$got" in *nohup*) ;; *) expect "a command after --" 'nohup|...' ;; esac
comp 'proxyscope record -- ls my' proxyscope record -- ls my
expect "CMD's arguments" 'my file.txt|my trace/|'

if [ "$failed" -ne 0 ]; then
	echo "$failed check(s) failed" >&2
	exit 1
fi
echo "all completion checks passed"
