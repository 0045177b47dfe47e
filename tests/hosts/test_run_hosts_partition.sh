#!/bin/sh
# SPDX-License-Identifier: MIT
# `proxyscope run --hosts 3 --watch --json` with host1 partitioned at exec 6 (its link taken
# down, so its session daemon's stream to the relay daemon stops too): while host1 is cut off,
# the watch names it live - a host_unreachable root found from its silent stream, with how long
# it has been silent and the waiting ranks of the other hosts leading to it - within the
# threshold (1 s) plus 2 s of the partition fault the trace recorded, plus the machine's own
# stall measured meanwhile (partition_watch.py); no live finding names a rank of host0 or host2
# as a root; every watch line validates against docs/schema/watch.schema.json; and nothing of
# the hosts is left (namespaces, daemons, processes, runtime directory). Needs root.
set -u
bin=$1
dir=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$dir/../.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "test_run_hosts_partition: needs root; skipped"; exit 77; }
command -v lttng-relayd >/dev/null || { echo "test_run_hosts_partition: no lttng-relayd; skipped"; exit 77; }
. "$dir/leftovers.sh"
unset ENC_TRACE # only the processes on the hosts load the probes, each host has its own daemon
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
threshold=1

# run_stamped ARGS...: run_noted, with stderr (the watch's JSON Lines) stamped as it arrives
mkfifo "$tmp/fifo"
python3 "$dir/partition_watch.py" stamp "$tmp/stamped" "$tmp/stall" <"$tmp/fifo" &
stamper=$!
"$bin" run --hosts 3 --procs 3 --ranks 6 --ranks-per-proxy 1 --backend ofi --provider tcp \
	--ops 12 --bytes 16k --timeout 10s --watch --watch-threshold ${threshold}s --json \
	--inject partition:host=1,exec=6 -o "$tmp/trace" >"$tmp/out" 2>"$tmp/fifo" &
pid=$!
note_namespaces $pid
wait $pid
rc=$?
wait $stamper
cut -f2- "$tmp/stamped" >"$tmp/err"

# the fault's own time on the trace clock, as host1 recorded it
fault=$(babeltrace2 --clock-seconds --names=none "$tmp/trace/host1" 2>/dev/null |
	sed -n 's/^\[\([0-9]*\)\.\([0-9]*\)\] .* encdev:fault: .*"PARTITION".*/\1\2/p' | head -n 1)
check "the run: exit 1, the partition fault in host1's trace" \
	sh -c "[ $rc -eq 1 ] && [ -n '$fault' ]"
check "live: host1 named silent within ${threshold} s + 2 s of the partition, the waiting ranks
	leading to it, no rank of another host a root" \
	python3 "$dir/partition_watch.py" check "$tmp/stamped" "${fault:-0}" $threshold \
		"$(cat "$tmp/stall" 2>/dev/null || echo 0)" host1
grep '^{' "$tmp/err" >"$tmp/watch.jsonl"
check "every watch line validates against watch.schema.json" \
	python3 "$src/tests/schema/validate.py" --schemas "$src/docs/schema" watch "$tmp/watch.jsonl"
check "the report at the end: host1 unreachable, its one root cause" \
	python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))["report"]["watchdog"]
roots = [s for s in w["stalls"] if s["root_cause"]]
assert len(roots) == 1 and roots[0]["cause"] == "host_unreachable" and roots[0]["host"] == "host1", roots
' "$tmp/out"
check "nothing left" nothing_left
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
