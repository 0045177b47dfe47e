#!/bin/sh
# SPDX-License-Identifier: MIT
# test_watch.sh PROXYSCOPE WATCH_SCENARIO: `proxyscope watch` against a real lttng-relayd and a
# session daemon of the test's own (run under tests/private_lttng.sh; relay daemons on free
# loopback ports, so nothing collides with another test or a user's daemon):
#   1. a device stall in a run whose own timeout is 30 s is reported with the right rank, exec
#      and cause within threshold + 1 s of the stall's start (measured from the kept trace),
#      while the run still hangs; the exit status is CMD's; the kept trace names the same root.
#      The stall comes ~5 s into the run (exec 250 of 20 ms each): the viewer's first attach
#      took up to 3.3 s on a loaded machine, which is not what this measures;
#   2. a healthy run of a minute reports nothing;
#   3. attach mode finds (--list) and watches a session another process started;
#   4. killing the relay daemon mid-watch ends watch with an error, not a hang;
#   5. an abort inside babeltrace2's live source: the session is attached anew, the stall still
#      reported.
set -u
PS=$1
SCEN=$2
THRESHOLD_NS=500000000
TMP=$(mktemp -d "${TMPDIR:-/tmp}/test_watch.XXXXXX")
RELAYD_PID=
SESSIOND_PID=
SESSION=
cleanup() {
	[ -n "$SESSION" ] && lttng destroy "$SESSION" >/dev/null 2>&1
	[ -n "$SESSIOND_PID" ] && kill "$SESSIOND_PID" 2>/dev/null
	[ -n "$RELAYD_PID" ] && kill "$RELAYD_PID" 2>/dev/null
	[ -f "$TMP/orphan" ] && kill "$(cat "$TMP/orphan")" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

fail() {
	echo "FAIL: $*" >&2
	for f in "$TMP"/*.out "$TMP"/*.err; do
		[ -f "$f" ] && { echo "--- $f" >&2; tail -n 30 "$f" >&2; }
	done
	exit 1
}

command -v lttng >/dev/null && command -v lttng-relayd >/dev/null || { echo "skip: no LTTng"; exit 77; }
. "$(dirname "$0")/../wait.sh"

# watch_attached RELAYD_PID: a viewer is attached to a session of that relay daemon (the URL of
# its live port taken from its command line), as `proxyscope watch --list` counts them.
watch_attached() {
	_live=$(tr '\0' '\n' <"/proc/$1/cmdline" 2>/dev/null | sed -n '/^-L$/{n;s|^tcp://|net://|p;}')
	[ -n "$_live" ] &&
		"$PS" watch --list "$_live" 2>/dev/null | grep -q ' [1-9][0-9]* viewers)$'
}
watch_gone() { ! kill -0 "$1" 2>/dev/null; }

# Each line of stdin, prefixed with the CLOCK_REALTIME ns it arrived at.
stamp() {
	python3 -u -c '
import sys, time
for line in sys.stdin:
    print(time.time_ns(), line, end="", flush=True)
'
}

# --- 1. a stall, reported while the run hangs -------------------------------------------------
# stall_run N: one watched stall run into $TMP/stallN; exit 0 when every check holds, 3 when
# all but the latency do (printed either way), anything else on a wrong verdict.
stall_run() {
	d="$TMP/stall$1"
	{ "$PS" watch --threshold 500ms --json -o "$d" -- "$SCEN" stall 250 2>"$d.err"
	  echo $? >"$d.rc"; } | stamp >"$d.out"
	[ "$(cat "$d.rc")" = 0 ] || { echo "stall: watch exited $(cat "$d.rc"), CMD's status is 0"; return 1; }
	"$PS" report --json "$d" >"$d.report.json" 2>"$d.report.err" ||
		[ $? = 1 ] || { echo "stall: the kept trace cannot be read"; return 1; }
	python3 - "$d.out" "$d.report.json" "$THRESHOLD_NS" <<'EOF'
import json, sys
lines = [l.split(" ", 1) for l in open(sys.argv[1])]
rep = json.load(open(sys.argv[2]))
threshold = int(sys.argv[3])
notes = [(int(t), json.loads(rest)) for t, rest in lines if rest.startswith("{")]
run_end = [int(t) for t, rest in lines if rest.startswith("end_ns=")]
findings = [(t, n) for t, n in notes if n["event"] == "finding"]
stall = [(t, n) for t, n in findings if (n["rank"], n["exec_id"]) == (1, 250)]
assert stall, "the stall was not reported: %r" % findings
t, f = stall[0]
assert (f["cause"], f["root_cause"]) == ("device_no_trigger", True), "the stall: %r" % f
assert f["host"] and f["kind"] == "NETWORK" and f["state"] == "WAITING_DEVICE_TRIGGER", f
# anything else is a state that truly lasted that long on a loaded machine, and moved again
resolved = {(n["pid"], n["task_id"]) for _, n in notes if n["event"] == "resolved"}
others = [n for _, n in findings if n is not f and n["exec_id"] != 250]
assert all((n["pid"], n["task_id"]) in resolved for n in others), "an open finding: %r" % others
# the post-mortem verdict on the kept trace: the same root, and when its state began
roots = [s for s in rep["watchdog"]["stalls"] if s["root_cause"]]
assert [(s["rank"], s["exec_id"], s["cause"]) for s in roots] == [(1, 250, "device_no_trigger")], roots
assert run_end and t < run_end[0], "reported after the run ended"
ends = [(n["rank"], n["exec_id"]) for _, n in notes if n["event"] == "end"]
assert (1, 250) in ends, "open at the end: %r" % ends
began = rep["overview"]["last_ts"] - roots[0]["duration_ns"]
late = t - began
print("stall began %d, reported %.3f s later (threshold %.3f s; the stream's present then "
      "%.3f s behind), run ended %.3f s later"
      % (began, late / 1e9, threshold / 1e9, (t - f["time_ns"]) / 1e9, (run_end[0] - began) / 1e9))
sys.exit(0 if late <= threshold + 1000000000 else 3)
EOF
}
# The latency also depends on the live stream itself: on this shared 2-CPU machine at a load
# average of 20-30, nothing (no event, no relay beacon) came through it for 3-5 s in some runs,
# and no present the stream does not vouch for is used (cli/live_watch.h). So a run that is
# only late is tried again, at most 3 runs in all; every measurement is printed.
for attempt in 1 2 3; do
	stall_run $attempt
	rc=$?
	[ $rc = 0 ] && break
	[ $rc = 3 ] || fail "stall: see above"
	[ $attempt = 3 ] && fail "stall: reported later than threshold + 1 s in 3 runs"
done

# --- 2. a healthy run of a minute reports nothing ---------------------------------------------
# ... nothing but what the post-mortem watchdog finds in the kept trace with the same
# threshold: on a loaded machine a healthy run can truly spend longer than 500 ms in a state
# (its device thread starved), and the live verdict is the post-mortem one on the events so far.
"$PS" watch --threshold 500ms --json -o "$TMP/healthy" -- "$SCEN" healthy 60 >"$TMP/healthy.out" \
	2>"$TMP/healthy.err" || fail "healthy: watch exited $?"
grep -q "failures=0" "$TMP/healthy.out" || fail "healthy: the run itself failed"
grep -q "watch: [1-9][0-9]* events, [0-9]* lost, [0-9]* finding" "$TMP/healthy.err" || fail "healthy: summary"
"$PS" watchdog --threshold 500ms --json "$TMP/healthy" >"$TMP/healthy_wd.json" 2>"$TMP/healthy_wd.err"
[ $? -le 1 ] || fail "healthy: the kept trace cannot be read"
python3 - "$TMP/healthy.out" "$TMP/healthy_wd.json" <<'EOF2' || fail "healthy: see above"
import json, sys
live = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
found = [n for n in live if n["event"] == "finding"]
post = json.load(open(sys.argv[2]))["watchdog"]["stalls"]
slow = {(s["pid"], s["task_id"]) for s in post}
print("healthy run: %d live findings, %d tasks over the threshold post-mortem" % (len(found), len(slow)))
assert not [s for s in post if not s["done"]], "a task never finished: %r" % post
for n in found:
    # lost events (the tracer's buffers overflow on a loaded machine) make a finding uncertain
    assert (n["pid"], n["task_id"]) in slow or n["uncertain"], \
        "live finding the trace does not confirm: %r" % n
resolved = {(n["pid"], n["task_id"]) for n in live if n["event"] == "resolved"}
assert all((n["pid"], n["task_id"]) in resolved for n in found), "a finding never resolved"
assert not [n for n in live if n["event"] == "end"], "a finding still open at the end"
EOF2

# --- 3. attach to a session another process started -------------------------------------------
PORTS=$(python3 -c '
import socket
s = [socket.socket() for _ in range(3)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))')
set -- $PORTS
lttng-relayd -C tcp://127.0.0.1:$1 -D tcp://127.0.0.1:$2 -L tcp://127.0.0.1:$3 -o "$TMP/relay" \
	>"$TMP/relayd.out" 2>&1 &
RELAYD_PID=$!
LIVE=$3
SESSION=test-watch-$$
if ! lttng list >/dev/null 2>&1; then
	lttng-sessiond --daemonize >/dev/null 2>&1 || fail "attach: cannot start a session daemon"
	SESSIOND_PID=$(cat /run/lttng/lttng-sessiond.pid 2>/dev/null)
fi
lttng create "$SESSION" --live=100000 --set-url=net://127.0.0.1:$1:$2 >"$TMP/lttng.out" 2>&1 ||
	fail "attach: lttng create"
# the level proxyscope's own sessions record (state changes): with every event (the per-poll
# ones too) the tracer lost 30-390 M events a run, and in one run of 14 the stall's own events
# with them (`proxyscope watchdog` on the relay daemon's whole trace: inconclusive, no stall)
for p in encproxy encdev encnet; do
	lttng enable-event -u -s "$SESSION" "$p:*" --loglevel=TRACE_INFO >>"$TMP/lttng.out" 2>&1 ||
		fail "attach: lttng enable-event $p"
done
lttng add-context -u -s "$SESSION" -t vpid -t vtid -t procname >>"$TMP/lttng.out" 2>&1 &&
	lttng start "$SESSION" >>"$TMP/lttng.out" 2>&1 || fail "attach: lttng session"
"$PS" watch --list net://127.0.0.1:$LIVE >"$TMP/list.out" 2>"$TMP/list.err" || fail "attach: --list"
URL=$(grep -o "net://[^ ]*/$SESSION" "$TMP/list.out") || fail "attach: the session is not listed"
"$PS" watch --threshold 500ms --json "$URL" >"$TMP/attach.out" 2>"$TMP/attach.err" &
WATCH=$!
# the watch itself waits for the session's streams (they appear with the run's first event):
# the run may start once the watch is up, its signal handlers in place
wait_for 30 catches_sigint $WATCH || fail "attach: watch did not start"
"$SCEN" stall 30 >"$TMP/attach_run.out" 2>&1 || fail "attach: the run failed"
lttng destroy "$SESSION" >>"$TMP/lttng.out" 2>&1
SESSION=
wait_for 15 watch_gone $WATCH
if kill -0 $WATCH 2>/dev/null; then kill $WATCH; fail "attach: watch did not end with the session"; fi
wait $WATCH
[ $? = 1 ] || fail "attach: watch should exit 1 (a finding)"
python3 - "$TMP/attach.out" <<'EOF' || fail "attach: see above"
import json, sys
notes = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
f = [n for n in notes if n["event"] == "finding"]
assert (1, 30, "device_no_trigger") in [(n["rank"], n["exec_id"], n["cause"]) for n in f], f
ends = [(n["rank"], n["exec_id"]) for n in notes if n["event"] == "end"]
assert (1, 30) in ends, "open at the end: %r" % ends
EOF
kill $RELAYD_PID 2>/dev/null
wait $RELAYD_PID 2>/dev/null
RELAYD_PID=

# --- 4. the relay daemon killed mid-watch -----------------------------------------------------
"$PS" watch --threshold 500ms -o "$TMP/killed" -- "$SCEN" healthy 40 >"$TMP/killed.out" 2>"$TMP/killed.err" &
WATCH=$!
RELAY=
relay_up() { RELAY=$(pgrep -P $WATCH -x lttng-relayd) && grep -q start_ns "$TMP/killed.out"; }
wait_for 10 relay_up
[ -n "$RELAY" ] || fail "killed: no relay daemon under watch"
# mid-watch: the watch follows the run live (attached to its session) when the relay dies
wait_for 30 watch_attached $RELAY || fail "killed: watch never attached to its session"
kill -9 $RELAY
wait_for 20 watch_gone $WATCH
if kill -0 $WATCH 2>/dev/null; then kill -9 $WATCH; fail "killed: watch hangs 20 s after its relay daemon died"; fi
wait $WATCH
RC=$?
sed -n "s/.*'.*' (pid \([0-9]*\)) goes on, untraced/\1/p" "$TMP/killed.err" >"$TMP/orphan"
[ $RC = 1 ] || fail "killed: watch exited $RC, wanted 1"
[ "$(grep -c '^error: ' "$TMP/killed.err")" = 1 ] || fail "killed: wanted one error line"

# --- 5. babeltrace2's live source aborts -------------------------------------------------------
# As 2.0.4's lttng-live does on a race of its own (analysis/read/ctf/live_abort.h; the fresh
# machine's test_schema_record ended with SIGABRT): the reader thread is made to abort at its
# third run. The watch attaches the session anew, reports the stall that comes seconds later,
# exits with CMD's status and says what happened; no daemon of it is left.
d="$TMP/abort"
PROXYSCOPE_TEST_LIVE_ABORT=3 "$PS" watch --threshold 500ms --json -o "$d" -- "$SCEN" stall 250 \
	>"$d.out" 2>"$d.err"
RC=$?
[ $RC = 0 ] || fail "abort: watch exited $RC, CMD's status is 0 (stderr: $(tail -3 "$d.err"))"
grep -q "aborting a live reader" "$d.err" || fail "abort: the reader was not made to abort"
grep -q "attached a session anew 1 time after babeltrace2's live source aborted" "$d.err" ||
	fail "abort: the summary does not say the session was attached anew"
python3 - "$d.out" <<'EOF2' || fail "abort: see above"
import json, sys
notes = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
f = [(n["rank"], n["exec_id"], n["cause"]) for n in notes if n["event"] == "finding"]
assert (1, 250, "device_no_trigger") in f, "the stall after the new attach: %r" % f
EOF2
echo "ok"
