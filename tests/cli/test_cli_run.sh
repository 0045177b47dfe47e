#!/bin/sh
# SPDX-License-Identifier: MIT
# `proxyscope` and `proxyscope run` as a user and a script see them: help, usage errors (exit 2
# with an "error:" line naming the bad value), a healthy run (exit 0, no mismatch), --json that
# parses, and a stalled device that ends the run with exit 1, a stall line and the driver's
# watchdog message on stderr, within seconds.
#
#   sh test_cli_run.sh path/to/proxyscope
set -eu

bin=${1:?usage: test_cli_run.sh PROXYSCOPE}
. "$(dirname "$0")/../cli_harness.sh"

# usage_error TEXT ARGS...: exit 2 and a stderr line starting "error:" that contains TEXT.
usage_error() {
	text=$1
	shift
	run 2 "$@" || return 0
	if ! grep -q '^error: .*'"$text" "$err"; then
		fail "proxyscope $*: no 'error: ...$text' line on stderr"
	fi
	if [ -s "$out" ]; then
		fail "proxyscope $*: a usage error wrote to stdout"
	fi
}

# --- help --------------------------------------------------------------------------------------
if run 0 --help; then
	grep -q '^usage: proxyscope' "$out" || fail "--help: no usage line"
	grep -q '^   run ' "$out" || fail "--help: 'run' is not listed"
fi
if run 0 -h; then
	grep -q '^usage: proxyscope' "$out" || fail "-h: no usage line"
fi
if run 0 help run; then
	grep -q '^usage: proxyscope run' "$out" || fail "help run: no run usage line"
fi
if run 0 run --help; then
	grep -q '^usage: proxyscope run' "$out" || fail "run --help: no usage line"
	grep -q -- '--inject SPEC' "$out" || fail "run --help: --inject is not documented"
	grep -q 'DURATION is' "$out" || fail "run --help: DURATION is not documented"
fi
if run 0 record --help; then
	grep -q -- '--buffer-size SIZE' "$out" || fail "record --help: --buffer-size is not documented"
fi
if run 0 run --help; then
	grep -q -- '--snapshot ' "$out" || fail "run --help: --snapshot is not documented"
	grep -q -- '--buffer-size SIZE' "$out" || fail "run --help: --buffer-size is not documented"
fi
if run 0 --version; then
	grep -q '^proxyscope version ' "$out" || fail "--version: no version line"
fi

# --- usage errors ------------------------------------------------------------------------------
usage_error "unknown command 'frobnicate'" frobnicate
usage_error "unknown option '--frobnicate'" run --frobnicate
usage_error "unknown option '--bogus'" --bogus
usage_error "'0' is not in 1..4294967295" run --ranks 0
usage_error "--ranks" run --ranks 0
usage_error "'12XB'" run --bytes 12XB
usage_error "'forever'" run --timeout forever
usage_error "'2' has no unit" run --timeout 2
usage_error "'bogus'" run --inject bogus:rank=1
usage_error "rank 9 out of range" run --no-trace --ranks 4 --inject device-stall:rank=9,exec=1
usage_error "requires a value" run --ops
usage_error "unexpected argument 'extra'" run extra
usage_error "--buffer-size: '1k' is not in" run --buffer-size 1k
usage_error "--buffer-size" run --buffer-size lots
usage_error "--snapshot: there is no trace with --no-trace" run --no-trace --snapshot
usage_error "--buffer-size: there is no trace with --no-trace" run --no-trace --buffer-size 8MiB
usage_error "--buffer-size" record --buffer-size 3G -- /bin/true
if run 2; then
	grep -q '^usage: proxyscope' "$err" || fail "no command: no usage line on stderr"
fi

# --- a healthy run -----------------------------------------------------------------------------
if run 0 run --no-trace --ranks 4 --ops 20; then
	grep -q '^execs: *80 / 80 completed' "$out" || fail "healthy run: not 80 / 80 execs"
	grep -q ', 0 mismatches' "$out" || fail "healthy run: mismatches not reported as 0"
	grep -q '^result: *ok' "$out" || fail "healthy run: result is not ok"
	if grep -q '^first timeout:' "$out"; then
		fail "healthy run: printed a first timeout line"
	fi
fi

# --- --json ------------------------------------------------------------------------------------
if run 0 run --no-trace --ranks 4 --ops 20 --bytes 4KiB --json; then
	python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["command"] == "run", d["command"]
assert d["args"]["ranks"] == 4 and d["args"]["bytes"] == 4096, d["args"]
r = d["result"]
assert r["ok"] is True, r
assert r["execs_completed"] == 80 == r["execs_total"], r
assert r["mismatches"] == 0 and r["first_failure"] is None, r
assert r["bytes_verified"] == 80 * 4096, r
assert d["stats"]["watchdog_timeouts"] == 0, d["stats"]
' <"$out" || fail "--json: the output does not parse or has wrong fields"
fi

# --- a stalled device --------------------------------------------------------------------------
start=$(date +%s)
if run 1 run --no-trace --inject device-stall:rank=1,exec=3 --timeout 300ms --ops 10; then
	elapsed=$(($(date +%s) - start))
	[ "$elapsed" -le 10 ] || fail "stalled run: took ${elapsed}s"
	# The first timeout recorded: every rank of the ring times out on exec 3 in the same
	# window, and which one is recorded first is a race (usually rank 0, 1 or 2 in the network
	# stage; rank 3 waits in the barrier) - so it is never called the stall.
	grep -Eq '^first timeout: rank [0-3] exec 3 (network|barrier) stage \((NETWORK|BARRIER) task\): ' \
		"$out" || fail "stalled run: no 'first timeout: rank R exec 3 ...' line"
	! grep -q '^stall:' "$out" || fail "stalled run: a 'stall:' line names a rank the watchdog may not"
	grep -q '^inject: *device-stall:rank=1,exec=3$' "$out" ||
		fail "stalled run: the injected fault on rank 1 is not reported"
	grep -q '^failures: [1-4] of 4 ranks stopped on an error ([1-4] timeouts*)$' "$out" ||
		fail "stalled run: no failures count line"
	grep -q 'Timeout exceeded' "$err" || fail "stalled run: no 'Timeout exceeded' on stderr"
	grep -q '^result: *FAILED' "$out" || fail "stalled run: result is not FAILED"
fi
if run 1 run --no-trace --inject device-stall:rank=1,exec=3 --timeout 300ms --ops 10 --json; then
	python3 -c '
import json, sys
d = json.load(sys.stdin)
f = d["result"]["first_failure"]
assert d["result"]["ok"] is False
assert f["rank"] in range(4) and f["exec"] == 3 and f["status"] == -110, f
assert f["stage"] in ("network", "barrier") and f["task_type"] in ("NETWORK", "BARRIER"), f
assert f["error"], f
assert d["result"]["timeouts"] >= 1 and d["stats"]["watchdog_timeouts"] >= 1, d
assert d["args"]["inject"] == ["device-stall:rank=1,exec=3"], d["args"]
' <"$out" || fail "stalled --json: the output does not parse or has wrong fields"
fi

# --- several processes over libfabric (when the build has the ofi backend) ----------------------
if [ "${PROXYSCOPE_TEST_WITH_OFI:-1}" = 1 ]; then
	usage_error "no provider 'nope'" run --no-trace --backend ofi --provider nope
	usage_error "no network backend named 'nope'" run --no-trace --backend nope
	usage_error "only the ofi backend has providers" run --no-trace --provider tcp
	usage_error "procs=2 needs the ofi backend" run --no-trace --procs 2
	usage_error "a proxy's ranks would span" run --no-trace --backend ofi --procs 2 --ranks 2
	usage_error "needs ranks spread over at least 2 processes" \
		run --no-trace --backend ofi --inject kill:rank=1,exec=1
	usage_error "net-drop" run --no-trace --backend ofi --inject net-drop:rank=1,exec=1
	if run 0 run --no-trace --backend ofi --procs 2 --ranks 4 --ops 20 --pattern alltoall --json
	then
		python3 -c '
import json, sys
d = json.load(sys.stdin)
a, r = d["args"], d["result"]
assert a["backend"] == "ofi" and a["procs"] == 2 and a["pattern"] == "alltoall", a
assert r["ok"] is True and r["execs_completed"] == 80 and r["mismatches"] == 0, r
assert r["bytes_verified"] == 80 * 3 * 65536, r
p = d["processes"]
assert [(x["first_rank"], x["last_rank"], x["exit_status"], x["reported"]) for x in p] == \
	[(0, 1, 0, True), (2, 3, 0, True)], p
' <"$out" || fail "--procs 2 --json: wrong fields"
	fi
	start=$(date +%s)
	if run 1 run --no-trace --backend ofi --procs 2 --ranks 4 --ops 20 --inject kill:rank=3,exec=5
	then
		elapsed=$(($(date +%s) - start))
		[ "$elapsed" -le 10 ] || fail "killed process: the run took ${elapsed}s"
		grep -Eq '^process 1 \(pid [0-9]+, ranks 2\.\.3\) died: killed by signal 9' "$out" ||
			fail "killed process: no 'process 1 ... died: killed by signal 9' line"
		# ESRCH at exec 5, which rank 3 was starting, or at exec 4: an exec's barrier task runs
		# beside its network task, so rank 3 may pass barrier 4 while rank 1's exec-4 data to
		# rank 2 (same process) is still in flight; that send then fails with the process.
		grep -Eq '^first failure: rank [01] exec [45] .*: No such process' "$out" ||
			fail "killed process: the survivors' failure is not ESRCH at exec 4 or 5"
		grep -q "rank [23]'s process (pid [0-9]*) died" "$err" ||
			fail "killed process: no log line naming the dead peer"
	fi
fi

harness_finish "proxyscope CLI"
