#!/bin/sh
# SPDX-License-Identifier: MIT
# `proxyscope run --hosts H`, recorded: 2 hosts x 2 processes x 2 ranks, each host's session
# streaming to the relay daemon on the collector. The relay daemon's tree holds one trace per
# host (under its hostname), the merged report covers every rank and names each process's host;
# a device stall on a rank of the second host is the root cause, named with its host, by the
# run and by `proxyscope watchdog` on the tree; with host1's clock moved 5 ms in a copy, the
# offset is found within the bound stated and the root cause stays; nothing of the hosts is left (their namespaces
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

# Clocks: host1's clock moved 5 ms ahead in a copy of the stalled trace's metadata. The
# estimate from the messages between the hosts finds it within the bound it states, the
# events are ordered on the corrected clock (the root cause's duration and the exported
# intervals as recorded, within that bound), and the root cause (rank, exec, cause, host) is
# the one of the trace as recorded, where the hosts' clocks agree.
shift_ns=5000000
cp -r "$tmp/stall" "$tmp/skew"
for m in $(find "$tmp/skew/host1" -name metadata); do
	python3 "$dir/ctf_clock_shift.py" "$m" $shift_ns
done
"$bin" watchdog --json "$tmp/stall" >"$tmp/stall.json" 2>"$tmp/err"
"$bin" watchdog --json "$tmp/skew" >"$tmp/skew.json" 2>>"$tmp/err"
"$bin" watchdog "$tmp/skew" >"$tmp/out" 2>>"$tmp/err"
clocks() { # JSON FILE, python condition on host1's entry h, the document d and the shift s
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
h = [x for x in d["clocks"]["hosts"] if x["host"] == "host1"][0]
s = int(sys.argv[3])
sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$@" $shift_ns
}
roots() { # JSON FILE: the root causes, one "rank exec cause host" a line
	python3 -c '
import json, sys
for x in json.load(open(sys.argv[1]))["watchdog"]["stalls"]:
    if x["root_cause"]:
        print(x["rank"], x["exec_id"], x["cause"], x["host"])' "$1"
}
check "clocks: one host's trace alone has no clocks section" sh -c "
	'$bin' watchdog '$tmp/stall/host0' | grep -q '^clocks' && exit 1
	'$bin' watchdog --json '$tmp/stall/host0' | python3 -c '
import json, sys
sys.exit(1 if \"clocks\" in json.load(sys.stdin) else 0)'"
check "clocks as recorded: host1 agrees with host0, nothing corrected" \
	clocks "$tmp/stall.json" 'd["clocks"]["reference"] == "host0" and h["state"] == "agrees"
		and not d["clocks"]["corrected"] and h["pairs"] > 0'
# The correction must be one the evidence demands (its allowed range excludes 0) and hold the
# truth within its stated bound; how tight the bound is follows the load (beside stress-ng --cpu 4
# and other tests: +8.070 ms ± 3.577 ms, allowed [+4.492, +11.647] ms - right, if loose).
check "clocks shifted 5 ms: host1 corrected, |estimate - shift| <= the bound stated" \
	clocks "$tmp/skew.json" 'h["state"] == "corrected" and h["applied"] and
		d["clocks"]["corrected"] and 0 < h["bound_ns"] and
		(h["allowed_min_ns"] > 0 or h["allowed_max_ns"] < 0) and
		abs(h["offset_ns"] - s) <= h["bound_ns"] and
		h["allowed_min_ns"] <= s <= h["allowed_max_ns"]'
# (the estimate within its stated bound of the 5 ms shift, as the JSON check above; the value
# alone was +6.055 ms ± 1.206 ms once beside stress-ng, which is right)
check "clocks shifted: the text report says host1 was corrected" python3 -c '
import re, sys
m = re.search(r"^  host1 +\+([0-9.]+) ms . ([0-9.]+) ms: .*corrected$", open(sys.argv[1], encoding="utf-8").read(), re.M)
assert m and abs(float(m.group(1)) - 5) <= float(m.group(2)), m and m.group(0)
' "$tmp/out"
roots "$tmp/stall.json" >"$tmp/roots-stall"
roots "$tmp/skew.json" >"$tmp/roots-skew"
check "clocks shifted: the root cause's duration as recorded, within the bound" python3 -c '
import json, sys
def root(f):
    d = json.load(open(f))
    return d, [x for x in d["watchdog"]["stalls"] if x["root_cause"]][0]
_, a = root(sys.argv[1])
d, b = root(sys.argv[2])
h = [x for x in d["clocks"]["hosts"] if x["host"] == "host1"][0]
sys.exit(0 if abs(a["duration_ns"] - b["duration_ns"]) <= h["bound_ns"] else 1)' \
	"$tmp/stall.json" "$tmp/skew.json"
"$bin" export --format csv -o "$tmp/stall.csv" "$tmp/stall" >/dev/null 2>>"$tmp/err"
"$bin" export --format csv -o "$tmp/skew.csv" "$tmp/skew" >/dev/null 2>>"$tmp/err"
check "clocks shifted: export writes host1's intervals at their recorded times, within the bound" \
	python3 -c '
import csv, json, sys
def begins(f):
    return {(r["host"], r["vpid"], r["task_id"], r["state"]): int(r["begin_abs_ns"])
            for r in csv.DictReader(open(f))}
a, b = begins(sys.argv[1]), begins(sys.argv[2])
h = [x for x in json.load(open(sys.argv[3]))["clocks"]["hosts"] if x["host"] == "host1"][0]
d = [b[k] - a[k] for k in a if k[0] == "host1"]
sys.exit(0 if d and len(a) == len(b) and max(map(abs, d)) <= h["bound_ns"] else 1)' \
	"$tmp/stall.csv" "$tmp/skew.csv" "$tmp/skew.json"
check "clocks shifted: the same root cause as recorded" \
	sh -c "[ -s '$tmp/roots-stall' ] && grep -q '^5 10 device_no_trigger host1$' '$tmp/roots-stall' &&
		cmp -s '$tmp/roots-stall' '$tmp/roots-skew'"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
