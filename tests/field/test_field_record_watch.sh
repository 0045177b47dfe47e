#!/bin/sh
# SPDX-License-Identifier: MIT
# `watch --json -- CMD`: what proxyscope writes on stdout is JSON Lines only, each line parsed
# by python3's json (the trace's place goes to stderr with the other human lines). CMD's own
# stdout is CMD's: here it is sent to stderr, as a user piping into jq would.
#
#   sh test_field_record_watch.sh path/to/proxyscope
bin=${1:?usage: test_field_record_watch.sh PROXYSCOPE}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli_harness.sh"
need_lttng

status=0
"$bin" watch --threshold 500ms --json -o "$tmp/w" -- sh -c "exec '$bin' run --no-trace -q \
	--ranks 2 --ops 2000 --inject device-stall:rank=1,exec=50 >&2" >"$out" 2>"$err" || status=$?
[ "$status" = 1 ] || fail "watch: exit $status, expected 1 (the run's own status: it timed out)"
python3 - "$out" <<'PY' || fail "watch --json: stdout is not JSON Lines"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
events = [json.loads(l)["event"] for l in lines]  # every line, none skipped
assert "finding" in events, "no finding among %r" % events
PY
grep -q "^trace: $tmp/w\$" "$err" || fail "watch --json: the trace line is not on stderr"
harness_finish "field record watch"
