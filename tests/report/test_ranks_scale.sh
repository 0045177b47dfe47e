#!/bin/sh
# SPDX-License-Identifier: MIT
# Thousands of ranks recorded and diagnosed (issue 22, point 1's tests), through the real driver
# under this test's private session daemon:
#  - 1024 ranks in one process, the device of rank 777 stalled at exec 2: watchdog --json has
#    exactly that root (and every other stall leads to it), the text is at most 60 lines, and
#    --verbose prints the evidence of every stalled task; the run's whole text (stdout and
#    stderr, every rank's timeout warning digested) and `report`'s are at most 60 lines too,
#    verdict first, and `report --verbose` has a line for each of the 64 workers;
#  - 512 ranks with every rank of the process stalled at exec 2 (device-stall:proc=0): one
#    common-cause line naming all 512 ranks of that process.
# Every run must lose no event (a loss makes the verdict uncertain): 4 execs of 4 KiB and 16 MiB
# of buffers a CPU hold them (54 k events at 1024 ranks). Nothing here is timed: the timeouts
# only end the stalled runs (10 s: on the fresh machine, beside the suite's other tests, every
# rank's exec 0 took more than 3 s at 1024 ranks and the run named no root).
#
#   sh test_ranks_scale.sh path/to/proxyscope
bin=${1:?usage: test_ranks_scale.sh PROXYSCOPE}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli_harness.sh"
need_lttng

# no_loss DIR: run's own line says every event was recorded
no_loss() {
	grep -q '^events: .* recorded, 0 lost' "$out" ||
		fail "$1: events were lost: $(grep '^events:' "$out")"
}

common='--ranks-per-proxy 16 --ops 4 --bytes 4KiB --timeout 10s --buffer-size 16MiB'

# --- 1024 ranks, one stalled device ------------------------------------------------------------
# shellcheck disable=SC2086
if run 1 run $common --ranks 1024 --inject device-stall:rank=777,exec=2 -o "$tmp/r1024"; then
	no_loss r1024
	grep -q '^root cause: rank 777 exec 2 ' "$out" || fail "run: no root cause rank 777 exec 2"
	lines=$(cat "$out" "$err" | wc -l)
	[ "$lines" -le 60 ] || fail "1024 ranks: the run's text is $lines lines (at most 60)"
	grep -q '^proxyscope: warning: and [0-9]* more like ".*Timeout exceeded' "$err" ||
		fail "1024 ranks: the run's timeout warnings are not digested: $(head -3 "$err")"
	grep -q 'Waiting on proxy task type 1' "$err" ||
		fail "1024 ranks: the stalled rank's own (network) timeout is not shown"
fi
if run 1 report "$tmp/r1024"; then
	lines=$(wc -l <"$out")
	[ "$lines" -le 60 ] || fail "1024 ranks: report's text is $lines lines (at most 60)"
	head -1 "$out" | grep -q '^watchdog: [0-9]* stalled tasks, 1 root cause$' ||
		fail "1024 ranks: report does not open with the verdict: $(head -1 "$out")"
	grep -q '^  and [0-9]* others .*(--verbose: every one)$' "$out" ||
		fail "1024 ranks: report's workers are not summarised"
fi
if run 1 report --verbose "$tmp/r1024"; then
	n=$(grep -c '^  proxy-[0-9]* ' "$out")
	[ "$n" = 64 ] || fail "1024 ranks: report --verbose has $n worker lines, expected 64"
fi
if run 1 watchdog --json "$tmp/r1024"; then
	py "$out" <<'PY' || fail "1024 ranks: watchdog --json roots"
w = j[0]["watchdog"]
roots = w["root_causes"]
assert len(roots) == 1, [(w["stalls"][i]["rank"], w["stalls"][i]["exec_id"]) for i in roots]
r = w["stalls"][roots[0]]
assert (r["rank"], r["exec_id"], r["cause"]) == (777, 2, "device_no_trigger"), r
lost = [s["rank"] for s in w["stalls"] if not s["root_cause"] and s["root"] != roots[0]]
assert not lost, ("stalls leading elsewhere", len(lost), lost[:20])
assert len(w["stalls"]) > 1024, len(w["stalls"])  # every barrier waits on it
print("1024 ranks: root rank 777 exec 2, %d stalled tasks all lead to it" % len(w["stalls"]))
PY
	cp "$out" "$tmp/r1024.json"
fi
if run 1 watchdog "$tmp/r1024"; then
	lines=$(wc -l <"$out")
	[ "$lines" -le 60 ] || fail "1024 ranks: the watchdog's text is $lines lines (at most 60)"
	grep -q '^watchdog: [0-9]* stalled tasks, 1 root cause$' "$out" ||
		fail "1024 ranks: the text's first line"
	grep -q '^root cause: rank 777 exec 2 ' "$out" || fail "1024 ranks: the text's root"
fi
if run 1 watchdog --verbose "$tmp/r1024"; then
	# one evidence block per stalled task, each opened by its "  rank R exec E KIND task T"
	n=$(grep -c '^  rank [0-9]* exec [0-9]* [A-Z]* task [0-9]* (' "$out")
	N=$(py "$tmp/r1024.json" <<'PY'
print(len(j[0]["watchdog"]["stalls"]))
PY
)
	[ "$n" = "$N" ] || fail "1024 ranks: --verbose has $n evidence blocks of $N stalled tasks"
fi

# --- 512 ranks, every rank of the process stalled ---------------------------------------------
# shellcheck disable=SC2086
if run 1 run $common --ranks 512 --inject device-stall:proc=0,exec=2 -o "$tmp/p512"; then
	no_loss p512
fi
if run 1 watchdog "$tmp/p512"; then
	n=$(grep -c '^common cause: ' "$out")
	[ "$n" = 1 ] || fail "512 ranks: $n common-cause lines, expected 1"
	grep -q '^common cause: 512 ranks of pid [0-9]* on .* never triggered exec 2: ranks 0-511, all of that process$' "$out" ||
		fail "512 ranks: the common-cause line: $(grep '^common cause' "$out")"
fi
if run 1 watchdog --json "$tmp/p512"; then
	py "$out" <<'PY' || fail "512 ranks: watchdog --json common_causes"
w = j[0]["watchdog"]
c = w["common_causes"]
assert len(c) == 1, c
assert c[0]["scope"] == "process" and len(c[0]["roots"]) == 512, {k: v for k, v in c[0].items() if k != "roots"}
assert sorted(w["stalls"][i]["rank"] for i in c[0]["roots"]) == list(range(512))
PY
fi
harness_finish "thousands of ranks"
