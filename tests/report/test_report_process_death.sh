#!/bin/sh
# SPDX-License-Identifier: MIT
# A process killed mid-run, recorded with LTTng through the real driver and the libfabric
# backend (`proxyscope run --backend ofi --procs 2 --inject kill:rank=3,exec=5`): the run exits
# 1 and its report names the dead process as the one root cause, by the killed rank 3; read back
# by `watchdog --json`, the survivors' tasks that failed with ESRCH lead to it and every other
# stall does too.
#
#   sh test_report_process_death.sh path/to/proxyscope
# Exit 77 (skip) only when lttng is not installed.
set -eu

bin=${1:?usage: test_report_process_death.sh PROXYSCOPE}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
. "$(dirname "$0")/../cli_harness.sh"
need_lttng
cd "$tmp"

kill_run="run --backend ofi --procs 2 --ranks 4 --ops 20 --inject kill:rank=3,exec=5"

# shellcheck disable=SC2086 # $kill_run is a list of arguments
if run 1 $kill_run -o kill; then
	grep -q '^result: *FAILED' "$out" || fail "kill: result is not FAILED"
	grep -q '^root cause: rank 3 (pid [0-9]* on .*): the process of ranks 2, 3 (pid [0-9]*) died as rank 3 started exec 5 (an injected kill fault): its events stop .* with no teardown' "$out" ||
		fail "kill: no root cause line naming rank 3's process"
	[ "$(grep -c '^root cause:' "$out")" -eq 1 ] || fail "kill: not one root cause"
	grep -q '^watchdog: .*failed tasks\?, 1 root cause$' "$out" ||
		fail "kill: the watchdog line counts no failed task"
fi

if [ -d kill ] && run 1 watchdog --json kill; then
	cp "$out" kill.json
	python3 - kill.json <<'PY' || fail "kill: watchdog --json"
import json, sys
w = json.load(open(sys.argv[1]))["watchdog"]
assert w["stall_found"] is True
assert len(w["root_causes"]) == 1, w["root_causes"]
ri = w["root_causes"][0]
r = w["stalls"][ri]
assert r["cause"] == "process_died" and r["rank"] == 3 and r["exec_id"] == 5, r
assert r["task_id"] == 0 and r["root_cause"] and not r["uncertain"], r
failed = [s for s in w["stalls"] if s["cause"] == "task_error"]
assert failed, w["stalls"]
for s in failed:
    assert s["done"] and s["status"] == -3 and s["pid"] != r["pid"], s
    assert s["waiting_on"] and set(s["waiting_on"]) <= {2, 3}, s
assert any("the peer's process died" in s["detail"] for s in failed), failed
for i, s in enumerate(w["stalls"]):
    if i != ri:
        assert not s["root_cause"] and s["root"] == ri and s["root_task_id"] == 0, s
PY
fi

if [ -d kill ] && run 1 report kill; then
	grep -q '^root cause: rank 3 ' "$out" || fail "kill: report names no root cause rank 3"
fi

harness_finish "process death"
