#!/bin/sh
# SPDX-License-Identifier: MIT
# A slow seam call told from a broken connection, on real runs at the default level (issue 24):
#
# - slow progress that starts mid-run (slow-progress:rank=2,us=U,from=20, 40 execs, the loop
#   backend): the verdict has one root, rank 2 exec 20, slow_progress, class slow, initiating,
#   saying the fault its rank recorded from exec 20; no exec before 20 is stalled.
# - an endpoint failing before the first post (the ofi backend over tcp, 2 processes; the
#   second is killed as it starts exec 0 while the first's devices trigger exec 0 late, so its
#   tasks enter PROGRESSING with the connection to the dead process already broken): the one
#   root is the process's death, the survivors' tasks fail as its cascade, and no stall is
#   slow_progress - no call held a worker, whatever the time from PROGRESSING to the failure.
#
# Time on a busy machine: a healthy run first measures the machine's own stall (the longest exec,
# first arrival to last DONE); the consumer timeout T is 3 s or 4 times that stall, the slow call
# U two thirds of T (over half of it, as slow_progress asks, and below it), the late trigger half
# of T. Quiet, the longest exec took 1-3 ms; at load 20 up to 120 ms.
#
#   sh test_slow_seam.sh path/to/proxyscope
bin=${1:?usage: test_slow_seam.sh PROXYSCOPE}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli_harness.sh"
need_lttng

timeout_ms=3000
if run 0 run -q --ranks 4 --ranks-per-proxy 1 --ops 40 -o "$tmp/healthy" &&
	run 0 stragglers --json "$tmp/healthy"; then
	stall_ms=$(py "$out" <<'PY'
print(max(1, round(max(e["span_ns"] for e in j[0]["stragglers"]["execs"]) / 1e6)))
PY
)
	[ $((4 * stall_ms)) -gt $timeout_ms ] && timeout_ms=$((4 * stall_ms))
	echo "machine's stall: ${stall_ms} ms; consumer timeout ${timeout_ms} ms"
fi
slow_us=$((timeout_ms * 2000 / 3))

# Slow progress from exec 20: each rank its own worker, so only rank 2's calls are slow.
if run 1 run -q --ranks 4 --ranks-per-proxy 1 --ops 40 --timeout "${timeout_ms}ms" \
	--inject "slow-progress:rank=2,us=$slow_us,from=20" -o "$tmp/slow"; then
	run 1 watchdog --json "$tmp/slow" &&
		py "$out" <<'PY' || fail "slow progress from exec 20: the verdict"
w = j[0]["watchdog"]
roots = [s for s in w["stalls"] if s["root_cause"]]
assert len(roots) == 1, [(s["rank"], s["exec_id"], s["cause"]) for s in roots]
r = roots[0]
assert (r["rank"], r["exec_id"], r["cause"]) == (2, 20, "slow_progress"), r
assert (r["class"], r["role"], r["evidence"]) == ("slow", "initiating", "observed"), r
assert "injected slow-progress fault" in r["detail"] and "from exec 20" in r["detail"], r["detail"]
early = [(s["rank"], s["exec_id"]) for s in w["stalls"] if s["exec_id"] < 20]
assert not early, early
PY
	run 1 watchdog "$tmp/slow" &&
		grep -q '^root cause: rank 2 exec 20 (.*): its first B2 progress call took' "$out" ||
		fail "slow progress from exec 20: the text's root cause"
fi

# A broken connection before the first post: the ofi backend (a build without it has no ofi).
if [ "${PROXYSCOPE_TEST_WITH_OFI:-1}" = 1 ]; then
	late_ms=$((timeout_ms / 2))
	if run 1 run -q --ranks 4 --procs 2 --backend ofi --provider tcp --ops 10 \
		--timeout "${timeout_ms}ms" --inject kill:rank=2,exec=0 \
		--inject "device-delay:proc=0,exec=0,ms=$late_ms" -o "$tmp/broken"; then
		cp "$out" "$tmp/broken.txt"
		run 1 watchdog --json "$tmp/broken" &&
			RUN_TEXT=$tmp/broken.txt py "$out" <<'PY' || fail "broken connection: the verdict"
import os
w = j[0]["watchdog"]
s = w["stalls"]
assert not [x for x in s if x["cause"] == "slow_progress"], s
roots = [x for x in s if x["root_cause"]]
assert len(roots) == 1 and roots[0]["cause"] == "process_died", roots
# the survivors (ranks 0 and 1) failed on the broken connection: the death's cascade - unless
# the death came before their set-up ended (once on the fresh machine: no task of theirs, the
# run's own text says where they stopped), when only the death may be named
net = [x for x in s if x["rank"] in (0, 1) and x["kind"] == "NETWORK"]
text = open(os.environ["RUN_TEXT"]).read()
assert net or "setup stage" in text, (net, text[-800:])
assert all(x["cause"] == "task_error" and x["role"] == "cascade" for x in net), net
PY
	fi
fi
harness_finish "slow seam against broken connection"
