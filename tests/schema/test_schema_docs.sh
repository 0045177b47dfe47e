#!/bin/sh
# SPDX-License-Identifier: MIT
# Every --json document the commands write without recording, checked against docs/schema/
# (validate.py, python3-jsonschema): report, stats, timeline and watchdog on the recorded text
# fixtures, export's summary, run --no-trace (healthy and stalled: first_failure as an object),
# hosts (as root, where namespaces can be built). Each is also mutated (--mutate: a member
# renamed, removed or retyped must fail), so a member that changes without its schema fails.
#
#   sh test_schema_docs.sh PROXYSCOPE SOURCE_DIR
set -eu

bin=${1:?usage: test_schema_docs.sh PROXYSCOPE SOURCE_DIR}
src=${2:?usage: test_schema_docs.sh PROXYSCOPE SOURCE_DIR}
. "$src/tests/cli_harness.sh"
fx=$src/tests/report/fixtures
validate="python3 $src/tests/schema/validate.py --schemas $src/docs/schema"

# doc KIND STATUS NAME ARGS...: run the command, keep its stdout as $tmp/NAME.json, validate it;
# the first document of each kind is also mutated (thousands of validations: once is enough).
doc() {
	kind=$1 status=$2 name=$3
	shift 3
	run "$status" "$@" || return 0
	cp "$out" "$tmp/$name.json"
	mutate=
	[ -e "$tmp/mutated-$kind" ] || mutate=--mutate
	touch "$tmp/mutated-$kind"
	$validate $mutate "$kind" "$tmp/$name.json" >"$tmp/v.out" 2>&1 ||
		{ cat "$tmp/v.out" >&2; fail "proxyscope $*: the $kind document does not fit its schema"; }
	if ! head -c 40 "$tmp/$name.json" | tr -d ' \n' | grep -q '^{"schema_version":1,'; then
		fail "proxyscope $*: \"schema_version\" is not the first member"
	fi
}

for t in device-stall healthy; do
	st=0
	[ "$t" = healthy ] || st=1
	doc report "$st" "report-$t" report --json "$fx/$t.txt"
	doc watchdog "$st" "watchdog-$t" watchdog --json "$fx/$t.txt"
	doc watchdog 1 "watchdog-thr-$t" watchdog --threshold 1ms --json "$fx/$t.txt"
	doc stats 0 "stats-$t" stats --json "$fx/$t.txt"
	doc stats 0 "stats-overall-$t" stats --overall --json "$fx/$t.txt"
	doc stragglers 0 "stragglers-$t" stragglers --json "$fx/$t.txt"
	doc timeline 0 "timeline-$t" timeline --json "$fx/$t.txt"
	doc timeline 0 "timeline-rank-$t" timeline --rank 1 --kind NETWORK --json "$fx/$t.txt"
done
for f in chrome csv html; do
	doc export 0 "export-$f" export --format "$f" -o "$tmp/timeline.$f" --json \
		"$src/tests/export/stall_2ranks.txt"
done
doc run 0 run-healthy run --no-trace --json --ranks 2 --ops 3
doc run 1 run-stalled run --no-trace --json --ranks 2 --ops 5 --timeout 300ms \
	--inject device-stall:rank=1,exec=2
py "$tmp/run-stalled.json" <<'PY' || fail "run-stalled: first_failure is not an object"
assert isinstance(j[0]["result"]["first_failure"], dict), j[0]["result"]
PY

# hosts needs root and namespaces (the hosts tests' condition); elsewhere the rest still counts.
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null 2>&1; then
	doc hosts 0 hosts hosts --json --no-sessiond -H 1 -- true
fi

# The checker itself: a document that lost a member, or a member renamed, fails validation.
python3 - "$tmp/report-device-stall.json" "$tmp" <<'PY' || fail "edited copies were not rejected"
import json, sys
d = json.load(open(sys.argv[1]))
del d["watchdog"]["stalls"][0]["cause"]
json.dump(d, open(sys.argv[2] + "/bad1.json", "w"))
d = json.load(open(sys.argv[1]))
d["overview"]["tasks"]["finished"] = d["overview"]["tasks"].pop("done")
json.dump(d, open(sys.argv[2] + "/bad2.json", "w"))
d = json.load(open(sys.argv[1]))
del d["schema_version"]
json.dump(d, open(sys.argv[2] + "/bad3.json", "w"))
PY
for b in bad1 bad2 bad3; do
	if python3 "$src/tests/schema/validate.py" --schemas "$src/docs/schema" report \
		"$tmp/$b.json" >"$out" 2>"$err"; then
		fail "validate.py accepted $b.json (a member removed or renamed)"
	fi
done
harness_finish "schema (documents without recording)"
