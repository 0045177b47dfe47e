#!/bin/sh
# SPDX-License-Identifier: MIT
# A recording cut mid-run knows it: `record -- run` interrupted as a terminal's Ctrl-C does
# (SIGINT to the whole process group) while tasks are in flight; then `watchdog` on the trace -
# and on a copy of its directory - exits 0 or 3, names the cut, and names no stall or root cause
# that the cut made; babeltrace2 still reads the directory. The same for `run` interrupted.
#
#   sh test_field_record_cut.sh path/to/proxyscope
bin=${1:?usage: test_field_record_cut.sh PROXYSCOPE}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli_harness.sh"
. "$here/../wait.sh"
need_lttng
command -v babeltrace2 >/dev/null 2>&1 || { echo "skip: babeltrace2 is not installed"; exit 77; }

# The recording in a session of its own, SIGINT to the group once events are flowing (its trace
# directory has a stream with data), as a terminal would; the default SIGINT disposition restored
# (a background job of a non-interactive shell has it ignored).
cat >"$tmp/cut.py" <<'PY'
import glob, os, signal, subprocess, sys, time
trace, argv = sys.argv[1], sys.argv[2:]
p = subprocess.Popen(argv, start_new_session=True,
                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
end = time.monotonic() + 120
def flowing():
    return any(os.path.getsize(f) > 0 for f in glob.glob(trace + "/ust/uid/*/64-bit/channel*")
               + glob.glob(trace + "/ust/uid/*/64-bit/proxyscope*"))
while p.poll() is None and not flowing() and time.monotonic() < end:
    time.sleep(0.1)
time.sleep(0.5)
os.killpg(p.pid, signal.SIGINT)
sys.exit(p.wait())
PY

python3 "$tmp/cut.py" "$tmp/cut" "$bin" record -o "$tmp/cut" -- \
	"$bin" run --no-trace -q --ranks 4 --ops 100000000 >"$out" 2>"$err"
[ -e "$tmp/cut/proxyscope-cut" ] || fail "record: no cut marker in $tmp/cut"
grep -q ' interrupted$' "$tmp/cut/proxyscope-cut" || fail "record: the cut is not 'interrupted'"
cp -r "$tmp/cut" "$tmp/copy"

# `run` itself interrupted the same way: exit 130, and its trace knows it was cut.
status=0
python3 "$tmp/cut.py" "$tmp/runcut" "$bin" run -q --ranks 4 --ops 100000000 -o "$tmp/runcut" \
	>"$out" 2>"$err" || status=$?
[ "$status" = 130 ] || fail "run: exit $status after SIGINT, expected 130"
grep -qs ' interrupted$' "$tmp/runcut/proxyscope-cut" || fail "run: no 'interrupted' cut marker"

for d in cut copy runcut; do
	status=0
	"$bin" watchdog "$tmp/$d" >"$out" 2>"$err" || status=$?
	case $status in 0 | 3) ;; *) fail "watchdog $d: exit $status, expected 0 or 3" ;; esac
	grep -q '^watchdog: the recording was cut at .* UTC (interrupted)' "$out" ||
		fail "watchdog $d: the cut is not named"
	grep -q 'root cause: ' "$out" && fail "watchdog $d: a root cause the cut made"
done
babeltrace2 "$tmp/copy" >/dev/null 2>"$err" || fail "babeltrace2 on the copied directory"
harness_finish "field record cut"
