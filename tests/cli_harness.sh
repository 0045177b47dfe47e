# SPDX-License-Identifier: MIT
# The shell harness of the CLI tests (sourced, POSIX sh): a temporary directory removed on exit,
# $out / $err for the last command's output, fail() to count a failed check (showing that
# output), run() to run the binary under test ($bin) and check its exit status, py() to check
# JSON output with python, and harness_finish() to end with the tally; need_lttng() skips a
# script that records.

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
out=$tmp/out
err=$tmp/err
failed=0

# need_lttng: skip the script (exit 77) when lttng-tools is not installed.
need_lttng() {
	if ! command -v lttng >/dev/null 2>&1 || ! command -v lttng-sessiond >/dev/null 2>&1; then
		echo "skip: lttng is not installed"
		exit 77
	fi
}

fail() {
	echo "FAIL: $*" >&2
	echo "--- stdout:" >&2
	head -60 "$out" >&2
	echo "--- stderr:" >&2
	tail -40 "$err" >&2
	failed=$((failed + 1))
}

# run EXPECTED_STATUS ARGS...: run the binary (stdin from $stdin, else /dev/null), keep
# stdout/stderr, check the exit status.
run() {
	expected=$1
	shift
	status=0
	"$bin" "$@" <"${stdin:-/dev/null}" >"$out" 2>"$err" || status=$?
	if [ "$status" -ne "$expected" ]; then
		fail "proxyscope $*: exit $status, expected $expected"
		return 1
	fi
	return 0
}

# py FILE... <<PY: run python checks with j[0], j[1], ... = the JSON documents in the files.
py() {
	python3 -c '
import json, sys
j = [json.load(open(p)) for p in sys.argv[1:]]
exec(sys.stdin.read())
' "$@"
}

# harness_finish WHAT: exit 1 when a check failed, else say that every WHAT check passed.
harness_finish() {
	if [ "$failed" -ne 0 ]; then
		echo "$failed check(s) failed" >&2
		exit 1
	fi
	echo "all $1 checks passed"
}
