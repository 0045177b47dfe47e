#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The verdict from the tail on a long trace (issue 23's benchmark):
#   bench/report/tail_long.sh PROXYSCOPE [TRACE_DIR] [ROUNDS]
# Without TRACE_DIR, records one first: `proxyscope run` of 4 ranks at INFO for $TAIL_OPS execs
# (default 100000, about 90 s on 2 CPUs) with rank 1's device stalled at the last $TAIL_LAST
# execs' first (default 300: the stall begins in the job's last second; the consumers give up
# after $TAIL_TIMEOUT, default 10s, which a healthy exec on a busy machine never reaches), under
# a session daemon of its own (tests/private_lttng.sh), kept in $TAIL_KEEP if set.
# Then, alternately ROUNDS times (default 3): `babeltrace2 -o dummy` (the floor of a full read),
# `watchdog` (tail first), `watchdog --full`, and `report` (which reads everything); prints their
# wall and CPU medians as BENCH lines with the ratio to babeltrace2's, the bytes each watchdog
# read (its --json input.read), and whether the two watchdog verdicts are the same.
set -eu
P=$1
T=${2:-}
R=${3:-3}
HERE=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$(mktemp -d "${TMPDIR:-/tmp}/tail_long.XXXXXX")
trap 'rm -rf "$OUT"' EXIT INT TERM

if [ -z "$T" ]; then
	ops=${TAIL_OPS:-100000}
	last=${TAIL_LAST:-300}
	T=${TAIL_KEEP:-$OUT/run}
	echo "recording $ops execs into $T" >&2
	sh "$HERE/tests/private_lttng.sh" "$P" run -q --ops "$ops" --timeout "${TAIL_TIMEOUT:-10s}" \
		--inject "device-stall:rank=1,exec=$((ops - last))" -o "$T" >"$OUT/run.txt" 2>&1 ||
		[ $? -eq 1 ] || { cat "$OUT/run.txt" >&2; exit 1; }
fi
# the trace's bytes: its CTF directories (run -o writes its timelines beside them)
ctf_bytes=$(find "$T" -name metadata -exec dirname {} \; | xargs du -scb | tail -1 | cut -f1)
echo "BENCH tail_long_trace bytes=$ctf_bytes load=\"$(cut -d' ' -f1-3 /proc/loadavg)\""

one() { # label command...: one "label wall cpu" line
	l=$1
	shift
	/usr/bin/time -f "$l %e %U %S" -o "$OUT/t" "$@" >"$OUT/$l.out" 2>/dev/null || true
	awk '{ printf "%s %.3f %.3f\n", $1, $2, $3 + $4 }' "$OUT/t"
}

babeltrace2 -o dummy "$T" >/dev/null 2>&1 || true # the page cache
i=0
while [ "$i" -lt "$R" ]; do
	one bt2 babeltrace2 -o dummy "$T"
	one tail "$P" watchdog --json "$T"
	cp "$OUT/tail.out" "$OUT/tail.json"
	one full "$P" watchdog --full --json "$T"
	cp "$OUT/full.out" "$OUT/full.json"
	one report "$P" report "$T"
	i=$((i + 1))
done >"$OUT/runs"

same=$(python3 "$HERE/tests/analysis/tail_compare.py" "$OUT/full.json" "$OUT/tail.json" long \
	>"$OUT/cmp" 2>&1 && echo yes || echo no)
bytes() { python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))["input"]["read"]
print(r["bytes"], r["bytes_total"], r.get("window_ns"), r["reads"])' "$1"; }
set -- $(bytes "$OUT/tail.json")
tb=$1 total=$2 win=$3 reads=$4
set -- $(bytes "$OUT/full.json")
fb=$1
awk -v tb="$tb" -v fb="$fb" -v total="$total" -v win="$win" -v reads="$reads" -v same="$same" '
     { w[$1] = w[$1] " " $2; c[$1] = c[$1] " " $3 }
     function med(s,   a, n, i, j, t) { n = split(s, a, " ");
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return a[int((n + 1) / 2)] }
     END { bw = med(w["bt2"]); bc = med(c["bt2"])
	printf "BENCH tail_long bt2_wall_s=%.3f bt2_cpu_s=%.3f\n", bw, bc
	printf "BENCH tail_long watchdog_tail wall_s=%.3f ratio=%.4f cpu_s=%.3f cpu_ratio=%.4f bytes=%d of=%d window_ns=%s reads=%d same_verdict=%s goal_max=0.02\n",
	       med(w["tail"]), med(w["tail"]) / bw, med(c["tail"]), med(c["tail"]) / bc, tb, total, win, reads, same
	printf "BENCH tail_long watchdog_full wall_s=%.3f ratio=%.3f cpu_s=%.3f cpu_ratio=%.3f bytes=%d\n",
	       med(w["full"]), med(w["full"]) / bw, med(c["full"]), med(c["full"]) / bc, fb
	printf "BENCH tail_long report wall_s=%.3f ratio=%.3f cpu_s=%.3f cpu_ratio=%.3f goal_max=0.5\n",
	       med(w["report"]), med(w["report"]) / bw, med(c["report"]), med(c["report"]) / bc }' "$OUT/runs"
echo "BENCH tail_long_end load=\"$(cut -d' ' -f1-3 /proc/loadavg)\""
[ "$same" = yes ] || cat "$OUT/cmp" >&2
