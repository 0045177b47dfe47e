#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Thousands of ranks (issue 22's benchmark):
#   bench/scale/scale.sh PROXYSCOPE [SIZE...]
# SIZE is a rank count run in one process on the loop backend (default: 128 1024 4096), or
# hN:R, R ranks over N simulated hosts (4 processes a host, tcp;ofi_rxm, root and mpirun;
# e.g. h16:1024). For each size, one `proxyscope run` of $SCALE_OPS execs (default 20) of 4 KiB,
# 16 ranks a proxy, with the device of the middle rank stalled at the middle exec, under a
# session daemon of its own (tests/private_lttng.sh) and sampled by recmem.py; then, alternately
# $SCALE_ROUNDS times (default 3), `babeltrace2 -o dummy`, `proxyscope report` and `proxyscope
# watchdog` on its trace; then Chromium (headless) loading the run's timeline.html once.
# Prints per size, as BENCH lines:
#   scale_run:      the run's wall time, its events (recorded, lost), the recording's peak memory
#                   (recmem.py's rec: the daemons' Pss and the traced processes' share of the
#                   ring buffers) and everything's, the run's text lines, the buffers it chose
#   scale_report:   report's wall and CPU medians and their ratios to babeltrace2's, events a
#                   second, peak RSS (wait4, the largest of the rounds) and per rank, text lines
#   scale_watchdog: the same for watchdog
#   scale_html:     the page's bytes and Chromium's wall time to load it and take a screenshot
# Measures, never asserts. Needs LTTng, babeltrace2, python3; chromium when present.
set -eu
P=$1
shift
[ $# -gt 0 ] || set -- 128 1024 4096
HERE=$(cd "$(dirname "$0")/../.." && pwd)
OPS=${SCALE_OPS:-20}
R=${SCALE_ROUNDS:-3}
OUT=$(mktemp -d "${TMPDIR:-/tmp}/scale.XXXXXX")
trap 'rm -rf "$OUT"' EXIT INT TERM
load() { uptime | sed 's/.*average: //; s/,//g'; }

one() { # label command...: one "label wall cpu maxrss_kb" line; stdout kept in $OUT/label.out
	l=$1
	shift
	/usr/bin/time -f "$l %e %U %S %M" -o "$OUT/t" "$@" >"$OUT/$l.out" 2>"$OUT/$l.err" || true
	# (time writes "Command exited with non-zero status N" first when it did)
	awk -v l="$l" '$1 == l { printf "%s %.3f %.3f %d\n", $1, $2, $3 + $4, $5 }' "$OUT/t"
}

for size in "$@"; do
	case $size in
	h*:*)
		hosts=${size#h}
		hosts=${hosts%%:*}
		ranks=${size#*:}
		where="--hosts $hosts --procs $((hosts * 4)) --backend ofi --provider tcp"
		name="hosts${hosts}_ranks$ranks"
		;;
	*)
		ranks=$size
		where=""
		name="ranks$ranks"
		;;
	esac
	T=$OUT/trace
	rm -rf "$T"
	echo "# $name: recording ($OPS execs), load $(load)" >&2
	# shellcheck disable=SC2086 # $where is words
	one run python3 "$HERE/bench/scale/recmem.py" --every 0.2 --out "$OUT/mem" -- \
		sh "$HERE/tests/private_lttng.sh" "$P" run --ranks "$ranks" --ranks-per-proxy 16 \
		--bytes 4KiB --ops "$OPS" --timeout 20s $where -o "$T" \
		--inject "device-stall:rank=$((ranks / 2 + 1)),exec=$((OPS / 2))" >"$OUT/runs"
	cp "$OUT/run.out" "$OUT/run.txt"
	ev=$(sed -n 's/^events: *\([0-9]*\) recorded, \([0-9]*\) lost.*buffers \(.*\)$/\1 \2 \3/p' \
		"$OUT/run.txt" | head -1)
	set -- $ev
	recorded=${1:-0} lost=${2:-0}
	shift 2 2>/dev/null || true
	bufs=$(echo "$*" | tr ' ' '_')
	# across hosts the run prints no events line: the report's
	if [ -z "$ev" ]; then
		"$P" report "$T" 2>/dev/null >"$OUT/ev.txt" || true
		set -- $(sed -n 's/^events: *\([0-9]*\) read.*lost: \([0-9]*\) events.*/\1 \2/p' \
			"$OUT/ev.txt" | head -1)
		recorded=${1:-0} lost=${2:-0} bufs=hosts
	fi
	awk -v name="$name" -v ranks="$ranks" -v rec="$recorded" -v lost="$lost" -v bufs="$bufs" \
	    -v lines="$(wc -l <"$OUT/run.txt")" -v mem="$(cat "$OUT/mem")" -v load="$(load)" '
	    { split(mem, m, " "); for (i in m) { split(m[i], kv, "="); v[kv[1]] = kv[2] } }
	    { printf "BENCH scale_run %s ranks=%d wall_s=%.3f events=%d lost=%d rec_mem_mb=%s all_mem_mb=%s text_lines=%d buffers=%s goal_rec_max_mb=%d load=\"%s\"\n",
		name, ranks, $2, rec, lost, v["peak_rec_mb"], v["peak_pss_mb"], lines, bufs,
		(ranks >= 4096 ? 1024 : 256), load }' "$OUT/runs"

	babeltrace2 -o dummy "$T" >/dev/null 2>&1 || true # the page cache
	i=0
	while [ "$i" -lt "$R" ]; do
		one bt2 babeltrace2 -o dummy "$T"
		one report "$P" report "$T"
		cp "$OUT/report.out" "$OUT/report.txt"
		one watchdog "$P" watchdog "$T"
		cp "$OUT/watchdog.out" "$OUT/watchdog.txt"
		i=$((i + 1))
	done >"$OUT/reads"
	awk -v name="$name" -v ranks="$ranks" -v ev="$recorded" \
	    -v rl="$(wc -l <"$OUT/report.txt")" -v wl="$(wc -l <"$OUT/watchdog.txt")" '
	     { w[$1] = w[$1] " " $2; c[$1] = c[$1] " " $3; if ($4 > rss[$1]) rss[$1] = $4 }
	     function med(s,   a, n, i, j, t) { n = split(s, a, " ");
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return a[int((n + 1) / 2)] }
	     function line(k, lines) { printf "BENCH scale_%s %s wall_s=%.3f ratio=%.3f cpu_s=%.3f cpu_ratio=%.3f events_per_s=%.0f rss_mb=%.1f rss_kb_per_rank=%.1f text_lines=%d goal_ratio_max=1 goal_lines_max=60\n",
		k, name, med(w[k]), med(w[k]) / bw, med(c[k]), med(c[k]) / bc, ev / med(w[k]),
		rss[k] / 1024, rss[k] / ranks, lines }
	     END { bw = med(w["bt2"]); bc = med(c["bt2"])
		printf "BENCH scale_bt2 %s wall_s=%.3f cpu_s=%.3f events=%d\n", name, bw, bc, ev
		line("report", rl); line("watchdog", wl) }' "$OUT/reads"

	html=$T/timeline.html
	[ -f "$html" ] || html=$(find "$T" -name timeline.html | head -1)
	if [ -n "$html" ] && [ -f "$html" ] && command -v chromium >/dev/null; then
		one chromium timeout 120 chromium --headless --no-sandbox --disable-gpu \
			--screenshot="$OUT/page.png" --window-size=1600,1000 "file://$html" >"$OUT/chr"
		awk -v name="$name" -v bytes="$(stat -c %s "$html")" \
		    -v shot="$([ -s "$OUT/page.png" ] && echo yes || echo no)" '
		    { printf "BENCH scale_html %s bytes=%d chromium_wall_s=%.3f screenshot=%s goal_wall_max_s=5\n",
			name, bytes, $2, shot }' "$OUT/chr"
		rm -f "$OUT/page.png"
	fi
	rm -rf "$T"
done
