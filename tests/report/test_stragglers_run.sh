#!/bin/sh
# SPDX-License-Identifier: MIT
# `proxyscope stragglers` on real runs (issue 24, point 2's tests): a rank whose device triggers
# 5 ms late on execs 20 to 59 of 100 (device-delay:rank=2,from=20,to=59,ms=5) is the costliest
# rank, with change points at exec 20 and 60 (± 1) and the time lost to it within 20 % of what
# the injection cost (40 execs x 5 ms: in a ring every other rank waits for it); a healthy run
# has no change point.
#
#   sh test_stragglers_run.sh path/to/proxyscope
bin=${1:?usage: test_stragglers_run.sh PROXYSCOPE}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli_harness.sh"
need_lttng

if run 0 run -q --ranks 4 --ops 100 --inject device-delay:rank=2,from=20,to=59,ms=5 \
	-o "$tmp/late"; then
	run 0 stragglers "$tmp/late" && {
		grep -q '^  change: rank 2 from exec 20:' "$out" ||
			fail "delayed rank: no change point at exec 20 in the text"
	}
	run 0 stragglers --json "$tmp/late" && py "$out" <<'PY' || fail "delayed rank: stragglers --json"
s = j[0]["stragglers"]
top = max(s["ranks"], key=lambda r: r["lost_ns"])
assert top["rank"] == 2, top
cost = 40 * 5e6
assert abs(top["lost_ns"] - cost) <= 0.2 * cost, ("time lost", top["lost_ns"], cost)
at = sorted(c["exec_id"] for c in top["changes"])
assert len(at) == 2 and abs(at[0] - 20) <= 1 and abs(at[1] - 60) <= 1, at
others = [r for r in s["ranks"] if r["rank"] != 2 and r["changes"]]
assert not others, others
print("rank 2: %.1f ms lost (injected %.0f ms), changes at %s" % (top["lost_ns"] / 1e6,
                                                                  cost / 1e6, at))
PY
fi

if run 0 run -q --ranks 4 --ops 100 -o "$tmp/healthy"; then
	run 0 stragglers --json "$tmp/healthy" && py "$out" <<'PY' || fail "healthy: a change point"
changes = [(r["rank"], r["changes"]) for r in j[0]["stragglers"]["ranks"] if r["changes"]]
assert not changes, changes
PY
fi
harness_finish "stragglers on real runs"
