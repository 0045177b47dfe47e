#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 22's acceptance across hosts: 4 hosts x 64 ranks (4 processes of 16 ranks a host) over
# tcp;ofi_rxm, each host's session streaming to the relay daemon on the collector, and the
# process holding rank 150 (host2's third) killed as that rank starts exec 3. The run exits 1
# with that kill as its one root cause, named with its host; the 15 other processes leave their
# results; `proxyscope watchdog` on the tree says the same; the default text fits a screen
# (<= 60 lines: the other ranks' stalls grouped under the root); nothing of the hosts is left.
# Needs root, mpirun and lttng-relayd.
#
# Not registered with ctest: it fails today, before the first exec (docs/decisions.md, "what
# grows with the ranks across hosts"): the cross-host table of every rank's name must fit one
# bus record (8 KiB: ~110 ranks; here 36 ranks fail their open with EMSGSIZE), and the open
# warms up every pair of ranks (O(R^2) tcp;ofi_rxm connections, each with its own buffers: 16
# processes grew to ~1 GB each and the setup had not ended after 5 min). Run it by hand:
#   sh tests/hosts/test_run_hosts_scale.sh build/dev/cli/proxyscope
set -u
bin=$1
dir=$(dirname "$0")
[ "$(id -u)" -eq 0 ] || { echo "test_run_hosts_scale: needs root; skipped"; exit 77; }
command -v lttng-relayd >/dev/null || { echo "test_run_hosts_scale: no lttng-relayd; skipped"; exit 77; }
command -v mpirun >/dev/null || { echo "test_run_hosts_scale: no mpirun; skipped"; exit 77; }
. "$dir/leftovers.sh"
unset ENC_TRACE # only the processes on the hosts load the probes, each host has its own daemon
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 16 ranks a process, 16 processes: ranks 144-159 are host2's third process. The consumers'
# timeout is long enough for a loaded machine's connection warm-up (the first exec).
run_noted "$bin" run --hosts 4 --procs 16 --ranks 256 --ranks-per-proxy 16 --backend ofi \
	--provider tcp --ops 6 --bytes 4k --timeout 20s -o "$tmp/kill" \
	--inject kill:rank=150,exec=3
root='^root cause: rank 150 (pid [0-9]* on host2, gid [0-9]*): the process of ranks [^)]* (pid [0-9]*) died as rank 150 started exec 3 (an injected kill fault)'
only_root() {
	[ "$(grep -c '^root cause: ' "$tmp/out")" -eq 1 ] && grep -q "$1" "$tmp/out"
}
check "4 x 64 ranks, a process of host2 killed: exit 1, the one root cause named with its host" \
	sh -c "[ $rc -eq 1 ]" && check "  (the root cause line)" only_root "$root"
check "the others left their results, it did not" \
	sh -c "grep -q '^process 10 (host2): left no result' '$tmp/out' &&
		[ \$(grep -c 'left no result' '$tmp/out') -eq 1 ]"
check "the default text fits a screen (<= 60 lines)" sh -c "[ \$(wc -l <'$tmp/out') -le 60 ]"
check "nothing left" nothing_left
"$bin" watchdog "$tmp/kill" >"$tmp/out" 2>"$tmp/err"
check "proxyscope watchdog on the tree: the same root cause" only_root "$root"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
