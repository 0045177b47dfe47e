#!/bin/sh
# SPDX-License-Identifier: MIT
# The verdict on traces recorded through the real driver, for each way it used to go wrong:
# a rank slowed in its seam progress past the consumer timeout is named (with 2 ranks per proxy
# and with 1); a WARNING-level trace of a device stall names no innocent rank and does not claim
# events were lost; a healthy run whose tracer lost events is no stall, and a real stall in a
# lossy trace is still named; --threshold chains a late trigger's neighbours to the late rank;
# a trace with an emptied or missing stream (also one reached through a symbolic link), and a
# trace given twice, are reported and nothing certain is concluded from the damage.
#
#   sh test_report_verdict.sh path/to/proxyscope path/to/verdict_workload
# Runs inside tests/private_lttng.sh (a session daemon of its own). Exit 77 (skip) only when
# lttng is not installed.
set -eu

bin=${1:?usage: test_report_verdict.sh PROXYSCOPE VERDICT_WORKLOAD}
workload=${2:?usage: test_report_verdict.sh PROXYSCOPE VERDICT_WORKLOAD}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
workload=$(cd "$(dirname "$workload")" && pwd)/$(basename "$workload")
. "$(dirname "$0")/../cli_harness.sh"
. "$(dirname "$0")/../wait.sh"
need_lttng
cd "$tmp"

# --- slow seam progress past the consumer timeout: the slow rank is the root -------------------
for layout in "1 2" "2 1"; do
	set -- $layout
	slow=$1 per=$2
	if run 1 run --ops 5 --ranks-per-proxy "$per" --inject "slow-progress:rank=$slow,us=700000" \
		--timeout 500ms -o "slow$per"; then
		grep -q "^root cause: rank $slow exec 0 .*B2 progress call" "$out" ||
			fail "slow progress ($per per proxy): no root cause naming rank $slow's B2 call"
	fi
	if run 1 watchdog --json "slow$per"; then
		cp "$out" "slow$per.json"
		SLOW=$slow py "slow$per.json" <<'EOF' || fail "slow progress ($per per proxy): watchdog --json"
import os
w = j[0]["watchdog"]
st = w["stalls"]
roots = [st[i] for i in w["root_causes"]]
assert len(roots) == 1, roots
r = roots[0]
assert r["rank"] == int(os.environ["SLOW"]) and r["cause"] == "slow_progress", r
assert all(s["root_cause"] or s["root"] == w["root_causes"][0] for s in st), st
EOF
	fi
done

# --- a WARNING-level trace of a device stall: what it shows, no innocent rank ------------------
if run 1 run --ops 5 --inject device-stall:rank=3,exec=2 --timeout 500ms --loglevel warning -o warn; then
	if run 1 watchdog warn; then
		grep -q '^level: this trace holds WARNING and ERR events only' "$out" ||
			fail "warning level: no 'level:' line saying what the trace can tell"
		grep -q 'loglevel info' "$out" || fail "warning level: the level to record at is not named"
		if grep -q 'events were lost' "$out"; then fail "warning level: claims lost events"; fi
	fi
	run 1 watchdog --json warn && py "$out" <<'EOF' || fail "warning level: watchdog --json"
w = j[0]["watchdog"]
assert w["level"] == "warning_only", w["level"]
assert all(s["rank"] == 3 for s in w["stalls"] if s["root_cause"]), w["stalls"]
assert not any(s["uncertain_why"] == "lost_events" for s in w["stalls"]), w["stalls"]
EOF
fi

# --- lossy traces: a session with tiny buffers, recording every DEBUG event --------------------
# record_lossy DIR EXCLUDE ARGS...: verdict_workload ARGS recorded into DIR by a session of our
# own, every event but EXCLUDE ("-": none).
record_lossy() {
	dir=$1
	exclude=$2
	shift 2
	s=verdict-$$-$(basename "$dir")
	lttng create "$s" --output="$tmp/$dir" >/dev/null &&
		lttng enable-channel -u -s "$s" --subbuf-size=4096 --num-subbuf=2 --discard c >/dev/null &&
		for p in encproxy encdev encnet bananaphone; do
			if [ "$p" = encproxy ] && [ "$exclude" != - ]; then
				lttng enable-event -u -s "$s" -c c "$p:*" --loglevel=TRACE_DEBUG \
					--exclude="$exclude" >/dev/null || return 1
			else
				lttng enable-event -u -s "$s" -c c "$p:*" --loglevel=TRACE_DEBUG >/dev/null ||
					return 1
			fi
		done &&
		lttng add-context -u -s "$s" -c c -t vpid -t vtid -t procname >/dev/null &&
		lttng start "$s" >/dev/null || return 1
	status=0
	"$workload" "$@" >"$out" 2>"$err" || status=$?
	lttng destroy "$s" >/dev/null
	return 0
}

sessiond_pid=
if ! lttng list >/dev/null 2>&1; then
	lttng-sessiond --daemonize >/dev/null 2>&1 && wait_for 10 sessiond_answers
	sessiond_pid=$(cat /run/lttng/lttng-sessiond.pid 2>/dev/null || true)
fi
stop_sessiond() {
	if [ -n "$sessiond_pid" ]; then kill "$sessiond_pid" 2>/dev/null || true; fi
}

# The consumers' timeout plays no part in a healthy run's verdict (no watchdog event): 60 s, so
# that a machine stalled for seconds (seen: an exec held 10.8 s at load 100-280, the run failed
# with 10 s) still makes a healthy run.
if record_lossy lossy - 3000 60000 && [ "$status" -eq 0 ]; then
	status=0
	"$bin" report --json lossy >lossy.json 2>"$err" || status=$?
	py lossy.json <<'EOF' || fail "lossy healthy run: report --json"
d = j[0]
assert d["input"]["lost"]["events"] > 0, d["input"]["lost"]   # the tracer did lose events
w = d["watchdog"]
assert w["stall_found"] is False and w["verdict"] in ("ok", "inconclusive"), \
    (w["verdict"], [(s["rank"], s["exec_id"], s["kind"], s["cause"], s["detail"]) for s in w["stalls"]][:6])
EOF
	[ "$status" -eq 0 ] || [ "$status" -eq 3 ] || fail "lossy healthy run: report exit $status, not 0 or 3"
	"$bin" watchdog lossy >"$out" 2>"$err" || true
	if grep -q 'no stall' "$out" && grep -q 'left out' "$out"; then
		fail "lossy healthy run: says 'no stall' and 'left out' on two lines"
	fi
else
	fail "lossy healthy run: could not record (exit $status)"
fi

# The stall's own window must not be all lost: without the consumer's status polls (which fill
# the buffers for the whole timeout) the losses fall in the busy part before it. The consumers'
# timeout is 8 s: with 1 s, beside stress-ng --cpu 4, rank 3's device thread was held off its CPU
# for 4.87 s at exec 143, the consumers gave up there, and the trace (rightly) named that late
# trigger instead of the injected stall at exec 1500.
if record_lossy lossystall encproxy:status_poll 2000 8000 device-stall:rank=1,exec=1500 &&
	[ "$status" -eq 1 ]; then
	# On a loaded machine the stuck rank's own watchdog event can be lost too: then the trace
	# does not show what it was stuck on, and the verdict must blame no one as fact.
	kept=$(babeltrace2 lossystall 2>/dev/null |
		grep -cE 'watchdog_timeout.*rank = 1, gid = [0-9]+, exec_id = 1500' || true)
	if [ "$kept" -eq 0 ]; then
		status=0
		"$bin" watchdog --json lossystall >"$out" 2>"$err" || status=$?
		[ "$status" -eq 1 ] || [ "$status" -eq 3 ] || fail "a stall in a lossy trace: exit $status"
		py "$out" <<'EOF' || fail "a stall in a lossy trace (its watchdog events lost): blames"
w = j[0]["watchdog"]
assert all(s["uncertain"] or (s["rank"], s["exec_id"]) == (1, 1500)
           for s in w["stalls"] if s["root_cause"]), w["stalls"]
EOF
	elif run 1 watchdog --json lossystall; then
		py "$out" <<'EOF' || fail "a stall in a lossy trace: watchdog --json"
assert j[0]["input"]["lost"]["events"] > 0, j[0]["input"]["lost"]
w = j[0]["watchdog"]
roots = [w["stalls"][i] for i in w["root_causes"]]
named = [r for r in roots if (r["rank"], r["exec_id"], r["kind"]) == (1, 1500, "NETWORK")]
assert named and named[0]["cause"] == "device_no_trigger", \
    [(s["rank"], s["exec_id"], s["kind"], s["cause"], s["detail"]) for s in w["stalls"]][:8]
assert all(r in named or r["uncertain"] for r in roots), roots   # no other rank blamed as fact
EOF
	fi
else
	fail "a stall in a lossy trace: could not record (exit $status)"
fi
stop_sessiond

# --- --threshold: a late trigger's neighbours lead to the late rank -----------------------------
# The threshold well above what this machine's scheduler delays a task by now: twice the longest
# state of a healthy run made just before (at least 400 ms; beside stress-ng --cpu 4 at load 28 a
# barrier sat IDLE 401 ms with nothing injected), the delay twice the threshold; the consumers'
# timeout (10 s) far above the delay, so that no timeout fires in this healthy run (with the
# default 2 s, 4 fired beside stress-ng --cpu 2 at load 20-80).
thr=400
if run 0 run --ops 5 --timeout 10s -o calm; then
	"$bin" watchdog --threshold 1ms --json calm >"$out" 2>"$err" || true # 1: states over 1 ms
	thr=$(py "$out" <<'EOF'
longest = max([s["duration_ns"] for s in j[0]["watchdog"]["stalls"]] + [0]) / 1e6
print(max(400, int(2 * longest) + 1))
EOF
)
fi
[ -n "$thr" ] || thr=400
delay=$((2 * thr))
echo "threshold: ${thr} ms, the injected delay ${delay} ms"
if run 0 run --ops 5 --timeout 10s --inject device-delay:rank=1,exec=2,ms=$delay -o late; then
	if run 1 watchdog --threshold ${thr}ms late; then
		grep -q '^root cause: rank 1 exec 2 ' "$out" || fail "threshold: the root line names no exec"
		[ "$(grep -c '^root cause:' "$out")" -eq 1 ] || fail "threshold: not one root cause"
	fi
	run 1 watchdog --threshold ${thr}ms --json late && py "$out" <<'EOF' || fail "threshold: --json"
w = j[0]["watchdog"]
st = w["stalls"]
assert len(w["root_causes"]) == 1, [st[i] for i in w["root_causes"]]
r = st[w["root_causes"][0]]
assert (r["rank"], r["exec_id"], r["state"]) == (1, 2, "WAITING_DEVICE_TRIGGER"), r
assert all(s["root_cause"] or s["root"] == w["root_causes"][0] for s in st), st
EOF
fi

# --- damaged traces: a trace given twice, a stream emptied (also through a symlink), missing -----
if [ -d late ]; then
	cp -r late copy
	run 0 report --json late && cp "$out" once.json
	if run 0 report late copy; then
		grep -q "^duplicate: .*copy.* is the same trace as " "$out" ||
			fail "copied trace: not reported as the same trace"
	fi
	run 0 report --json late copy && py once.json "$out" <<'EOF' || fail "copied trace: counted twice"
a, b = j
assert b["overview"]["tasks"] == a["overview"]["tasks"], (a["overview"]["tasks"], b["overview"]["tasks"])
assert b["input"]["duplicate_events"] > 0
EOF
fi
if [ -d slow2 ]; then
	for how in empty missing; do
		cp -r slow2 "$how"
		# the smallest stream: the rest of the trace still holds the run (an emptied only
		# stream is a trace without events, a usage error that names the damage)
		stream=$(ls -Sr "$how"/ust/uid/*/64-bit/proxyscope_* | head -1)
		if [ "$how" = empty ]; then : >"$stream"; else rm "$stream"; fi
		status=0
		"$bin" watchdog --json "$how" >"$out" 2>"$err" || status=$?
		[ "$status" -eq 1 ] || [ "$status" -eq 3 ] || fail "$how stream: exit $status"
		HOW=$how py "$out" <<'EOF' || fail "$how stream: watchdog --json"
import os
w = j[0]["watchdog"]
assert [i["kind"] for i in w["integrity"]] == ["stream_" + os.environ["HOW"]], w["integrity"]
assert all(s["uncertain"] for s in w["stalls"]), w["stalls"]       # nothing certain from it
EOF
		"$bin" watchdog "$how" >"$out" 2>"$err" || true
		grep -q "^damaged: stream proxyscope_.* is $how" "$out" || fail "$how stream: not reported"
	done
	# the same trace reached through a symbolic link below the path given (the reader follows
	# it, and so does the damage check: one search)
	mkdir linked && ln -s ../empty linked/trace
	"$bin" watchdog linked >"$out" 2>"$err" || true
	grep -q "^damaged: stream proxyscope_.* is empty" "$out" ||
		fail "empty stream through a symbolic link: not reported"
	"$bin" watchdog --json linked >"$out" 2>"$err" || true
	py "$out" <<'EOF' || fail "empty stream through a symbolic link: watchdog --json"
w = j[0]["watchdog"]
assert [i["kind"] for i in w["integrity"]] == ["stream_empty"], w["integrity"]
assert all(s["uncertain"] for s in w["stalls"]), w["stalls"]
EOF
fi

harness_finish "verdict scenario"
