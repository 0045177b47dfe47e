#!/bin/sh
# SPDX-License-Identifier: MIT
# The report commands as a user and a script see them, on recorded babeltrace2 text (fixtures/,
# see fixtures/README.md; no LTTng needed): --help on each, every bad input gets one "error:"
# line naming the file and why with exit 2 (missing path, a directory without a trace, text
# that is not babeltrace2 output, a trace without our events; the CTF cases are in
# test_report_scenarios.sh, which records traces), bad options exit 2, every --json parses with the
# documented fields, and the exit status says whether a stall was found.
#
#   sh test_report_cli.sh path/to/proxyscope path/to/fixtures
set -eu

bin=${1:?usage: test_report_cli.sh PROXYSCOPE FIXTURES}
fx=${2:?usage: test_report_cli.sh PROXYSCOPE FIXTURES}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
fx=$(cd "$fx" && pwd)
. "$(dirname "$0")/../cli_harness.sh"
stall=$fx/device-stall.txt
healthy=$fx/healthy.txt

# bad_input TEXT ARGS...: exit 2, exactly one stderr line, "error: ...TEXT", nothing on stdout.
bad_input() {
	text=$1
	shift
	run 2 "$@" || return 0
	if ! grep -q "^error: .*$text" "$err"; then
		fail "proxyscope $*: no 'error: ...$text' line on stderr"
	fi
	if [ "$(grep -c '^error:' "$err")" -ne 1 ]; then
		fail "proxyscope $*: not exactly one error line"
	fi
	if [ -s "$out" ]; then
		fail "proxyscope $*: bad input wrote to stdout"
	fi
}

# json_check ARGS... <<PY: the output parses, then the python checks run with d = the document.
json_check() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.stdin.read())
' "$out" || fail "proxyscope $*: --json does not parse or misses fields"
}

# --- help ----------------------------------------------------------------------------------------
for cmd in report timeline stats watchdog; do
	if run 0 "$cmd" --help; then
		grep -q "^usage: proxyscope $cmd" "$out" || fail "$cmd --help: no usage line"
		grep -q -- '--json' "$out" || fail "$cmd --help: --json is not documented"
		grep -q 'TRACE is a CTF trace directory' "$out" || fail "$cmd --help: TRACE is not documented"
		grep -q '^Exit status' "$out" || fail "$cmd --help: no exit status"
	fi
	if run 0 help "$cmd"; then
		grep -q "^usage: proxyscope $cmd" "$out" || fail "help $cmd: no usage line"
	fi
done
if run 0 --help; then
	for cmd in report timeline stats watchdog; do
		grep -q "^   $cmd " "$out" || fail "--help: '$cmd' is not listed"
	done
fi

# --- bad input -----------------------------------------------------------------------------------
mkdir "$tmp/empty" "$tmp/deep" "$tmp/deep/a" "$tmp/fake"
: >"$tmp/fake/metadata"
printf 'hello, world\n' >"$tmp/hello.txt"
: >"$tmp/nothing.txt"
printf '[16:24:46.925012277] (+?.?????????) vm lttng_ust_statedump:start: { cpu_id = 1 }, { vpid = 1, vtid = 1, procname = "x" }, { }\n' >"$tmp/other.txt"
{ head -11 "$healthy"; echo 'this is no event'; } >"$tmp/line12.txt"

bad_input "cannot open '$tmp/missing': No such file or directory" report "$tmp/missing"
bad_input "cannot open '$tmp/missing': No such file or directory" watchdog "$tmp/missing"
if [ "${PROXYSCOPE_TEST_WITH_ANALYSIS:-1}" = 1 ]; then
	bad_input "'$tmp/empty' is not a trace: no CTF trace under it" report "$tmp/empty"
	bad_input "'$tmp/deep' is not a trace: no CTF trace under it" timeline "$tmp/deep"
	bad_input "cannot mix" report "$healthy" "$tmp/fake"
else
	bad_input "cannot read '$tmp/empty' as CTF: built without babeltrace2" report "$tmp/empty"
fi
bad_input "$tmp/hello.txt:1: not babeltrace2" stats "$tmp/hello.txt"
bad_input "$tmp/line12.txt:12: not babeltrace2" report "$tmp/line12.txt"
bad_input "no proxyscope events in '$tmp/nothing.txt'" report "$tmp/nothing.txt"
bad_input "no proxyscope events in '$tmp/other.txt'" watchdog "$tmp/other.txt"
stdin=$tmp/hello.txt bad_input "-:1: not babeltrace2" report -

# --- bad options ---------------------------------------------------------------------------------
usage() {
	text=$1
	shift
	run 2 "$@" || return 0
	grep -q "^error: .*$text" "$err" || fail "proxyscope $*: no 'error: ...$text'"
	grep -q "^See 'proxyscope" "$err" || fail "proxyscope $*: no 'See ...--help' line"
}
usage "no trace given" report
usage "no trace given" timeline --rank 1
usage "unknown option '--bogus'" stats --bogus "$healthy"
usage "'network2' is not a kind" timeline --kind network2 "$healthy"
usage "--rank" timeline --rank -1 "$healthy"
usage "--gid" timeline --gid x "$healthy"
usage "--exec" timeline --exec 1.5 "$healthy"
usage "'5' has no unit" watchdog --threshold 5 "$healthy"
usage "requires a value" watchdog "$healthy" --threshold

# --- run without LTTng: one error line and a hint; --no-trace still runs ------------------------
mkdir "$tmp/nobin"
status=0
(cd "$tmp" && env PATH="$tmp/nobin" "$bin" run --ops 2) >"$out" 2>"$err" || status=$?
if [ "$status" -ne 2 ]; then
	fail "run without lttng: exit $status, expected 2"
else
	grep -q "^error: LTTng is not installed.*--no-trace" "$err" ||
		fail "run without lttng: no 'error: LTTng is not installed ... --no-trace' line"
	[ "$(wc -l <"$err")" -eq 1 ] || fail "run without lttng: not a one-line error"
	[ -z "$(ls "$tmp" | grep proxyscope-run-)" ] || fail "run without lttng: left a directory"
fi
status=0
(cd "$tmp" && env PATH="$tmp/nobin" "$bin" run --no-trace --ops 5) >"$out" 2>"$err" || status=$?
if [ "$status" -ne 0 ]; then
	fail "run --no-trace without lttng: exit $status, expected 0"
else
	grep -q '^result: *ok' "$out" || fail "run --no-trace: result is not ok"
	if grep -q '^trace:' "$out"; then
		fail "run --no-trace: printed a trace"
	fi
fi
usage "there is no trace with --no-trace" run --no-trace -o "$tmp/x"
usage "'loud' is not a level" run --loglevel loud
if run 0 run --help; then
	grep -q -- '--no-trace' "$out" || fail "run --help: --no-trace is not documented"
	grep -q -- '-o, --output DIR' "$out" || fail "run --help: -o is not documented"
fi

# --- healthy: exit 0, no stall, and JSON ---------------------------------------------------------
if run 0 report "$healthy"; then
	grep -q '^watchdog: no stall' "$out" || fail "report healthy: no 'no stall' line"
	grep -q '^tasks: *24 seen, 24 done, 0 open' "$out" || fail "report healthy: not 24 tasks done"
	grep -q '^workers: *2$' "$out" || fail "report healthy: not 2 workers"
	grep -q 'enqueue->DONE' "$out" || fail "report healthy: no latency line"
fi
if run 0 watchdog "$healthy"; then
	grep -q '^watchdog: no stall' "$out" || fail "watchdog healthy: no 'no stall' line"
fi
stdin=$healthy run 0 watchdog - || true
if run 0 report --json "$healthy"; then
	json_check report --json <<'EOF'
assert d["command"] == "report"
assert d["input"]["format"] == "babeltrace2-text" and d["input"]["lost"]["events"] == 0
o = d["overview"]
assert o["tasks"] == {"seen": 24, "done": 24, "open": 0}, o["tasks"]
assert len(o["workers"]) == 2 and len(o["groups"]) == 2
assert sorted(o["groups"][0]["ranks"] + o["groups"][1]["ranks"]) == [0, 1, 2, 3]
assert all(w["active_ns"] + w["idle_ns"] + w["sleep_ns"] > 0 for w in o["workers"])
s = d["stats"]["overall"]
assert s["end_to_end"]["count"] == 24
assert s["end_to_end"]["p50_ns"] <= s["end_to_end"]["p90_ns"] <= s["end_to_end"]["p99_ns"] <= s["end_to_end"]["max_ns"]
assert s["seam_b1"]["count"] == 12 and s["seam_b2"]["count"] == 0 and s["seam_b2"]["p50_ns"] is None
assert [r["rank"] for r in d["stats"]["ranks"]] == [0, 1, 2, 3]
w = d["watchdog"]
assert w["stall_found"] is False and w["stalls"] == [] and w["root_causes"] == []
EOF
fi
if run 0 timeline --json "$healthy"; then
	json_check timeline --json <<'EOF'
t = d["timeline"]
assert t["tasks_seen"] == 24 and t["tasks_shown"] == 24 and len(t["tasks"]) == 24
kinds = {"NETWORK": 1, "BARRIER": 2}
keys = [(r["proc"], r["rank"], r["exec_id"], kinds[r["kind"]]) for r in t["tasks"]]
assert keys == sorted(keys), "rows not sorted"
for r in t["tasks"]:
    assert r["done"] and r["state"] == "DONE" and r["latency_ns"] == r["done_ts"] - r["enqueue_ts"]
    assert set(r["state_ns"]) == {"INIT", "PROGRESSING", "WAITING_DEVICE_TRIGGER", "IDLE"}
    assert r["seam_calls"]["B1"] == (1 if r["kind"] == "NETWORK" else 0)
EOF
fi
if run 0 timeline --json --rank 2 --kind barrier --exec 1 "$healthy"; then
	json_check timeline filtered <<'EOF'
t = d["timeline"]
assert t["filter"] == {"rank": 2, "gid": None, "exec_id": 1, "kind": "BARRIER"}, t["filter"]
assert t["tasks_seen"] == 24 and t["tasks_shown"] == 1
r = t["tasks"][0]
assert (r["rank"], r["exec_id"], r["kind"]) == (2, 1, "BARRIER")
EOF
fi
if run 0 timeline --gid 1 "$healthy"; then
	grep -q '^12 tasks shown of 24' "$out" || fail "timeline --gid 1: not 12 of 24 tasks"
fi
if run 0 stats --json "$healthy"; then
	json_check stats --json <<'EOF'
s = d["stats"]
assert 0 < s["relative_error"] < 0.03
for m in ("state_init", "state_progressing", "state_waiting_device_trigger", "state_idle",
          "seam_b1", "seam_b2", "seam_b3", "trigger_wait", "end_to_end"):
    assert m in s["overall"], m
    for r in s["ranks"]:
        assert m in r
assert sum(r["end_to_end"]["count"] for r in s["ranks"]) == s["overall"]["end_to_end"]["count"]
EOF
fi
if run 0 stats "$healthy"; then
	grep -q '^  all *enqueue->DONE *24 ' "$out" || fail "stats: no overall enqueue->DONE row of 24"
	grep -q '^  3 *enqueue->DONE *6 ' "$out" || fail "stats: no rank 3 enqueue->DONE row of 6"
fi

# --- a device stall: exit 1, the root cause, and its JSON ----------------------------------------
if run 1 report "$stall"; then
	grep -q '^root cause: rank 1 .*never wrote the trigger word of stream 0 of exec 2' "$out" ||
		fail "report stall: no root cause naming rank 1, exec 2"
fi
if run 1 watchdog --json "$stall"; then
	json_check watchdog --json <<'EOF'
w = d["watchdog"]
assert w["stall_found"] is True
roots = [w["stalls"][i] for i in w["root_causes"]]
assert len(roots) == 1, roots
r = roots[0]
assert (r["rank"], r["exec_id"], r["kind"], r["state"]) == (1, 2, "NETWORK", "WAITING_DEVICE_TRIGGER"), r
assert r["cause"] == "device_no_trigger" and r["root_cause"] is True and r["streams_pending"] == [0]
assert r["watchdog_fired"] is True and r["duration_ns"] > 100000000
for s in w["stalls"]:
    for k in ("rank", "gid", "exec_id", "task_id", "kind", "state", "duration_ns", "cause",
              "streams_pending", "waiting_on", "root_cause", "uncertain", "root", "detail",
              "last_seam", "trigger_words"):
        assert k in s, k
    if not s["root_cause"]:
        assert s["root"] is not None and w["stalls"][s["root"]] is r, s
        assert s["root_task_id"] == r["task_id"]
        assert s["waiting_on"], s
EOF
fi
if run 0 timeline --rank 1 --exec 2 "$stall"; then
	grep -q 'WAITING_DEVICE_TRIGGER (open)' "$out" || fail "timeline stall: rank 1 exec 2 is not open"
fi
if run 1 watchdog --threshold 10us "$healthy"; then
	grep -q 'slow_state' "$out" || fail "watchdog --threshold 10us: no slow_state stall"
fi

harness_finish "report CLI"
