#!/bin/sh
# SPDX-License-Identifier: MIT
# `proxyscope run`, the main job, recorded with LTTng through the real driver, and its trace read
# back by the report commands: a healthy run reports no stall and its timeline matches what the
# driver itself counted; a device stall, a lost message and a slow but finishing rank are each
# named correctly (root cause, cause word, ranks) by the trace-based watchdog; Ctrl-C keeps the
# trace and leaves no session behind; a stream cut mid-packet is read up to there and said
# damaged, and one cut inside the only packet that held every event is said unreadable (still
# inconclusive, not "no events"); a corrupt CTF trace is a one-line error.
#
#   sh test_report_scenarios.sh path/to/proxyscope
# Exit 77 (skip) only when lttng is not installed.
set -eu

bin=${1:?usage: test_report_scenarios.sh PROXYSCOPE}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
. "$(dirname "$0")/../cli_harness.sh"
. "$(dirname "$0")/../wait.sh"
need_lttng
cut=$(cd "$(dirname "$0")/.." && pwd)/ctf_cut.py # a stream cut mid-packet by its index
cd "$tmp"

# The timeline of DIR against the run's own counters in RUN_JSON (tasks enqueued = rows seen,
# B1 / B3 calls = the driver's seam_start / seam_stop, DONE tasks = 2 per completed exec (at
# least that many on a failed run), network rows = seam_start on a healthy one).
counts_check() {
	dir=$1
	run_json=$2
	healthy=$3
	"$bin" timeline --json "$dir" >"$tmp/tl.json" 2>"$err" || { fail "timeline $dir"; return 0; }
	HEALTHY=$healthy py "$run_json" "$tmp/tl.json" <<'EOF' || fail "counts of $dir"
import os
run, tl, healthy = j[0], j[1]["timeline"], os.environ["HEALTHY"] == "1"
st, res = run["stats"], run["result"]
rows = tl["tasks"]
done = [r for r in rows if r["done"]]
net = [r for r in rows if r["kind"] == "NETWORK"]
assert tl["tasks_seen"] == st["tasks_enqueued"], (tl["tasks_seen"], st)
assert sum(r["seam_calls"]["B1"] for r in rows) == st["seam_start"], st
assert sum(r["seam_calls"]["B3"] for r in rows) == st["seam_stop"], st
if healthy:
    assert len(done) == 2 * res["execs_completed"] == len(rows), (len(done), res)
    assert len(net) == st["seam_start"] == res["execs_completed"], (len(net), st)
    assert all(r["latency_ns"] is not None and r["latency_ns"] > 0 for r in rows)
else:
    assert len(done) >= 2 * res["execs_completed"], (len(done), res)
EOF
}

# --- healthy: exit 0, no stall, the files, the default directory --------------------------------
if run 0 run --ops 20; then
	dir=$(ls -d proxyscope-run-* 2>/dev/null | head -1)
	[ -n "$dir" ] && [ -d "$dir" ] || fail "healthy: no ./proxyscope-run-* directory"
	grep -q '^result: *ok' "$out" || fail "healthy: result is not ok"
	grep -q '^watchdog: no stall' "$out" || fail "healthy: no 'watchdog: no stall' line"
	grep -q '^tasks: *160 seen, 160 done, 0 open' "$out" || fail "healthy: not 160 tasks done"
	grep -q "^trace: .*/$dir\$" "$out" || fail "healthy: the trace directory is not printed"
	if grep -q '^timeline: .*timeline.json' "$out"; then
		[ -s "$dir/timeline.json" ] && [ -s "$dir/timeline.html" ] ||
			fail "healthy: timeline.json / timeline.html missing"
		py "$dir/timeline.json" </dev/null || fail "healthy: timeline.json does not parse"
	else
		echo "note: this build has no exporter (timeline files not checked)" >&2
	fi
fi
if run 0 run --ops 30 --ranks 4 -o healthy --json; then
	cp "$out" healthy.json
	py healthy.json <<'EOF' || fail "healthy --json"
d = j[0]
assert d["result"]["ok"] is True and d["trace"]["dir"].endswith("/healthy")
w = d["report"]["watchdog"]
assert w["stall_found"] is False and w["stalls"] == []
assert d["report"]["overview"]["tasks"]["done"] == 240
assert d["report"]["input"]["lost"]["events"] == 0
EOF
	counts_check healthy healthy.json 1
	run 0 report healthy || true
	run 0 watchdog healthy || true
fi

# --- device stall: the trace names rank 1 exec 2 -------------------------------------------------
if run 1 run --ops 5 --inject device-stall:rank=1,exec=2 --timeout 500ms -o stall --json; then
	cp "$out" stall.json
	counts_check stall stall.json 0
fi
if run 1 run --ops 5 --inject device-stall:rank=1,exec=2 --timeout 500ms -o stall-text; then
	grep -q '^root cause: rank 1 .*exec 2' "$out" ||
		fail "device stall: no root cause line naming rank 1 and exec 2"
	[ "$(grep -c '^root cause:' "$out")" -eq 1 ] || fail "device stall: not one root cause"
	grep -q '^result: *FAILED' "$out" || fail "device stall: result is not FAILED"
fi
if run 1 watchdog --json stall; then
	cp "$out" wd.json
	py wd.json <<'EOF' || fail "device stall: watchdog --json"
w = j[0]["watchdog"]
roots = [w["stalls"][i] for i in w["root_causes"]]
assert len(roots) == 1, roots
r = roots[0]
assert (r["rank"], r["exec_id"], r["kind"]) == (1, 2, "NETWORK"), r
assert r["cause"] == "device_no_trigger" and r["streams_pending"] == [0], r
assert all(s["root"] == w["root_causes"][0] for s in w["stalls"] if not s["root_cause"])
# its shape: a hang outside the seam, at the device, shown by the injected fault it recorded;
# every other finding a cascade of it
assert (r["class"], r["place"], r["in_seam"], r["evidence"], r["role"]) == \
	("hang", "device", False, "observed", "initiating"), r
assert all(s["role"] == "cascade" for s in w["stalls"] if not s["root_cause"])
EOF
fi

# --- a lost message: rank 0's send to rank 1 ----------------------------------------------------
if run 1 run --ops 5 --inject net-drop:rank=0,exec=2 --timeout 500ms -o drop; then
	grep -q "^root cause: rank 1 .*rank 0's send to rank 1 .*lost" "$out" ||
		fail "net drop: no root cause naming rank 0's send"
fi
if run 1 watchdog --json drop; then
	cp "$out" drop.json
	py drop.json <<'EOF' || fail "net drop: watchdog --json"
w = j[0]["watchdog"]
roots = [w["stalls"][i] for i in w["root_causes"]]
assert len(roots) == 1, roots
r = roots[0]
assert r["cause"] == "message_lost" and r["rank"] == 1 and r["exec_id"] == 2, r
assert r["waiting_on"] == [0] and "rank 0's send" in r["detail"], r
# a message that never arrived: inside the seam; observed, for the driver's watchdog fired on
# the receiver (before it fired, the missing receive alone would make it inferred)
assert (r["class"], r["place"], r["in_seam"], r["evidence"], r["role"]) == \
	("hang", "message", True, "observed" if r["watchdog_fired"] else "inferred",
	 "initiating"), r
EOF
fi

# --- slow but finishing: no stall ----------------------------------------------------------------
if run 0 run --ops 20 --inject slow-progress:rank=1,us=200 -o slow --json; then
	cp "$out" slow.json
	py slow.json <<'EOF' || fail "slow progress --json"
d = j[0]
assert d["result"]["ok"] is True and d["report"]["watchdog"]["stall_found"] is False
EOF
	counts_check slow slow.json 1
fi

# --- usage errors leave nothing behind -----------------------------------------------------------
if run 2 run --inject device-stall:rank=9,exec=1 -o nothing; then
	grep -q '^error: .*rank 9 out of range' "$err" || fail "rank 9: no 'out of range' error"
	[ ! -e nothing ] || fail "rank 9: a trace directory was left behind"
fi
mkdir full && : >full/x
if run 2 run --ops 1 -o full; then
	grep -q "^error: 'full' already exists and is not empty" "$err" || fail "-o full: no error"
fi

# --- Ctrl-C: the trace so far is kept, the session is gone ---------------------------------------
"$bin" run --ops 5 --inject device-stall:rank=1,exec=2 --timeout 20s -o intr >"$out" 2>"$err" &
pid=$!
# Ctrl-C once the run's ranks run (their threads start once the session records: seen taking
# 5 s on a loaded machine), within the stall's 20 s timeout: the trace says where it was cut,
# and what was in flight then (the stalled task, its neighbours) is no root cause.
wait_for 60 has_thread "$pid" encdev-1 || fail "Ctrl-C: the run's ranks never started"
kill -INT "$pid"
status=0
wait "$pid" || status=$?
if [ "$status" -ne 130 ]; then
	fail "Ctrl-C: exit $status, expected 130"
else
	grep -q "interrupted; the trace recorded so far is kept in .*/intr" "$err" ||
		fail "Ctrl-C: no 'interrupted' line"
	if lttng list 2>/dev/null | grep -q "proxyscope-$pid-"; then
		fail "Ctrl-C: the session proxyscope-$pid-* is still there"
	fi
	# the timelines are still written, and say the run was interrupted
	if [ -s intr/timeline.json ] && [ -s intr/timeline.html ]; then
		py intr/timeline.json <<'EOF' || fail "Ctrl-C: timeline.json is not marked interrupted"
assert j[0]["otherData"]["interrupted"] is True
assert any(e.get("cat") == "verdict" and "interrupted" in e["name"] for e in j[0]["traceEvents"])
EOF
		grep -q '"interrupted":true' intr/timeline.html || fail "Ctrl-C: timeline.html is not marked interrupted"
	else
		fail "Ctrl-C: the timelines were not written"
	fi
	status=0
	"$bin" watchdog intr >"$out" 2>"$err" || status=$?
	{ [ "$status" -eq 0 ] || [ "$status" -eq 3 ]; } && grep -q 'the recording was cut' "$out" &&
		! grep -q '^root cause:' "$out" ||
		fail "Ctrl-C: the kept trace does not name the cut, or blames what the cut left in flight (exit $status)"
fi

# --- a truncated and a corrupt CTF trace ---------------------------------------------------------
# A stream file cut mid-packet (a consumer killed mid-write) is read up to its last whole packet
# and said damaged: no root cause is certain (exit 3). Without its index to say where its packets
# end, and with corrupt metadata, the trace is a one-line error.
# Where the cut falls decides what is left to read: a short run's events may all sit in one
# packet of one stream (a sub-buffer holds them; the threads ran on one CPU), and the healthy
# run's trace holds a stream of two packets only by chance. So the cut trace is recorded for it:
# pinned to CPU 0 (every event in proxyscope_0) with 64 KiB sub-buffers (its 240 tasks fill about
# 150 KiB: three packets; the 512 KiB ring holds them all, so none is lost), and the stream to cut
# is picked from the LTTng index (ctf_cut.py): inside its last packet, the packets before it read;
# inside its only packet, nothing of the trace is left to read - still damaged, still exit 3, and
# said so, not "no proxyscope events".
status=0
taskset -c 0 "$bin" run --ops 30 --ranks 4 --buffer-size 512KiB -o pinned </dev/null >"$out" \
	2>"$err" || status=$?
[ "$status" -eq 0 ] || fail "taskset -c 0 proxyscope run -o pinned: exit $status, expected 0"
if [ -d healthy ]; then
	cp -r healthy corrupt
	meta=$(find corrupt -name metadata -type f | head -1)
	printf 'this is not CTF metadata {{{\n' >"$meta"
fi
if [ -d pinned ]; then
	cp -r pinned trunc
	cp -r pinned trunc1
	name=
	if picked=$(python3 "$cut" last trunc 2>"$err"); then
		name=$(basename "${picked% *}")
		cp -r trunc truncnoindex
		rm -r "$(dirname "$(find truncnoindex -name "$name" -type f | head -1)")/index"
	else
		fail "trunc: no stream of two packets to cut"
	fi
	if [ -n "$name" ] && run 3 report trunc; then
		grep -q "^damaged: stream $name of '.*trunc.*' stops early" "$out" ||
			fail "trunc: the report does not say which stream stops early"
		if grep -q '^root cause:' "$out"; then fail "trunc: a root cause from a damaged trace"; fi
		grep -q '^events: *[1-9][0-9]* read' "$out" ||
			fail "trunc: the packets before the cut were not read"
		if grep -q 'nothing of it can be read' "$out"; then
			fail "trunc: whole packets said unreadable"
		fi
	fi
	name=
	if picked=$(python3 "$cut" only trunc1 2>"$err"); then
		name=$(basename "${picked% *}")
	else
		fail "trunc1: no stream to cut"
	fi
	for cmd in report watchdog; do
		if [ -n "$name" ] && run 3 "$cmd" trunc1; then
			grep -q "^damaged: stream $name of '.*trunc1.*' stops early, inside its first packet: nothing of it can be read" "$out" ||
				fail "trunc1 $cmd: the damaged stream is not said unreadable"
			grep -q '^watchdog: inconclusive: not one proxyscope event could be read' "$out" ||
				fail "trunc1 $cmd: the verdict does not say nothing could be read"
			if grep -q '^root cause:' "$out"; then fail "trunc1 $cmd: a root cause"; fi
			if grep -q 'no proxyscope events' "$out" "$err"; then
				fail "trunc1 $cmd: blames the recording for what the damage lost"
			fi
		fi
	done
fi
for t in truncnoindex corrupt; do
	[ -d "$t" ] || continue
	if run 2 report "$t"; then
		grep -q "^error: .*'$t" "$err" || fail "$t: the error does not name the trace"
		[ "$(wc -l <"$err")" -eq 1 ] || fail "$t: not a one-line error"
	fi
done

harness_finish "report scenario"
