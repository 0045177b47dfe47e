#!/bin/sh
# SPDX-License-Identifier: MIT
# The --json documents of a recorded run, checked against docs/schema/ (validate.py --mutate):
# `run --json` with its trace and report (a stalled run: stalls, first_failure), the JSON Lines
# of `run --watch --json` (findings and ends), and report, watchdog, stats and timeline read from
# the CTF trace. Runs under tests/private_lttng.sh (a session daemon of its own).
#
#   sh test_schema_record.sh PROXYSCOPE SOURCE_DIR
set -eu

bin=${1:?usage: test_schema_record.sh PROXYSCOPE SOURCE_DIR}
src=${2:?usage: test_schema_record.sh PROXYSCOPE SOURCE_DIR}
. "$src/tests/cli_harness.sh"
need_lttng
validate="python3 $src/tests/schema/validate.py --schemas $src/docs/schema --mutate"

check() {
	$validate "$@" >"$tmp/v.out" 2>&1 ||
		{ cat "$tmp/v.out" >&2; fail "$2: the $1 document does not fit its schema"; }
}

trace=$tmp/run
if run 1 run --json -o "$trace" --ranks 2 --ops 20 --timeout 300ms \
	--inject device-stall:rank=1,exec=3 --watch --watch-threshold 100ms; then
	cp "$out" "$tmp/run.json"
	cp "$err" "$tmp/watch.jsonl"
	check run "$tmp/run.json"
	check watch "$tmp/watch.jsonl"
	py "$tmp/run.json" <<'PY' || fail "run: no trace, report or stall in the document"
d = j[0]
assert d["trace"]["dir"] and d["report"]["watchdog"]["stalls"], d.keys()
PY
	grep -q '^{"schema_version":1,"event":"finding"' "$tmp/watch.jsonl" ||
		fail "run --watch --json: no finding line"
fi
for c in report watchdog stats timeline; do
	st=0
	case $c in report | watchdog) st=1 ;; esac
	if run "$st" "$c" --json "$trace"; then
		cp "$out" "$tmp/$c.json"
		check "$c" "$tmp/$c.json"
	fi
done
harness_finish "schema (recorded documents)"
