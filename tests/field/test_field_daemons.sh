#!/bin/sh
# SPDX-License-Identifier: MIT
# A dying daemon loses only what it held (issue 21, point 5): a 2-host `run --hosts 2 --procs 2
# --backend ofi --provider tcp`, recorded, with one daemon killed (SIGKILL, by pid) once events
# reach the trace - the relay daemon on 'collector', host1's lttng-sessiond, host1's
# lttng-consumerd. Each time:
#   - the death is said when it happens, the job runs on and its result is printed (ok);
#   - the report of the readable hosts is printed, the lost host named ('trace lost:' in the
#     summary, 'lost:' in the watchdog report), no root cause blamed on anyone;
#   - the exit status is 3 (the verdict cannot be complete);
#   - nothing is left: no process in, and no descriptor on, the hosts' namespaces, and their
#     runtime directory removed;
#   - `proxyscope watchdog DIR` later reads the tree, names the lost host and exits 3.
#
#   sh test_field_daemons.sh path/to/proxyscope     (root, mpirun, lttng-relayd)
set -u
bin=${1:?usage: test_field_daemons.sh PROXYSCOPE}
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" -eq 0 ] || { echo "test_field_daemons: needs root; skipped"; exit 77; }
for t in mpirun lttng-relayd lttng-sessiond; do
	command -v $t >/dev/null || { echo "test_field_daemons: no $t; skipped"; exit 77; }
done
. "$here/../wait.sh"
. "$here/../hosts/leftovers.sh"
# Only the processes on the simulated hosts load the probes, and they register with their own
# host's daemon (see test_run_hosts_trace.sh).
unset ENC_TRACE
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Both hosts' traces in the relay daemon's tree $1 hold events (flowing), and their metadata
# (described): what a daemon's death must not take away.
flowing() {
	for h in host0 host1; do
		[ -n "$(find "$1/$h" -path '*/ust/uid/*/64-bit/*_[0-9]*' -size +0 2>/dev/null)" ] ||
			return 1
	done
}
described() {
	for h in host0 host1; do
		[ -n "$(find "$1/$h" -path '*/ust/uid/*/64-bit/metadata' -size +0 2>/dev/null)" ] ||
			return 1
	done
}

# The hosts' runtime directory of the run $1 (its holder of host1 is its child).
hosts_dir_of() {
	for d in $(hosts_dirs); do
		h=$(cat "$d/host1.pid" 2>/dev/null) || continue
		[ "$(awk '{ print $4 }' "/proc/$h/stat" 2>/dev/null)" = "$1" ] && { echo "$d"; return; }
	done
}

# The children of $1 named $2 (of any of its threads).
children_named() {
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		[ "$(cat /proc/"$c"/comm 2>/dev/null)" = "$2" ] && echo "$c"
	done
}

# victim RUN_PID WHAT: the pid of the daemon to kill.
victim() {
	case $2 in
	relayd) children_named "$1" lttng-relayd ;;
	sessiond | consumerd)
		d=$(hosts_dir_of "$1")
		[ -n "$d" ] || return 0
		sd=$(cat "/proc/$(cat "$d/host1.pid")/root/run/lttng/lttng-sessiond.pid" 2>/dev/null)
		[ -n "$sd" ] || return 0
		if [ "$2" = sessiond ]; then echo "$sd"; else children_named "$sd" lttng-consumerd; fi ;;
	esac
}

# The lines the run prints for what was lost: every host for the relay daemon, host1 else.
lost_lines() {
	case $1 in
	relayd) grep -q '^trace lost:  host0: the relay daemon died at ' "$tmp/out" &&
		grep -q '^trace lost:  host1: the relay daemon died at ' "$tmp/out" ;;
	sessiond) grep -q '^trace lost:  host1: its lttng-sessiond died at ' "$tmp/out" &&
		! grep -q '^trace lost:  host0' "$tmp/out" ;;
	consumerd) grep -q '^trace lost:  host1: its lttng-consumerd died at ' "$tmp/out" &&
		! grep -q '^trace lost:  host0' "$tmp/out" ;;
	esac
}

# The death said on stderr as it happened.
death_said() {
	case $1 in
	relayd) grep -q "^proxyscope: the relay daemon (lttng-relayd, pid $2, on 'collector') died mid-run" "$tmp/err" ;;
	sessiond) grep -q "^proxyscope: host1's lttng-sessiond (pid $2) died mid-run" "$tmp/err" ;;
	consumerd) grep -q "^proxyscope: host1's lttng-consumerd (pid $2) died mid-run" "$tmp/err" ;;
	esac
}

# The readable hosts' report: host0's processes always, host1's too when its trace holds events
# up to the death (every case but a trace left unreadable); the lost host named; no root cause.
report_printed() {
	grep -Eq '^  pid [0-9]+ +proxyscope +on host0$' "$tmp/out" &&
		grep -q "^lost: host1's trace " "$tmp/out" &&
		grep -q '^watchdog: ' "$tmp/out" && ! grep -q 'root cause: ' "$tmp/out"
}

for what in relayd sessiond consumerd; do
	trace=$tmp/$what
	# long enough that the job is still running once a daemon is killed: at least 12 s on any
	# machine (each exec's device sleeps 3 ms), yet little work - 20,000 execs without the sleep
	# took over 600 s for the three cases beside stress-ng --cpu 4 and other tests; and a
	# consumer timeout no load on a shared machine reaches
	"$bin" run --hosts 2 --procs 2 --backend ofi --provider tcp --ops 4000 --compute 3ms \
		--timeout 30s \
		-o "$trace" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	note_namespaces $pid &
	noter=$!
	if ! wait_for 120 flowing "$trace"; then
		echo "FAIL: $what: no event reached the trace in 120 s"
		failed=$((failed + 1))
	fi
	# the sessions flush their metadata each second: mid-run, not only at their stop
	check "$what: both hosts' metadata reach the relay daemon mid-run" \
		wait_for 30 described "$trace"
	v=
	wait_for 30 sh -c "[ -n \"\$(cat /proc/$pid/task/*/children 2>/dev/null)\" ]"
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		v=$(victim $pid $what | head -1)
		[ -n "$v" ] && break
		sleep 0.5
	done
	if [ -n "$v" ] && kill -0 $pid 2>/dev/null; then
		kill -KILL "$v"
		echo "$what: killed pid $v mid-run"
	else
		echo "FAIL: $what: no daemon to kill (pid '$v') or the run ended first"
		failed=$((failed + 1))
	fi
	wait $pid
	rc=$?
	wait $noter
	check "$what: exit 3 (the verdict cannot be complete), got $rc" [ $rc -eq 3 ]
	check "$what: the job's own result is printed" \
		sh -c "grep -q '^execs: *16000 / 16000 completed' '$tmp/out' &&
			grep -q '^result: *ok' '$tmp/out'"
	check "$what: the death is said when it happens" death_said $what "$v"
	check "$what: the lost host is named in the summary" lost_lines $what
	check "$what: the readable hosts' report, the lost host named, nobody blamed" report_printed
	check "$what: nothing of the hosts is left" wait_for 20 nothing_left
	status=0
	"$bin" watchdog "$trace" >"$tmp/out" 2>"$tmp/err" || status=$?
	check "$what: watchdog on the tree: exit 3, host1 named, no root cause (exit $status)" \
		sh -c "[ $status -eq 3 ] && grep -q \"^lost: host1's trace \" '$tmp/out' &&
			! grep -q 'root cause: ' '$tmp/out'"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
