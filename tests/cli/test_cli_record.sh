#!/bin/sh
# SPDX-License-Identifier: MIT
# Recording as a user sees it, with a real session daemon (run under tests/private_lttng.sh):
#  - a command that never loads libproxyscope: `record` warns that nothing was recorded;
#  - `run --no-trace` under `record` is traced like any application;
#  - `run` prints the events recorded and lost with its buffers, and --json carries them;
#  - `run` names what is missing when the probe library cannot be loaded;
#  - `run --snapshot` on a long run (4000 execs) with a stall near its end: the snapshot begins
#    mid-run (tasks of unknown state are left out), and its root cause is the full trace's;
#    `watchdog` of the snapshot directory agrees, and a directory of several snapshots is refused.
#
#   sh test_cli_record.sh path/to/proxyscope
set -eu

bin=${1:?usage: test_cli_record.sh PROXYSCOPE}
. "$(dirname "$0")/../cli_harness.sh"
need_lttng
cd "$tmp"

# --- nothing of ours recorded: a warning, not a silent empty trace -------------------------------
if run 0 record -o "$tmp/none" -- /bin/true; then
	grep -q '^warning: no proxyscope events were recorded: /bin/true did not load libproxyscope, or its probe library was not found$' "$err" ||
		fail "record -- /bin/true: no warning"
	grep -q "^trace: $tmp/none" "$out" || fail "record -- /bin/true: no trace line"
fi

# --- run --no-trace under record: recorded by the outer session ----------------------------------
if run 0 record -o "$tmp/outer" -- "$bin" run --no-trace --ranks 4 --ops 50 -q; then
	grep -q '^events: *[1-9][0-9]* recorded, 0 lost (0.00 %); buffers 8 x ' "$out" ||
		fail "record -- run --no-trace: no events line"
	if grep -q 'no proxyscope events' "$err"; then
		fail "record -- run --no-trace: nothing recorded"
	fi
fi
if run 0 report --json "$tmp/outer"; then
	python3 -c '
import json, sys
t = json.load(sys.stdin)["overview"]["tasks"]
assert t["seen"] == 400 and t["done"] == 400, t
' <"$out" || fail "record -- run --no-trace: not the run's 400 tasks"
fi

# --- run: what it recorded and lost, and its buffers ---------------------------------------------
# (--timeout 10s: a healthy exec went past the default 2 s beside stress-ng and 1024-rank runs)
if run 0 run --ranks 4 --ops 100 --timeout 10s -o "$tmp/run"; then
	grep -q '^events: *[1-9][0-9]* recorded, 0 lost (0.00 %); buffers 8 x [0-9]* MiB per CPU' "$out" ||
		fail "run: no events line with the buffers"
fi
if run 0 run --ranks 4 --ops 100 --timeout 10s --buffer-size 2MiB -o "$tmp/run2" --json; then
	python3 -c '
import json, sys
t = json.load(sys.stdin)["trace"]
assert t["buffer_bytes_per_cpu"] == 2 << 20, t
assert t["events_recorded"] > 0 and t["events_lost"] >= 0, t
assert 0 <= t["loss_rate"] <= 1 and t["snapshot"] is None, t
' <"$out" || fail "run --json: no buffer, events and loss rate in 'trace'"
fi

# --- run names what is missing -------------------------------------------------------------------
if ENC_TRACE=0 run 2 run --ops 10; then
	grep -q '^error: .*ENC_TRACE=0 is set' "$err" || fail "run with ENC_TRACE=0: the reason is not named"
fi
if ENC_TRACE_PROBE=$tmp/no-such-probe.so run 2 run --ops 10; then
	grep -q "^error: .*$tmp/no-such-probe.so: cannot open shared object file" "$err" ||
		fail "run with a missing ENC_TRACE_PROBE: the file is not named"
fi

# --- the flight recorder gives the full trace's verdict ------------------------------------------
# A 10 s watchdog: a loaded machine must not time out an exec before the injected stall. 4000
# execs (32,000 tasks) fill the 1 MiB flight recorder several times over; with 10,000 the test
# took over 300 s beside stress-ng --cpu 4 and the suite's other tests.
stall="--ranks 4 --ops 4000 --timeout 10s --inject device-stall:rank=1,exec=3900 --json"
if run 1 run $stall --snapshot --buffer-size 1MiB -o "$tmp/snap"; then
	cp "$out" "$tmp/snap.json"
	grep -q '^snapshot: ' "$out" && fail "run --snapshot --json: text on stdout"
fi
if run 1 run $stall -o "$tmp/full"; then
	cp "$out" "$tmp/full.json"
fi
if [ -s "$tmp/snap.json" ] && [ -s "$tmp/full.json" ]; then
	python3 - "$tmp/snap.json" "$tmp/full.json" <<'PY' || fail "snapshot and full trace disagree"
import json, sys
snap, full = (json.load(open(p)) for p in sys.argv[1:3])
def roots(d):
    w = d["report"]["watchdog"]
    return sorted((s["rank"], s["exec_id"], s["kind"], s["cause"])
                  for s in w["stalls"] if s["root_cause"])
assert snap["trace"]["snapshot"], snap["trace"]
assert "/snapshot-" in snap["trace"]["snapshot"], snap["trace"]
# The snapshot really begins mid-run: most execs were overwritten. Whether a task still open at
# its end had its start cut depends on where each CPU's ring wrapped (test_snapshot checks that
# such tasks are left out); a full trace has none.
assert snap["report"]["overview"]["tasks"]["seen"] < full["report"]["overview"]["tasks"]["seen"] / 2, \
    (snap["report"]["overview"], full["report"]["overview"])
assert full["report"]["watchdog"]["unknown_start_tasks"] == 0, full["report"]["watchdog"]
r = roots(full)
assert r == [(1, 3900, "NETWORK", "device_no_trigger")], r
assert roots(snap) == r, (roots(snap), r)
PY
fi
# The report commands know a snapshot by its directory; given the directory of several, they
# read the last one, as run does, and say which (their windows overlap: never merged).
if [ -s "$tmp/snap.json" ]; then
	last=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["trace"]["snapshot"])' <"$tmp/snap.json")
	if run 1 watchdog --json "$last"; then
		python3 -c '
import json, sys
w = json.load(sys.stdin)["watchdog"]
roots = [(s["rank"], s["exec_id"], s["cause"]) for s in w["stalls"] if s["root_cause"]]
assert roots == [(1, 3900, "device_no_trigger")], roots
# Whether it has tasks of unknown start depends on where each ring wrapped (see above).
' <"$out" || fail "watchdog SNAPSHOT: not the run's root cause"
	fi
	if run 1 watchdog --json "$tmp/snap"; then
		grep -q "^note: '$tmp/snap' holds [0-9]* flight-recorder snapshots: the last, '$last', is read" \
			"$err" || fail "watchdog of a directory of snapshots: does not say it read the last"
		python3 -c '
import json, sys
w = json.load(sys.stdin)["watchdog"]
roots = [(s["rank"], s["exec_id"], s["cause"]) for s in w["stalls"] if s["root_cause"]]
assert roots == [(1, 3900, "device_no_trigger")], roots
' <"$out" || fail "watchdog of a directory of snapshots: not the run's root cause"
	fi
fi

harness_finish "record"
