#!/bin/sh
# SPDX-License-Identifier: MIT
# The man pages made from docs/commands/: one per command the binary lists plus proxyscope(1);
# each has the sections lttng(1) and git(1) pages have, `mandoc -Tlint` and `groff -ww -z -man`
# report nothing, and no page cites a file of the source tree as if it were installed. The
# --help of every command is the same source: its options are the page's options.
#
#   sh test_cli_man.sh path/to/proxyscope path/to/man1
set -eu

bin=${1:?usage: test_cli_man.sh PROXYSCOPE MAN1DIR}
man1=${2:?usage: test_cli_man.sh PROXYSCOPE MAN1DIR}
. "$(dirname "$0")/../cli_harness.sh"

for tool in mandoc groff; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "skip: $tool is not installed (Debian: mandoc, groff-base)"
		exit 77
	fi
done

run 0 --help || true
cmds=$(sed -n 's/^   \([a-z][a-z]*\)  *.*/\1/p' "$out")
[ -n "$cmds" ] || fail "proxyscope --help lists no command"

for page in proxyscope $(for c in $cmds; do echo "proxyscope-$c"; done); do
	f=$man1/$page.1
	if [ ! -s "$f" ]; then
		fail "no man page $page.1"
		continue
	fi
	for s in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" ENVIRONMENT FILES EXAMPLES "SEE ALSO"; do
		grep -q "^\.SH \"*$s\"*\$" "$f" || fail "$page.1 has no $s section"
	done
	if ! mandoc -Tlint -Wstyle "$f" >"$tmp/lint" 2>&1 || [ -s "$tmp/lint" ]; then
		cp "$tmp/lint" "$err"
		fail "mandoc -Tlint $page.1 is not clean"
	fi
	if ! groff -ww -z -man "$f" >"$tmp/lint" 2>&1 || [ -s "$tmp/lint" ]; then
		cp "$tmp/lint" "$err"
		fail "groff -ww $page.1 is not clean"
	fi
	if grep -n '[^/]docs/json-schema' "$f" >"$err"; then
		fail "$page.1 cites docs/json-schema.md of the source tree"
	fi
done

# Every option a command's --help lists is one its parser accepts, and has its entry in the
# page (the same source made both): .TP then the option in bold.
for c in $cmds; do
	run 0 "$c" --help || continue
	# "    -o, --output DIR    Where ...": the names before the text
	opts=$(sed -n 's/^    \(-.*\)$/\1/p' "$out" | sed 's/  .*//' |
		grep -oE -- '(^| )--?[a-zA-Z][-a-zA-Z]*' | sort -u)
	[ -n "$opts" ] || fail "$c --help lists no option"
	for o in $opts; do
		# the parser knows it: followed by an unknown option twice, the command stops at a
		# usage error before doing anything, and not on this one
		timeout 20 "$bin" "$c" "$o" --zz-undocumented --zz-undocumented >/dev/null 2>"$err" </dev/null || true
		if grep -q "unknown option '$o'" "$err"; then
			fail "proxyscope $c: $o is documented but not accepted"
		fi
		roff=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
		grep -A1 '^\.TP' "$man1/proxyscope-$c.1" | grep -q "fB$roff\\\\fR" ||
			fail "proxyscope-$c.1 has no entry for $o"
	done
done

# man renders a page without a warning.
if command -v man >/dev/null 2>&1; then
	MANWIDTH=80 man -l "$man1/proxyscope-run.1" >"$out" 2>"$err" || fail "man -l proxyscope-run.1 fails"
	[ ! -s "$err" ] || fail "man -l proxyscope-run.1 warns"
	grep -q -- '--inject' "$out" || fail "man -l proxyscope-run.1: no --inject"
fi

harness_finish "man page"
