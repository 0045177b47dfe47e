#!/bin/sh
# SPDX-License-Identifier: MIT
# `proxyscope run --hosts H`: 2 and 3 hosts x 2 processes x 2 ranks over tcp;ofi_rxm, every
# exec completed and every byte verified, each host running its processes; a large run's
# warnings digested across its processes; the usage errors of the combination; nothing of the
# hosts left afterwards. Needs root.
set -u
bin=$1
[ "$(id -u)" -eq 0 ] || { echo "test_run_hosts: needs root; skipped"; exit 77; }
. "$(dirname "$0")/leftovers.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run_ok() { # hosts pattern
	h=$1
	run_noted "$bin" run --hosts "$h" --procs $((h * 2)) --ranks $((h * 4)) \
		--ranks-per-proxy 1 --backend ofi --provider tcp --no-trace --ops 20 --bytes 16k \
		--timeout 30s --pattern "$2"
	[ $rc -eq 0 ] && grep -q '^result: *ok$' "$tmp/out" &&
		grep -q "^execs: *$((h * 4 * 20)) / $((h * 4 * 20)) completed" "$tmp/out" &&
		grep -q ' 0 mismatches' "$tmp/out" && grep -q "^hosts: *$h (" "$tmp/out"
}

check "2 hosts, ring" run_ok 2 ring
check "2 hosts, nothing left" nothing_left
check "3 hosts, alltoall" run_ok 3 alltoall
check "3 hosts, nothing left" nothing_left

# A large run (32 groups) with a stall: every rank warns alike, in 4 processes on 2 hosts; the
# parent digests their warnings as one - each shape once, then how many more - where each
# process digesting its own printed the first of each shape once a process.
digested() {
	run_noted "$bin" run --hosts 2 --procs 4 --ranks 64 --ranks-per-proxy 2 --backend ofi \
		--provider tcp --no-trace --ops 4 --timeout 3s --inject device-stall:rank=5,exec=2
	[ $rc -eq 1 ] &&
		[ "$(grep -c 'Waiting on proxy task type 2' "$tmp/err")" -eq 2 ] &&
		grep -q '^proxyscope: warning: and [0-9]* more like ".*Waiting on proxy task type 2' \
			"$tmp/err" &&
		[ "$(grep -c '^proxyscope: warning: ' "$tmp/err")" -le 8 ]
}
check "a large run's warnings digested across its processes" digested
check "digested, nothing left" nothing_left

usage() { # expected-text args...
	want=$1; shift
	"$bin" run "$@" >"$tmp/out" 2>"$tmp/err"
	[ $? -eq 2 ] && grep -q "^error: .*$want" "$tmp/err"
}
check "--hosts needs tcp" usage "needs --backend ofi --provider tcp" --hosts 2 --procs 4 \
	--ranks 8 --no-trace
check "--procs a multiple of --hosts" usage "multiple of the hosts" --hosts 2 --procs 3 \
	--ranks 6 --backend ofi --provider tcp --no-trace
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
