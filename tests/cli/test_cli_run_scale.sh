#!/bin/sh
# SPDX-License-Identifier: MIT
# run's text at scale (issue 22, point 3), recorded by this test's private session daemon:
#  - 1024 ranks, 16 per proxy (64 workers and groups), the device of rank 777 stalled at exec 2:
#    the text opens with the watchdog's verdict naming that root, is at most 60 lines, and its
#    overview is a summary naming the root cause's worker;
#  - the same run with --verbose: a line for every one of the 64 workers and groups, and the
#    evidence of every stalled task the verdict counts;
#  - the README's 4-rank job keeps a line per worker and opens with the run's own summary.
# Nothing here is timed: the timeout only ends the stalled runs.
#
#   sh test_cli_run_scale.sh path/to/proxyscope
bin=${1:?usage: test_cli_run_scale.sh PROXYSCOPE}
. "$(dirname "$0")/../cli_harness.sh"
need_lttng

big='--ranks 1024 --ranks-per-proxy 16 --ops 4 --bytes 4KiB --timeout 3s --buffer-size 16MiB
     --inject device-stall:rank=777,exec=2'

# --- the default text: one screen, verdict first -----------------------------------------------
# shellcheck disable=SC2086
if run 1 run $big -o "$tmp/r1024"; then
	lines=$(wc -l <"$out")
	echo "1024 ranks: the default text is $lines lines"
	[ "$lines" -le 60 ] || fail "1024 ranks: run's text is $lines lines (at most 60)"
	head -1 "$out" | grep -q '^watchdog: [0-9]* stalled tasks, 1 root cause$' ||
		fail "1024 ranks: the first line is not the verdict: $(head -1 "$out")"
	sed -n 2p "$out" | grep -q '^root cause: rank 777 exec 2 ' ||
		fail "1024 ranks: the second line is not the root cause"
	grep -q '^events: .* recorded, 0 lost' "$out" || fail "1024 ranks: events were lost"
	grep -q '^workers: *64, ' "$out" || fail "1024 ranks: no workers summary"
	grep -q '^  proxy-[0-9]* .* gid 48 .*\[root cause.s worker\]$' "$out" ||
		fail "1024 ranks: the root cause's worker (gid 48 = 777 / 16) is not shown"
	grep -q '^groups: *64, ' "$out" || fail "1024 ranks: no groups summary"
	grep -q '^result: *FAILED$' "$out" || fail "1024 ranks: the run's result is missing"
fi

# --- --verbose: everything -----------------------------------------------------------------------
# shellcheck disable=SC2086
if run 1 run $big --verbose -o "$tmp/v1024"; then
	n=$(grep -c '^  proxy-[0-9]* *pid ' "$out")
	[ "$n" = 64 ] || fail "1024 ranks --verbose: $n worker lines of 64"
	n=$(grep -c '^  gid [0-9]* *pid ' "$out")
	[ "$n" = 64 ] || fail "1024 ranks --verbose: $n group lines of 64"
	N=$(sed -n 's/^watchdog: \([0-9]*\) stalled tasks.*/\1/p' "$out")
	n=$(grep -c '^  rank [0-9]* exec [0-9]* [A-Z]* task [0-9]* (' "$out")
	[ -n "$N" ] && [ "$n" = "$N" ] ||
		fail "1024 ranks --verbose: $n evidence blocks of ${N:-?} stalled tasks"
	head -1 "$out" | grep -q '^run: *1024 ranks' || fail "1024 ranks --verbose: not today's order"
	echo "1024 ranks --verbose: $(wc -l <"$out") lines, $N stalled tasks"
fi

# --- a small run: as before ----------------------------------------------------------------------
if run 0 run --ranks 4 --ops 20 -o "$tmp/r4"; then
	head -1 "$out" | grep -q '^run: *4 ranks' || fail "4 ranks: not opened by the run's summary"
	n=$(grep -c '^  proxy-[0-9]* *pid ' "$out")
	[ "$n" = 2 ] || fail "4 ranks: $n worker lines of 2"
fi
harness_finish "run at scale"
