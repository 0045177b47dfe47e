#!/bin/sh
# SPDX-License-Identifier: MIT
# Slowness across hosts, recorded (issue 24): 3 hosts x 1 process x 2 ranks, all-to-all over
# tcp;ofi_rxm, each host's session streaming to the relay daemon on the collector.
#
# - healthy: `proxyscope stragglers --json` names no slow link;
# - slow-link:host=0,peer=1,exec=10,kbit=K: the matrix shows host0 -> host1 and host1 -> host0
#   slow and the four other links not, and the pair is named once as a slow link (in the JSON's
#   slow_links and the text), with the fault both hosts recorded (exec 10, K kbit/s): the link,
#   not a rank;
# - a link down before the first post (partition:host=1,exec=0, a 3 s timeout): the root is
#   host1 unreachable, and no task is called slow_progress, whatever the time its posts took;
# - broken connections before the first post (net-break:host=1,exec=0: host1's TCP connections
#   reset, the link up - the transport says "Transport endpoint is not connected", as in the
#   loaded run of the issue): the roots are the tasks that failed on it, named a broken
#   connection with the fault recorded, and no task is slow_progress;
# - nothing of the hosts is left after each run.
#
# Time on a busy machine: the healthy run measures the machine's own noise, the largest median
# time in flight of its links (0.1-0.4 ms at load 22); a message of the run (16 KiB) takes 20 ms
# at the limit, or 10 times that noise if that is more, so that the slow link stands out of it
# (K = 16 KiB / that time). Needs root.
set -u
bin=$1
dir=$(dirname "$0")
[ "$(id -u)" -eq 0 ] || { echo "test_run_hosts_slow: needs root; skipped"; exit 77; }
command -v lttng-relayd >/dev/null || { echo "test_run_hosts_slow: no lttng-relayd; skipped"; exit 77; }
command -v tc >/dev/null || { echo "test_run_hosts_slow: no tc (iproute2); skipped"; exit 77; }
. "$dir/leftovers.sh"
unset ENC_TRACE # only the processes on the hosts load the probes, each host has its own daemon
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { # output-dir args...
	out=$1; shift
	run_noted "$bin" run --hosts 3 --procs 3 --ranks 6 --ranks-per-proxy 1 --backend ofi \
		--provider tcp --pattern alltoall --ops 30 --bytes 16k -o "$out" "$@"
}
stragglers() { # trace-dir: its stragglers, text in $tmp/text, JSON in $tmp/json
	"$bin" stragglers "$1" >"$tmp/text" 2>"$tmp/err" &&
		"$bin" stragglers --json "$1" >"$tmp/json" 2>>"$tmp/err"
}

run "$tmp/ok" --timeout 60s
check "healthy: exit 0" test "$rc" -eq 0
check "healthy: nothing left" nothing_left
stragglers "$tmp/ok"
check "healthy: no slow link" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["slow_links"] == [] and not [l for l in j["links"] if l["slow"]], j["links"]
noise = max(l["transit_median_ns"] for l in j["links"]) / 1e6
ms = max(20.0, 10 * noise)
open(sys.argv[2], "w").write("%d" % (16384 * 8 / ms))
print("links: largest median in flight %.3f ms; a message at the limit: %.1f ms" % (noise, ms))
' "$tmp/json" "$tmp/kbit"
kbit=$(cat "$tmp/kbit" 2>/dev/null || echo 6553)

run "$tmp/slow" --timeout 60s --inject "slow-link:host=0,peer=1,exec=10,kbit=$kbit"
check "slow link at $kbit kbit/s: exit 0, the fault said by both ends" \
	sh -c "[ $rc -eq 0 ] && [ \$(grep -c 'limiting host [01].s traffic to $kbit kbit/s' '$tmp/err') -eq 2 ]"
check "slow link: nothing left" nothing_left
stragglers "$tmp/slow"
check "slow link: the matrix shows host0 <-> host1 slow, the other links not" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
slow = sorted((l["from"], l["to"]) for l in j["links"] if l["slow"])
assert len(j["links"]) == 6 and slow == [("host0", "host1"), ("host1", "host0")], j["links"]
for l in j["links"]:
    print("  %s -> %s: median in flight %.3f ms" % (l["from"], l["to"], l["transit_median_ns"] / 1e6))
' "$tmp/json"
check "slow link: named once, the link and not a rank, with the fault its hosts recorded" \
	python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
s = j["slow_links"]
assert len(s) == 1 and s[0]["hosts"] == ["host0", "host1"], s
assert s[0]["injected"] == {"exec_id": 10, "kbit": int(sys.argv[2])}, s
' "$tmp/json" "$kbit"
check "slow link: the text names it" grep -q \
	"^slow link: host0 <-> host1: .* wait on the link, not on a rank (an injected slow-link fault: $kbit kbit/s from exec 10)" \
	"$tmp/text"

run "$tmp/cut" --timeout 3s --inject partition:host=1,exec=0
check "broken link before the first post: exit 1" test "$rc" -eq 1
check "broken link: nothing left" nothing_left
"$bin" watchdog --json "$tmp/cut" >"$tmp/out" 2>"$tmp/err"
check "broken link: host1 unreachable is the one root, no task is slow_progress" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["watchdog"]["stalls"]
assert not [x for x in s if x["cause"] == "slow_progress"], s
roots = [x for x in s if x["root_cause"]]
assert len(roots) == 1 and roots[0]["cause"] == "host_unreachable" and roots[0]["host"] == "host1", roots
' "$tmp/out"
run "$tmp/break" --timeout 3s --inject net-break:host=1,exec=0
check "broken connections before the first post: exit 1" test "$rc" -eq 1
check "broken connections: nothing left" nothing_left
"$bin" watchdog --json "$tmp/break" >"$tmp/out" 2>"$tmp/err"
check "broken connections: the roots are the broken connection, no task is slow_progress" \
	python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["watchdog"]["stalls"]
assert not [x for x in s if x["cause"] == "slow_progress"], s
roots = [x for x in s if x["root_cause"]]
assert roots and all(x["cause"] == "task_error" and "the connection broke (an injected "
                     "net-break fault" in x["detail"] for x in roots), roots
' "$tmp/out"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
