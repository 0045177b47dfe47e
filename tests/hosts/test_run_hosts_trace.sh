#!/bin/sh
# `proxyscope run --hosts H`, recorded: 2 hosts x 2 processes x 2 ranks, each host's session
# streaming to the relay daemon on the collector. The relay daemon's tree holds one trace per
# host (under its hostname), the merged report covers every rank and names each process's host;
# a device stall on a rank of the second host is the root cause, named with its host, by the
# run and by `proxyscope watchdog` on the tree; nothing of the hosts is left (their namespaces
# held by no process and no descriptor: the session daemons, the relay daemon, mpirun and the
# processes gone with them; the runtime directory removed). Needs root.
set -u
bin=$1
dir=$(dirname "$0")
[ "$(id -u)" -eq 0 ] || { echo "test_run_hosts_trace: needs root; skipped"; exit 77; }
command -v lttng-relayd >/dev/null || { echo "test_run_hosts_trace: no lttng-relayd; skipped"; exit 77; }
. "$dir/leftovers.sh"
# The suite turns the probes off outside the tests that hold the lttng lock (a session of the
# machine's daemon would record them); here only the processes on the simulated hosts load
# them, and they register with their own host's daemon, never the machine's.
unset ENC_TRACE
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { # output-dir args...
	out=$1; shift
	run_noted "$bin" run --hosts 2 --procs 4 --ranks 8 --ranks-per-proxy 1 --backend ofi \
		--provider tcp --ops 20 --bytes 16k -o "$out" "$@"
}
# One trace per host in the relay daemon's tree, under the host's name.
traces_per_host() {
	find "$1" -name metadata -type f | sed "s|^$1/||; s|/.*||" | sort >"$tmp/trace-hosts"
	printf 'host0\nhost1\n' | cmp -s - "$tmp/trace-hosts"
}
# Every rank 0..7 in the merged report's groups, each group naming its process's host.
all_ranks() {
	for r in 0 1 2 3 4 5 6 7; do
		grep -Eq "^  gid $r +pid [0-9]+ +on host[01] .* rank $r " "$tmp/out" || return 1
	done
}

run "$tmp/ok" --timeout 30s
check "recorded: exit 0, every exec" \
	sh -c "[ $rc -eq 0 ] && grep -q '^execs: *160 / 160 completed' '$tmp/out' &&
		grep -q ' 0 mismatches' '$tmp/out'"
check "one trace per host in the relay daemon's tree" traces_per_host "$tmp/ok"
check "the report merges both traces, 4 processes" \
	sh -c "grep -q \"^trace: *2 CTF traces under '$tmp/ok'\" '$tmp/out' &&
		grep -q '^processes: *4$' '$tmp/out' &&
		[ \$(grep -Ec '^  pid [0-9]+ +proxyscope +on host[01]$' '$tmp/out') -eq 4 ]"
check "the report covers every rank, each with its host" all_ranks
check "no stall in the merged trace" grep -q '^watchdog: no stall' "$tmp/out"
check "the timelines are written next to the traces" \
	test -s "$tmp/ok/timeline.json" -a -s "$tmp/ok/timeline.html"
check "recorded run: nothing left" nothing_left

run "$tmp/stall" --timeout 3s --inject device-stall:rank=5,exec=10
root="^root cause: rank 5 exec 10 (pid [0-9]* on host1, gid 5): the device of rank 5 never wrote"
check "device stall on host1: exit 1, root cause named with its host" \
	sh -c "[ $rc -eq 1 ] && grep -q '$root' '$tmp/out'"
check "one root cause, every other rank's evidence on its host" \
	sh -c "grep -q '^watchdog: .* 1 root cause$' '$tmp/out' &&
		! grep -E '^  rank [0-9]+ exec' '$tmp/out' | grep -vq ' on host[01], gid '"
"$bin" watchdog "$tmp/stall" >"$tmp/out" 2>"$tmp/err"
check "proxyscope watchdog on the tree: the same root cause" grep -q "$root" "$tmp/out"
check "stalled run: nothing left" nothing_left
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
