#!/bin/sh
# SPDX-License-Identifier: MIT
# Recording beside others, with real session daemons (run under tests/private_lttng.sh: this
# script's own /run/lttng, in which it plays "the machine"):
#  - two `record`s at once with no session daemon running: each starts its own, private one; the
#    first to end stops only its own, the other's trace stays complete; each trace holds only
#    its own command's process;
#  - the same beside a system-style daemon (`lttng-sessiond -d`, as Debian's
#    lttng-sessiond.service starts it) holding a session of someone else's: both traces
#    complete, the daemon and the other session still there afterwards;
#  - a foreign libproxyscope process (`run --no-trace`) running during a recording: `watchdog`
#    on the recording exits 0 and the foreign pid appears nowhere in the trace;
#  - two recorded `run`s at once, with and without the system-style daemon (and the foreign
#    process beside them): each trace holds its own run's process only.
#
#   sh test_field_record.sh path/to/proxyscope
bin=${1:?usage: test_field_record.sh PROXYSCOPE}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli_harness.sh"
. "$here/../wait.sh"
need_lttng
command -v babeltrace2 >/dev/null 2>&1 || { echo "skip: babeltrace2 is not installed"; exit 77; }

# vpids TRACE: the distinct vpids of the trace's events, one a line.
vpids() {
	babeltrace2 "$1" 2>/dev/null | sed -n 's/.*vpid = \([0-9]*\).*/\1/p' | sort -u
}

# one_process NAME TRACE: the trace holds events, all of one process (the recorded command).
one_process() {
	n=$(vpids "$2" | wc -l)
	[ "$n" -eq 1 ] || { fail "$1: $n processes in $2, expected 1"; return 1; }
}

# pair TAG: A's command runs, then waits until B's record has begun; B's command waits until
# A's record has ended (its daemon, if it started one, stopped) and only then runs. On the old
# code B either could not start a daemon beside A's or lost it when A stopped it.
pair() {
	rm -f "$tmp/b.started" "$tmp/a.done"
	("$bin" record -o "$tmp/$1-A" -- sh -c "
		'$bin' run --no-trace -q --ranks 2 --ops 300 --timeout 60s || exit 1
		while [ ! -e '$tmp/b.started' ]; do sleep 0.1; done" \
		>"$tmp/$1-A.out" 2>"$tmp/$1-A.err"
	 echo $? >"$tmp/$1-A.rc"; touch "$tmp/a.done") &
	"$bin" record -o "$tmp/$1-B" -- sh -c "
		touch '$tmp/b.started'
		while [ ! -e '$tmp/a.done' ]; do sleep 0.1; done
		exec '$bin' run --no-trace -q --ranks 2 --ops 200 --timeout 60s" \
		>"$tmp/$1-B.out" 2>"$tmp/$1-B.err"
	rc_b=$?
	wait
	[ "$(cat "$tmp/$1-A.rc")" = 0 ] ||
		{ cat "$tmp/$1-A.err" >>"$err"; fail "$1: record A exited $(cat "$tmp/$1-A.rc")"; }
	[ "$rc_b" = 0 ] || { cat "$tmp/$1-B.err" >>"$err"; fail "$1: record B exited $rc_b"; }
	for t in A B; do
		run 0 watchdog "$tmp/$1-$t" && grep -q '^watchdog: no stall' "$out" ||
			{ cat "$tmp/$1-$t.err" >>"$err"; fail "$1: watchdog on trace $t"; }
		one_process "$1 $t" "$tmp/$1-$t"
	done
	[ "$(vpids "$tmp/$1-A")" != "$(vpids "$tmp/$1-B")" ] || fail "$1: A and B share a process"
}

# working PID: PID's workload runs (a proxy worker thread exists), which a recorded `run` starts
# only once its session records it.
working() {
	grep -q '^proxy-' /proc/"$1"/task/*/comm 2>/dev/null
}

# run_pair TAG: a recorded `run` A (long, but 10 execs a second: its trace stays small) is
# working when a recorded `run` B starts and ends; then A is stopped by SIGINT. Each trace holds
# its own process only. On the old code each recorded the other: B used the daemon A started
# (no daemon running) or the system's, with no filter.
run_pair() {
	"$bin" run -q -o "$tmp/$1-runA" --ranks 2 --ops 100000000 --compute 100ms --timeout 60s \
		>"$tmp/$1-runA.out" 2>"$tmp/$1-runA.err" &
	runa=$!
	wait_for 60 working "$runa" || fail "$1: run A never started its workload"
	run 0 run -q -o "$tmp/$1-runB" --ranks 2 --ops 300 --timeout 60s || fail "$1: run B"
	kill -0 "$runa" 2>/dev/null || fail "$1: run A ended before run B did"
	kill -INT "$runa"
	rc_a=0
	wait "$runa" || rc_a=$?
	[ "$rc_a" = 130 ] || { cat "$tmp/$1-runA.err" >>"$err"; fail "$1: run A exited $rc_a"; }
	run 0 watchdog "$tmp/$1-runB" || fail "$1: watchdog on run B's trace"
	one_process "$1 run B" "$tmp/$1-runB"
	one_process "$1 run A" "$tmp/$1-runA"
	[ "$(vpids "$tmp/$1-runA")" = "$runa" ] || fail "$1: run A's trace is not run A's"
	[ -n "${foreign:-}" ] && grep -q "$foreign" "$out" &&
		fail "$1: the foreign pid $foreign named in run B's report"
}

# --- no session daemon running ----------------------------------------------------------------
lttng list >/dev/null 2>&1 && { echo "skip: a session daemon already answers here"; exit 77; }
pair nodaemon
run_pair nodaemon
lttng list >/dev/null 2>&1 && fail "nodaemon: a session daemon was left running"

# --- beside a system-style daemon, with a session of someone else's --------------------------
lttng-sessiond -d || { echo "FAIL: cannot start lttng-sessiond -d"; exit 1; }
sysd=$(cat /run/lttng/lttng-sessiond.pid)
lttng create other-user -o "$tmp/other" >/dev/null || fail "cannot create the other session"
pair system
kill -0 "$sysd" 2>/dev/null || fail "system: the system daemon was stopped"
lttng list 2>/dev/null | grep -q 'other-user' || fail "system: the other session is gone"

# --- a foreign libproxyscope process during a recording -----------------------------------------
"$bin" run --no-trace -q --ranks 2 --ops 100000000 --timeout 60s >/dev/null 2>&1 &
foreign=$!
registered() { lttng list -u 2>/dev/null | grep -q "PID: $foreign"; }
wait_for 60 registered || fail "foreign: pid $foreign never registered with the daemon"
if run 0 record -o "$tmp/fg" -- "$bin" run --no-trace -q --ranks 2 --ops 300 --timeout 60s; then
	run 0 watchdog "$tmp/fg" || fail "foreign: watchdog on the recording"
	grep -q "$foreign" "$out" && fail "foreign: pid $foreign named in the report"
	vpids "$tmp/fg" | grep -qx "$foreign" && fail "foreign: pid $foreign in the trace"
	one_process foreign "$tmp/fg"
fi
run_pair system
kill -0 "$foreign" 2>/dev/null || fail "foreign: the foreign process ended before the check"
kill "$foreign"; wait "$foreign" 2>/dev/null
lttng destroy other-user >/dev/null 2>&1
kill "$sysd"
harness_finish "field record"
