#!/bin/sh
# SPDX-License-Identifier: MIT
# `proxyscope run --hosts 2 --procs 4 --watch` and `--snapshot`: 2 hosts x 2 processes x 2 ranks,
# each host's session on the collector's relay daemon.
#  - watched: the hosts' live sessions are followed at once through the relay daemon; a device
#    stall on rank 5 (a process of host1) is named live with its host, rank, exec and cause
#    while it lasts (before the driver's watchdog, 10 s later, ends the job), every watch line
#    that names a process names its host, and the merged report at the end agrees;
#  - flight recorder: overwrite-mode sessions whose snapshots go to the relay daemon (the
#    driver's watchdog on each host, and every host's at the end); the report reads the last
#    of each host and names the same root cause;
#  - attached (`proxyscope hosts` running watch_attach_job.sh on the collector: a live session
#    per host, a device stall on host1), `watch --list` shows both hosts' sessions and
#    `watch URL URL` follows them at once, naming the stall with its host while it lasts;
#  - in both live cases the stall is named within the threshold + 1 s, plus the longest time a
#    host's stream sent nothing at once (the watch's summary says it; a finding never runs ahead
#    of what the streams vouch for);
#  - --watch with --snapshot is a usage error (a session has one mode);
# and nothing of the hosts is left after each run (namespaces, links, mounts, daemons). Needs root.
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") # absolute: the hosts' commands start in /
dir=$(dirname "$0")
[ "$(id -u)" -eq 0 ] || { echo "test_run_hosts_watch: needs root; skipped"; exit 77; }
command -v lttng-relayd >/dev/null || { echo "test_run_hosts_watch: no lttng-relayd; skipped"; exit 77; }
. "$dir/leftovers.sh"
unset ENC_TRACE # only the processes on the hosts load the probes (see test_run_hosts_trace.sh)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

root="root cause: rank 5 exec 10 (pid [0-9]* on host1, gid 5): the device of rank 5 never wrote"

run "$tmp/watch" --timeout 10s --inject device-stall:rank=5,exec=10 --watch --watch-threshold 500ms
grep '^\[+' "$tmp/out" >"$tmp/live"
# live_before_end FILE: the first finding in FILE came while the stall lasted (its own
# evidence says how long it had lasted when named; the job's timeout is 10 s)
live_before_end() {
	w=$(sed -n 's/.*finding: .*(waited \([0-9.]*\) s).*/\1/p' "$1" | head -n 1)
	echo "first finding in $(basename "$1"): $(grep -m 1 '^\[+.*finding: ' "$1" | cut -c1-14) after" \
		"the watch began, the stall named after ${w:-?} s"
	[ -n "$w" ] && awk -v w="$w" 'BEGIN { exit !(w >= 0.5 && w < 10) }'
}
# in_time FILE ERR: the first finding in FILE named the stall within the threshold (0.5 s) plus
# 1 s, plus the longest time a stream sent nothing, as the watch's summary in ERR says (a
# finding is never made ahead of what the streams vouch for; at load 20-37 both hosts'
# consumer daemon timer threads went 3-10 s runnable and not run, and nothing came meanwhile)
in_time() {
	w=$(sed -n 's/.*finding: .*(waited \([0-9.]*\) s).*/\1/p' "$1" | head -n 1)
	u=$(sed -n 's/.*a stream sent nothing for up to \([0-9.]*\) s at once.*/\1/p' "$2" | tail -n 1)
	echo "the stall named after ${w:-?} s; a stream sent nothing for up to ${u:-0} s at once"
	[ -n "$w" ] && awk -v w="$w" -v u="${u:-0}" 'BEGIN { exit !(w <= 0.5 + 1 + u) }'
}
check "watched: exit 1, the stall named live with host1, rank 5, exec 10 and its cause" \
	sh -c "[ $rc -eq 1 ] && grep -q '^\[+[0-9.]* s\] finding: $root' '$tmp/live'"
check "watched: named while it lasted, before the job ended" live_before_end "$tmp/live"
check "watched: named within the threshold + 1 s, plus what a stream withheld" \
	in_time "$tmp/live" "$tmp/err"
check "watched: every live line names its host" \
	sh -c "[ -s '$tmp/live' ] && ! grep -v ' on host[01]' '$tmp/live'"
check "watched: the report at the end agrees" \
	sh -c "grep -q '^$root' '$tmp/out' && grep -q '^watchdog: .* 1 root cause$' '$tmp/out' &&
		grep -q '^watch: [0-9]* events, [0-9]* lost, [1-9][0-9]* finding' '$tmp/err'"
check "watched: one trace per host in the relay daemon's tree" traces_per_host "$tmp/watch"
check "watched run: nothing left" nothing_left

run "$tmp/snap" --timeout 3s --inject device-stall:rank=5,exec=10 --snapshot --buffer-size 1MiB
check "snapshots: exit 1, the root cause named with its host" \
	sh -c "[ $rc -eq 1 ] && grep -q '^$root' '$tmp/out' &&
		grep -q '^snapshot: .* and 1 more (the flight recorder.s last of each host)' '$tmp/out'"
check "snapshots: at the relay daemon, the watchdog's and the last of each host" \
	sh -c "[ \$(find '$tmp/snap/host0' '$tmp/snap/host1' -mindepth 2 -maxdepth 2 -name 'snapshot-*' |
		wc -l) -ge 4 ]"
check "snapshot run: nothing left" nothing_left

# attached: a relay daemon holds one viewer per session, so this is a job of its own - a live
# session on each host, a device stall in a run on host1, `watch URL URL` from the collector
mkdir "$tmp/attach"
"$bin" hosts --hosts 2 -- sh "$dir/watch_attach_job.sh" "$bin" "$tmp/attach" >"$tmp/out" 2>"$tmp/err"
cat "$tmp/attach/list" "$tmp/attach/watch.out" "$tmp/attach/watch.err" "$tmp/attach/host0.run" \
	"$tmp/attach/host1.run" >>"$tmp/out" 2>/dev/null
check "attached: --list shows the session of each host" \
	sh -c "grep -q '/host/host0/w-host0 ' '$tmp/attach/list' &&
		grep -q '/host/host1/w-host1 ' '$tmp/attach/list'"
check "attached to both hosts' sessions: the stall named with host1, every line with its host" \
	sh -c "[ \$(cat '$tmp/attach/watch.rc') -eq 1 ] &&
		grep -q '^\[+[0-9.]* s\] finding: root cause: rank 1 exec 250 (pid [0-9]* on host1, ' \
			'$tmp/attach/watch.out' &&
		! grep '^\[+' '$tmp/attach/watch.out' | grep -v ' on host[01]'"
check "attached: named while it lasted" live_before_end "$tmp/attach/watch.out"
check "attached: named within the threshold + 1 s, plus what a stream withheld" \
	in_time "$tmp/attach/watch.out" "$tmp/attach/watch.err"

"$bin" run --hosts 2 --procs 4 --backend ofi --provider tcp --watch --snapshot >"$tmp/out" 2>"$tmp/err"
check "--watch with --snapshot: a usage error" \
	sh -c "[ $? -eq 2 ] && grep -q '^error: --watch and --snapshot' '$tmp/err'"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
