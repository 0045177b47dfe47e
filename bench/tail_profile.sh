#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The full read against babeltrace2's own (issue 23, point 3), and where its CPU time goes:
#   bench/tail_profile.sh PROXYSCOPE TRACE [ROUNDS]
# times `babeltrace2 -o dummy TRACE` and `PROXYSCOPE report TRACE`, alternately (ROUNDS, 5), and
# prints their wall medians, their ratio and their CPU times; then records one report under
# `perf record` and prints per thread (the reader's lanes, the reader's forwarder, the model)
# the share of each library and of proxyscope's own functions (>= 3 % of the thread).
set -eu
P=$1 T=$2 R=${3:-5}
OUT=$(mktemp -d "${TMPDIR:-/tmp}/tail_profile.XXXXXX")
trap 'rm -rf "$OUT"' EXIT

one() { # label command...: one "label wall cpu" line
	l=$1; shift
	/usr/bin/time -f "$l %e %U %S" -o "$OUT/t" "$@" >/dev/null 2>&1 || true
	awk '{ printf "%s %.2f %.2f\n", $1, $2, $3 + $4 }' "$OUT/t"
}

babeltrace2 -o dummy "$T" >/dev/null 2>&1 # the page cache
i=0
while [ "$i" -lt "$R" ]; do
	one bt2 babeltrace2 -o dummy "$T"
	one report "$P" report "$T"
	i=$((i + 1))
done >"$OUT/runs"
awk '{ w[$1] = w[$1] " " $2; c[$1] = c[$1] " " $3 }
     function med(s,   a, n, i, j, t) { n = split(s, a, " ");
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return a[int((n + 1) / 2)] }
     END { b = med(w["bt2"]); r = med(w["report"]);
	printf "BENCH full_read bt2_wall_s=%.2f report_wall_s=%.2f ratio=%.2f bt2_cpu_s=%.2f report_cpu_s=%.2f\n",
	       b, r, r / b, med(c["bt2"]), med(c["report"]) }' "$OUT/runs"
uptime
perf record -q -F 499 -g -o "$OUT/perf.data" "$P" report "$T" >/dev/null 2>&1 || true
perf script -i "$OUT/perf.data" -F tid,ip,sym,dso -G 2>/dev/null |
	awk '{ d = $NF; n = split(d, a, "/"); dso = a[n]; sub(/\)$/, "", dso); sub(/^\(/, "", dso)
	       if (dso == "proxyscope") dso = "proxyscope:" $3
	       k[$1 " " dso]++; t[$1]++; all++ }
	     END { for (x in t) printf "thread %s %.2f s (%.0f%%)\n", x, t[x] / 499, 100 * t[x] / all
		   for (x in k) { split(x, b, " "); if (k[x] * 100 / t[b[1]] >= 3)
			printf "  thread %s %s %.0f%%\n", b[1], b[2], 100 * k[x] / t[b[1]] } }' | sort
