#!/bin/sh
# SPDX-License-Identifier: MIT
# The html page of a long run keeps what matters (issue 22, point 5), recorded by this test's
# private session daemon: 8 ranks, 10,000 execs, the device of rank 5 stalled at exec 9,000.
# The run closes far more intervals than the page draws (200,000), so it must choose; checked in
# the page's data (the JSON in its <script id="psdata">), not by eye:
#  - the root cause is rank 5 exec 9000, and the page left intervals out and says where;
#  - exec 9000 is drawn on rank 5 and its neighbours 4 and 6 (a task record and its closed
#    intervals), and on every rank of the root's window (3..7);
#  - what the page draws is at most its budget, plus the intervals still open.
# Nothing here is timed: the timeout only ends the stalled run (10 s: at load 250 a healthy exec's
# trigger came 1.008 s late and --timeout 1s named it).
#
#   sh test_export_html_keep.sh path/to/proxyscope
bin=${1:?usage: test_export_html_keep.sh PROXYSCOPE}
. "$(dirname "$0")/../cli_harness.sh"
need_lttng

if run 1 run --ranks 8 --ops 10000 --bytes 4KiB --timeout 10s -q \
	--inject device-stall:rank=5,exec=9000 -o "$tmp/r"; then
	grep -q '^root cause: rank 5 exec 9000 ' "$out" || fail "the run's verdict is not rank 5 exec 9000"
	# the data: from the line after the <script id="psdata"> tag to the one before </script>
	awk '/<script id="psdata"/ { on = 1; sub(/.*<script id="psdata" type="application\/json">/, ""); }
	     /^<\/script>/ { on = 0 } on' "$tmp/r/timeline.html" >"$tmp/data.json"
	py "$tmp/data.json" <<'PY' || fail "the page's data does not keep the root cause's window"
d = j[0]
meta, ev = d["meta"], d["ev"]
roots = meta["roots"]
assert roots and "rank 5 exec 9000" in roots[0]["line"], roots
assert meta["kept"] == "roots+end" and meta["dropped"] > 0, (meta["kept"], meta["dropped"])
closed = meta["intervals"] - sum(1 for r in ev if r[0] == "I" and r[5] == 1)
assert closed <= meta["cap"], (closed, meta["cap"])
assert sum(meta["left_out"]["bins"]) == meta["dropped"]
win = meta["left_out"]["windows"][0]
assert win["rank"] == 5 and win["exec"] == 9000 and win["ranks"] == [3, 7] and win["kept"] > 0, win
tasks = {r[1]: r for r in ev if r[0] == "T"}
drawn = {}
for r in ev:
    if r[0] == "I" and r[5] == 0:
        t = tasks[r[1]]
        drawn.setdefault((t[3], t[5]), 0)
        drawn[(t[3], t[5])] += 1
for rank in range(3, 8):
    assert drawn.get((rank, 9000), 0) > 0, "exec 9000 on rank %d: no closed interval drawn" % rank
print("dropped %d of %d closed intervals; exec 9000 drawn on ranks 3..7: %s" % (
    meta["dropped"], meta["dropped"] + closed, [drawn[(r, 9000)] for r in range(3, 8)]))
PY
fi
harness_finish "html keep"
