#!/bin/sh
# SPDX-License-Identifier: MIT
# Jobs across hosts: mpirun (a PMIx launcher) starts xhost_job on 2 and 3 simulated hosts, 2
# processes per host and 2 ranks per process; the processes meet through PMIx and their host's
# bus, exchange over tcp;ofi_rxm in a ring and all-to-all, and verify every byte. Each process
# must report from its own host, and after each job nothing of the hosts is left. Needs root.
set -u
bin=$1
job=$2
[ "$(id -u)" -eq 0 ] || { echo "test_xhost: needs root; skipped"; exit 77; }
. "$(dirname "$0")/leftovers.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

one() { # hosts pattern
	h=$1 pattern=$2 np=$(($1 * 2)) ranks=$(($1 * 4))
	"$bin" hosts --hosts "$h" --no-sessiond --json -- sh -c "mpirun --allow-run-as-root \
		--hostfile \"\$PROXYSCOPE_HOSTFILE\" --mca plm_rsh_agent \"\$PROXYSCOPE_AGENT\" \
		-np $np --map-by ppr:2:node '$job' $ranks $pattern tcp" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	inodes_of "$tmp/out" "$tmp/inos"
	why=""
	[ $rc -eq 0 ] || why="exit $rc"
	[ "$(grep -c '^xhost_job: .* mismatches=0 ok$' "$tmp/out")" -eq "$np" ] ||
		why="$why; not every process verified its bytes"
	for i in $(seq 0 $((h - 1))); do
		[ "$(grep -c "^xhost_job: host=host$i " "$tmp/out")" -eq 2 ] ||
			why="$why; host$i did not run 2 processes"
	done
	[ "$(grep -c "ranks on 'tcp;ofi_rxm'" "$tmp/err")" -eq "$np" ] ||
		why="$why; not every process is on tcp;ofi_rxm"
	[ "$(leftovers "$tmp/inos")" -eq 0 ] || why="$why; something is left in the namespaces"
	if [ -z "$why" ]; then
		echo "ok: $h hosts, $pattern"
		passed=$((passed + 1))
	else
		echo "FAIL: $h hosts, $pattern: $why"
		cat "$tmp/out" "$tmp/err"
		failed=$((failed + 1))
	fi
}

one 2 ring
one 2 alltoall
one 3 ring
one 3 alltoall
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
