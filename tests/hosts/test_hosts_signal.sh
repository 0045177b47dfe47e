#!/bin/sh
# SPDX-License-Identifier: MIT
# `proxyscope hosts` ended by Ctrl-C (SIGINT: its own teardown), by SIGKILL (the keeper's
# sweep), and by SIGKILL to it and every descendant found by parent pid, as ctest does on a
# test's timeout (the keeper is no descendant): in every case no process is left in the hosts' namespaces, no descriptor holds one,
# and the runtime directory is gone. Needs root.
set -u
bin=$1
[ "$(id -u)" -eq 0 ] || { echo "test_hosts_signal: needs root; skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

. "$(dirname "$0")/leftovers.sh"

# kill_tree PID: SIGKILL to PID and, first, to its descendants (by parent pid).
kill_tree() {
	for c in $(ps -o pid= --ppid "$1"); do kill_tree "$c"; done
	kill -KILL "$1" 2>/dev/null
}

one() { # signal | TREE
	sig=$1
	"$bin" hosts --hosts 2 --json -- sleep 60 >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	for _ in $(seq 100); do grep -q switch_netns_inode "$tmp/out" && break; sleep 0.1; done
	grep -q switch_netns_inode "$tmp/out" || fail "$sig: the hosts did not come up: $(cat "$tmp/err")"
	inodes_of "$tmp/out" "$tmp/inos"
	[ "$(wc -l <"$tmp/inos")" -eq 4 ] || fail "$sig: expected 4 namespaces: $(cat "$tmp/out")"
	dir=$(sed -n 's/.*"runtime_dir": "\(.*\)".*/\1/p' "$tmp/out")
	[ -d "$dir" ] || fail "$sig: no runtime directory '$dir'"
	[ "$(leftovers "$tmp/inos")" -gt 0 ] || fail "$sig: nothing runs in the hosts"
	if [ "$sig" = TREE ]; then kill_tree $pid; else kill -s "$sig" $pid; fi
	wait $pid
	# The keeper sweeps after the CLI is gone: give it its grace period.
	for _ in $(seq 100); do [ "$(leftovers "$tmp/inos")" -eq 0 ] && break; sleep 0.1; done
	[ "$(leftovers "$tmp/inos")" -eq 0 ] || fail "$sig: processes or descriptors left in the hosts' namespaces"
	for _ in $(seq 50); do [ ! -e "$dir" ] && break; sleep 0.1; done
	[ ! -e "$dir" ] || fail "$sig: $dir left behind"
	echo "ok: $sig"
}

one INT
one KILL
one TREE
echo "3 passed, 0 failed"
