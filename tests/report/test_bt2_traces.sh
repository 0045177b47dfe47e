#!/bin/sh
# SPDX-License-Identifier: MIT
# Every reading command on every trace of babeltrace2's own CTF test sets (`succeed` and
# `fail`, read where they are: shared/testdata beside the source tree): each one ends with exit
# 0 or 2, at most one line on stderr (exactly one "error:" line on exit 2), nothing on stdout
# on exit 2, no file left behind (the working directory, TMPDIR and the export's directory stay
# empty but for the export itself on exit 0), within a time bound - never a hang, an abort or
# a babeltrace2 backtrace.
#
#   sh test_bt2_traces.sh path/to/proxyscope path/to/babeltrace2-ctf-traces
set -eu

bin=${1:?usage: test_bt2_traces.sh PROXYSCOPE TRACES}
traces=${2:?usage: test_bt2_traces.sh PROXYSCOPE TRACES}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
if [ ! -d "$traces/succeed" ] || [ ! -d "$traces/fail" ]; then
	echo "FAIL: babeltrace2's CTF test traces are not at '$traces' (shared/testdata beside the checkout)" >&2
	exit 1
fi
traces=$(cd "$traces" && pwd)
. "$(dirname "$0")/../cli_harness.sh"

BOUND_S=60
mkdir "$tmp/cwd" "$tmp/tmpdir" "$tmp/outdir"

# left_behind: what a command left in the places it must leave alone.
left_behind() {
	ls -A "$tmp/cwd" "$tmp/tmpdir" "$tmp/outdir" | grep -v '^/\|^$\|^out\.json$' || true
}

checked=0
for set in succeed fail; do
	for t in "$traces/$set"/*; do
		[ -d "$t" ] || continue
		for cmd in report timeline stats watchdog export; do
			case $cmd in
			export) args="export --format chrome -o $tmp/outdir/out.json" ;;
			*) args=$cmd ;;
			esac
			status=0
			# shellcheck disable=SC2086
			(cd "$tmp/cwd" && TMPDIR=$tmp/tmpdir timeout -s KILL $BOUND_S "$bin" $args "$t" \
				</dev/null >"$out" 2>"$err") || status=$?
			name="proxyscope $cmd $set/$(basename "$t")"
			checked=$((checked + 1))
			case $status in
			0 | 2) ;;
			137) fail "$name: still running after $BOUND_S s" ;;
			*) fail "$name: exit $status (expected 0 or 2)" ;;
			esac
			if [ "$(wc -l <"$err")" -gt 1 ]; then
				fail "$name: more than one line on stderr"
			fi
			if [ "$status" -eq 2 ]; then
				grep -q '^error: ' "$err" || fail "$name: exit 2 without an 'error:' line"
				[ -s "$out" ] && fail "$name: exit 2 with output on stdout"
				[ -e "$tmp/outdir/out.json" ] && fail "$name: exit 2 left the export's file"
			fi
			left=$(left_behind)
			[ -z "$left" ] || fail "$name: left files behind: $left"
			rm -rf "$tmp/cwd"/* "$tmp/cwd"/.[!.]* "$tmp/tmpdir"/* "$tmp/outdir"/* \
				"$tmp/outdir"/.[!.]* 2>/dev/null || true
		done
	done
done
[ "$checked" -gt 100 ] || fail "only $checked runs: the trace sets look incomplete"
echo "$checked runs checked"
harness_finish "babeltrace2 test trace"
