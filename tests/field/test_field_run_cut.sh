#!/bin/sh
# SPDX-License-Identifier: MIT
# The end of `run` with tasks in flight is a cut (issue 21, point 3): a run whose ranks stop on an
# error (a device stall: the stalled rank and the neighbours waiting on it time out, their
# tasks still in flight) leaves a cut marker saying so beside ust/, and `watchdog` on its trace
# names the cut; a healthy run writes no marker.
#
#   sh test_field_run_cut.sh path/to/proxyscope
bin=${1:?usage: test_field_run_cut.sh PROXYSCOPE}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli_harness.sh"
need_lttng

# Healthy: every exec completed, nothing in flight at the end, no marker.
run 0 run -q --ranks 4 --ops 50 -o "$tmp/ok"
[ -e "$tmp/ok/proxyscope-cut" ] && fail "healthy run: a cut marker: $(cat "$tmp/ok/proxyscope-cut")"
status=0
"$bin" watchdog "$tmp/ok" >"$out" 2>"$err" || status=$?
[ "$status" = 0 ] || fail "watchdog ok: exit $status, expected 0"
grep -q 'the recording was cut' "$out" && fail "watchdog ok: names a cut"

# Tasks in flight at the end: the run fails (exit 1) and its trace is marked cut.
run 1 run -q --ranks 4 --ops 50 --inject device-stall:rank=1,exec=5 -o "$tmp/stall"
[ -e "$tmp/stall/proxyscope-cut" ] || fail "run with tasks in flight: no cut marker"
grep -q '^proxyscope-cut 1 [0-9]* the run ended with tasks in flight (' "$tmp/stall/proxyscope-cut" ||
	fail "the cut's reason: $(cat "$tmp/stall/proxyscope-cut")"
status=0
"$bin" watchdog "$tmp/stall" >"$out" 2>"$err" || status=$?
grep -q '^watchdog: the recording was cut at .* UTC (the run ended with tasks in flight' "$out" ||
	fail "watchdog stall: the cut is not named"
echo "watchdog on the stalled run: exit $status"
# The stall was before the cut (its driver saw it time out): the cut hides no root cause, and
# blames no innocent rank.
grep -q 'root cause: rank 1 ' "$out" || fail "watchdog stall: rank 1's device stall is not the root"
grep 'root cause: ' "$out" | grep -qv 'root cause: rank 1 ' && fail "watchdog stall: an innocent root"
harness_finish "field run cut"
