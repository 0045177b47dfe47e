#!/bin/sh
# SPDX-License-Identifier: MIT
# `proxyscope stragglers` on real runs (issue 24, point 2's tests): a rank whose device triggers
# M ms late on execs 20 to 59 of 100 (device-delay:rank=2,from=20,to=59,ms=M) is the costliest
# rank, with change points at exec 20 and 60 (± 1) and the time lost to it within 20 % of what
# the injection cost (40 execs x M ms: in a ring every other rank waits for it); no other rank,
# and no rank of a healthy run, has a change point of half that size.
#
# M is 20 ms, or 4 times the machine's own noise if that is more: a healthy run first measures
# the mean spread of the ranks' arrivals per exec, and the delayed run measures it again outside
# its delay (made again with a larger M, at most 3 runs, when the load rose meanwhile and the
# straggler was not found as injected). A straggler has to stand out of that noise to
# be told from it: quiet, the spread is 0.3-0.6 ms (and 5 ms is found exactly: 196.8 ms lost of
# 200); beside `stress-ng --cpu 4` on the 2 CPUs here it was 15.6 ms, load bursts moved single
# ranks by 6-10 ms for more than 5 execs, and a 20 ms straggler lost 609 of 800 ms to the others'
# lateness in the same execs.
#
#   sh test_stragglers_run.sh path/to/proxyscope
bin=${1:?usage: test_stragglers_run.sh PROXYSCOPE}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli_harness.sh"
need_lttng

if run 0 run -q --ranks 4 --ops 100 -o "$tmp/healthy"; then
	run 0 stragglers --json "$tmp/healthy" && cp "$out" "$tmp/healthy.json" &&
		MS_FILE=$tmp/ms py "$out" <<'PY' || fail "healthy: a change point"
import os
spans = [e["span_ns"] for e in j[0]["stragglers"]["execs"]]
ms = max(20, round(4 * sum(spans) / len(spans) / 1e6))
changes = [(r["rank"], c) for r in j[0]["stragglers"]["ranks"] for c in r["changes"]
           if abs(c["after_ns"] - c["before_ns"]) >= ms / 2 * 1e6]
open(os.environ["MS_FILE"], "w").write(str(ms))
assert not changes, changes
PY
fi
ms=$(cat "$tmp/ms" 2>/dev/null)

# The delayed run measures its own noise too (the mean spread of the execs outside the delay):
# when the load rose between the two runs past a quarter of M, M follows it and the run is made
# again (at most 3 runs): beside stress-ng --cpu 4 and a 1024-rank run, a 62 ms delay lost the
# right time to rank 2 (2524 ms) but no change point stood 6 standard errors out of the noise.
late_noise() { # JSON of stragglers --json: prints M when the run was quiet enough, else the next M
	MS=$ms py "$1" <<'PY'
import os
ex = [e["span_ns"] for e in j[0]["stragglers"]["execs"] if not 20 <= e["exec_id"] < 60]
noise = sum(ex) / len(ex) / 1e6 if ex else 0
ms = int(os.environ["MS"])
print(ms if 4 * noise <= ms else max(ms + 1, round(4 * noise)))
PY
}
# judged JSON M: the delayed run (made with M ms) against what was injected; prints the figures
judged() {
	MS=$2 py "$1" <<'PY'
import os
s = j[0]["stragglers"]
ms = int(os.environ["MS"])
top = max(s["ranks"], key=lambda r: r["lost_ns"])
assert top["rank"] == 2, top
cost = 40 * ms * 1e6
assert abs(top["lost_ns"] - cost) <= 0.2 * cost, ("time lost", top["lost_ns"], cost)
big = lambda c: abs(c["after_ns"] - c["before_ns"]) >= ms / 2 * 1e6
at = sorted(c["exec_id"] for c in top["changes"] if big(c))
assert len(at) == 2 and abs(at[0] - 20) <= 1 and abs(at[1] - 60) <= 1, top["changes"]
others = [(r["rank"], c) for r in s["ranks"] if r["rank"] != 2 for c in r["changes"] if big(c)]
assert not others, others
print("rank 2 delayed %d ms: %.1f ms lost of %.0f ms injected, changes at %s" %
      (ms, top["lost_ns"] / 1e6, cost / 1e6, at))
PY
}
# A run is judged against the M it was made with. Found as injected, it passes; not found while
# its own noise was within a quarter of M, it fails; not found in more noise, it is made again
# with the M that noise calls for (at most 3 runs). (Before, M was raised after the third run
# and that run, made with 58 ms and found right - 2078.7 ms lost of 2320 - was judged against
# 76 ms.)
attempt=0 verdict=none
while [ -n "$ms" ] && [ "$attempt" -lt 3 ]; do
	attempt=$((attempt + 1))
	rm -rf "$tmp/late" "$tmp/late.json" "$tmp/late.txt"
	run 0 run -q --ranks 4 --ops 100 --inject device-delay:rank=2,from=20,to=59,ms="$ms" \
		-o "$tmp/late" || break
	run 0 stragglers --json "$tmp/late" || break
	cp "$out" "$tmp/late.json"
	run 0 stragglers "$tmp/late" || break
	cp "$out" "$tmp/late.txt"
	if judged "$tmp/late.json" "$ms" >"$tmp/judged" 2>&1 &&
		grep -q '^  change: rank 2 from exec \(19\|20\|21\):' "$tmp/late.txt"; then
		verdict=ok
		break
	fi
	next=$(late_noise "$tmp/late.json")
	if [ "$next" = "$ms" ]; then
		verdict=wrong
		break
	fi
	echo "delayed $ms ms: not found as injected, and the run's own noise called for $next ms: again"
	ms=$next
done
case $verdict in
ok) cat "$tmp/judged" ;;
wrong)
	cat "$tmp/judged" "$tmp/late.txt"
	fail "delayed rank: not found as injected (no change point at exec 20 in the text, or stragglers --json)"
	;;
*)
	[ -s "$tmp/judged" ] && cat "$tmp/judged" "$tmp/late.txt"
	fail "delayed rank: not found as injected, the machine's noise above a quarter of the delay in 3 runs"
	;;
esac
harness_finish "stragglers on real runs"
