#!/bin/sh
# SPDX-License-Identifier: MIT
# `proxyscope run --timeline-gzip`: the chrome timeline is DIR/timeline.json.gz, gzip (magic,
# gzip -t) holding the Trace Event JSON, named so in --json's trace.timeline_chrome; the HTML
# timeline stays plain (a browser opens no .html.gz from disk); without the option nothing is
# compressed. Runs under tests/private_lttng.sh (a session daemon of its own).
#
#   sh test_run_gz.sh PROXYSCOPE SOURCE_DIR
set -eu

bin=${1:?usage: test_run_gz.sh PROXYSCOPE SOURCE_DIR}
src=${2:?usage: test_run_gz.sh PROXYSCOPE SOURCE_DIR}
. "$src/tests/cli_harness.sh"
need_lttng

d=$tmp/run
if run 0 run --json --timeline-gzip -o "$d" --ranks 2 --ops 10; then
	cp "$out" "$tmp/run.json"
	[ -e "$d/timeline.json" ] && fail "run --timeline-gzip: a plain timeline.json was written"
	magic=$(od -An -tx1 -N2 "$d/timeline.json.gz" 2>/dev/null | tr -d ' ')
	[ "$magic" = 1f8b ] || fail "run --timeline-gzip: timeline.json.gz has no gzip magic"
	gzip -t "$d/timeline.json.gz" 2>"$err" || fail "run --timeline-gzip: gzip -t fails"
	gzip -dc "$d/timeline.json.gz" >"$tmp/timeline.json" 2>"$err" || true
	py "$tmp/timeline.json" "$tmp/run.json" <<'PY' || fail "run --timeline-gzip: see above"
t, d = j
assert t["traceEvents"], "no trace events in the timeline"
assert d["trace"]["timeline_chrome"].endswith("/timeline.json.gz"), d["trace"]
assert d["trace"]["timeline_html"].endswith("/timeline.html"), d["trace"]
PY
	! gzip -t "$d/timeline.html" 2>/dev/null || fail "run --timeline-gzip: the HTML got gzip"
fi
if run 0 run -q -o "$tmp/plain" --ranks 2 --ops 5; then
	[ -e "$tmp/plain/timeline.json" ] && [ ! -e "$tmp/plain/timeline.json.gz" ] ||
		fail "run without --timeline-gzip: timeline.json is not plain"
fi
harness_finish "run --timeline-gzip"
