#!/bin/sh
# SPDX-License-Identifier: MIT
# The progress records (encproxy:task_progress, issue 24, point 1) on real runs of the driver:
# a long healthy transfer - one exec of 1 GiB per rank over the loop backend, whose
# PROGRESSING state lasts longer than the watch's 300 ms threshold - is not reported stuck at
# the default level: `run --watch` notes it slow_transfer (class slow), because its records show
# it moving. With the records off (ENC_PROXY_PROGRESS_MS=0) the same run's PROGRESSING state is
# a hang (waiting_on_peer): the test has teeth. The trace holds at most one record per task per
# 100 ms (each covering at least that), and none with the records off.
#
# The size only has to make the state outlast the threshold: 256 MiB moved in ~1.3 s on a quiet
# machine here (16 KiB per B2 round), in tens of seconds beside other engineers' builds, and its
# PROGRESSING state lasted only 302 ms on a quiet machine once the simulator polled less (so
# 1 GiB, 4 GiB of buffers for the two ranks); a
# run in which no state outlasted the threshold proves nothing, and says so. Whether one did is
# read from the trace (stats: the longest PROGRESSING), not from the findings: on a quiet
# machine the moving transfer was noted nothing at all, which is "not stuck" too.
#
#   sh test_progress_records.sh path/to/proxyscope
bin=${1:?usage: test_progress_records.sh PROXYSCOPE}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli_harness.sh"
need_lttng

# watch_run MS DIR: the run with ENC_PROXY_PROGRESS_MS=MS, its watch's JSON Lines in DIR.jsonl
watch_run() {
	ENC_PROXY_PROGRESS_MS=$1 run 0 run -q --ranks 2 --ops 1 --bytes 1G --timeout 240s \
		--watch --watch-threshold 300ms --json -o "$2" && cp "$err" "$2.jsonl"
}

# The longest PROGRESSING state in trace DIR, in ns.
longest() {
	"$bin" stats --json "$1" 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["stats"]["overall"]["state_progressing"]["max_ns"] or 0)'
}

# The findings of NETWORK tasks in PROGRESSING, as "class cause" lines.
findings() {
	python3 - "$1" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    line = line.strip()
    if not line.startswith("{"):
        continue
    n = json.loads(line)
    if n.get("event") == "finding" and n.get("kind") == "NETWORK" and n.get("state") == "PROGRESSING":
        print(n["class"], n["cause"])
PY
}

# The records in trace DIR, checked against the rate limit; prints how many.
records() {
	babeltrace2 --clock-seconds "$1" 2>/dev/null | python3 -c '
import re, sys
last, n = {}, 0  # task -> (its first record'"'"'s stamp, its last, how many)
for line in sys.stdin:
    if "encproxy:task_progress:" not in line:
        continue
    ts = float(re.match(r"\[([0-9.]+)\]", line).group(1))
    task = int(re.search(r"task_id = ([0-9]+)", line).group(1))
    interval = int(re.search(r"interval_ns = ([0-9]+)", line).group(1))
    # the rate limit is on the clock the driver reads: each record covers 100 ms at least
    assert interval >= 100000000, ("a record covering less than 100 ms", line)
    first, _, k = last.get(task, (ts, ts, 0))
    last[task] = (first, ts, k + 1)
    n += 1
# LTTng stamps a record after the driver read its clock, a few microseconds later - or tens of
# ms when the worker is preempted between the two (on the fresh machine, running the suite, two
# stamps came 34 ms apart for records of 103 ms each): a late stamp shortens one gap and
# lengthens the next, so it is the count over the task'"'"'s span that the limit bounds, with one
# record of slack for a late stamp at either end.
for task, (first, end, k) in last.items():
    assert k - 1 <= (end - first) / 0.1 + 1, ("more records than 100 ms periods", task, k,
                                              end - first)
print(n)
'
}

if watch_run 100 "$tmp/on"; then
	f=$(findings "$tmp/on.jsonl")
	l=$(longest "$tmp/on")
	echo "records on: longest PROGRESSING ${l:-?} ns; findings: $(echo "$f" | sort | uniq -c | tr '\n' ';')"
	[ "${l:-0}" -gt 300000000 ] || fail "records on: no PROGRESSING state outlasted the 300 ms threshold"
	echo "$f" | grep -v '^slow slow_transfer$' | grep -q . &&
		fail "records on: a long healthy transfer was reported other than slow: $f"
	n=$(records "$tmp/on") || fail "records on: the trace breaks the rate limit"
	echo "records on: $n records in the trace"
	[ "${n:-0}" -gt 0 ] || fail "records on: no progress record in the trace"
fi

if watch_run 0 "$tmp/off"; then
	f=$(findings "$tmp/off.jsonl")
	echo "records off: $(echo "$f" | sort | uniq -c | tr '\n' ';')"
	[ -n "$f" ] || fail "records off: no PROGRESSING state outlasted the 300 ms threshold"
	echo "$f" | grep -q '^hang ' ||
		fail "records off: the long transfer was not reported stuck: $f"
	n=$(records "$tmp/off")
	[ "$n" = 0 ] || fail "records off: $n progress records in the trace"
fi

harness_finish "progress records"
