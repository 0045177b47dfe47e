# SPDX-License-Identifier: MIT
# The tail-first verdict is the full read's (issue 23, point 2): `watchdog --json` tail-first
# against `watchdog --full --json` on traces of the real driver recorded here - a device stall,
# a healthy run, slow progress, a lost message, a death across processes, a lossy recording, a
# flight-recorder snapshot - and on copies of the stall's trace without its index, with a bad
# index, cut short (damaged) and given twice as two traces. Identical apart from how much was
# read (tail_compare.py), starting both from the default window and from 20 ms, so that the
# window widens on these short traces: the sessions use 16 KiB packets, as a long recording's
# tail is many packets. TAIL_TEST_NO_WIDEN=1 takes the first window's verdict
# (PROXYSCOPE_TAIL_NO_WIDEN): then this test must fail, which shows the widening is needed.
# Usage: sh test_tail_verdict.sh PROXYSCOPE (under tests/private_lttng.sh).
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli_harness.sh"
need_lttng

lttng-sessiond --daemonize >/dev/null 2>&1 || { echo "FAIL: no session daemon"; exit 1; }

# record NAME SUBBUFS RUN_ARGS...: `proxyscope run --no-trace` recorded by a session of 16 KiB
# packets (SUBBUFS of them per CPU) into $tmp/NAME
record() {
	name=$1 nsub=$2
	shift 2
	lttng create "tail-$name" -o "$tmp/$name" >/dev/null &&
	lttng enable-channel -u c --subbuf-size 16384 --num-subbuf "$nsub" >/dev/null &&
	lttng enable-event -u -c c 'encproxy:*' >/dev/null &&
	lttng enable-event -u -c c 'encnet:*' >/dev/null &&
	lttng enable-event -u -c c 'encdev:*' >/dev/null &&
	lttng enable-event -u -c c 'bananaphone:*' >/dev/null &&
	lttng add-context -u -c c -t vpid -t vtid -t procname >/dev/null &&
	lttng start >/dev/null || { fail "cannot set up the session of $name"; return 1; }
	"$bin" run --no-trace -q "$@" >"$tmp/$name.run" 2>&1
	lttng stop >/dev/null
	lttng destroy >/dev/null
	[ -n "$(find "$tmp/$name" -name metadata)" ] || fail "$name: nothing recorded"
}

# compare NAME TRACE...: the verdicts, tail-first from the default window and from 20 ms
compare() {
	name=$1
	shift
	st_full=0
	"$bin" watchdog --full --json "$@" >"$tmp/$name.full" 2>"$tmp/$name.full.err" || st_full=$?
	for w in default 20000000; do
		st=0
		if [ "$w" = default ]; then
			env PROXYSCOPE_TAIL_NO_WIDEN="${TAIL_TEST_NO_WIDEN:-0}" \
				"$bin" watchdog --json "$@" >"$tmp/$name.tail" 2>"$tmp/$name.tail.err" || st=$?
		else
			env PROXYSCOPE_TAIL_NO_WIDEN="${TAIL_TEST_NO_WIDEN:-0}" PROXYSCOPE_TAIL_WINDOW_NS=$w \
				"$bin" watchdog --json "$@" >"$tmp/$name.tail" 2>"$tmp/$name.tail.err" || st=$?
		fi
		if [ "$st" -ne "$st_full" ]; then
			cp "$tmp/$name.tail.err" "$err"
			fail "$name (window $w): exit $st, --full $st_full"
		elif [ "$st_full" -le 3 ] && [ "$st_full" -ne 2 ]; then
			python3 "$here/tail_compare.py" "$tmp/$name.full" "$tmp/$name.tail" "$name (window $w)" ||
				failed=$((failed + 1))
		fi
	done
}

dir_of() { dirname "$(find "$tmp/$1" -name metadata | head -1)"; }

# the recordings: 4 ranks unless said, 1 KiB messages, execs slowed by the device's compute so
# that the trace spans seconds (the window is doubled from 20 ms to them)
record stall 2048 --ops 3000 --bytes 1k --compute 300us --inject device-stall:rank=2,exec=2990
record healthy 2048 --ops 2000 --bytes 1k --compute 300us
record slow 2048 --ops 1500 --bytes 1k --compute 300us --inject slow-progress:rank=1,us=300
record netdrop 2048 --ops 2000 --bytes 1k --compute 300us --inject net-drop:rank=1,exec=1990
record death 2048 --backend ofi --procs 2 --ops 1500 --bytes 1k --compute 300us \
	--inject kill:rank=3,exec=1490
record lossy 4 --ops 3000 --bytes 1k --inject device-stall:rank=0,exec=2990
for n in stall healthy slow netdrop death lossy; do
	compare "$n" "$tmp/$n"
done

# a flight-recorder snapshot, as run --snapshot records it (its own session)
"$bin" run -q --snapshot -o "$tmp/snap" --ops 2000 --bytes 1k --compute 300us \
	--inject device-stall:rank=1,exec=1990 >"$tmp/snap.run" 2>&1
snap=$(find "$tmp/snap" -name metadata | head -1)
if [ -n "$snap" ]; then compare snapshot "$tmp/snap"; else fail "snapshot: nothing recorded"; fi

# copies of the stall's trace: no index, a bad index (an entry's offset moved), cut short, twice
src=$(dir_of stall)
for c in noindex badindex damaged; do cp -r "$src" "$tmp/$c"; done
rm -rf "$tmp/noindex/index"
python3 - "$tmp/badindex/index" <<'PY'
import os, struct, sys
d = sys.argv[1]
for f in sorted(os.listdir(d)):
    b = bytearray(open(os.path.join(d, f), "rb").read())
    esz = struct.unpack(">I", b[12:16])[0]
    if (len(b) - 16) // esz > 2:  # the second entry's offset one packet off
        off = struct.unpack(">Q", b[16 + esz:24 + esz])[0]
        b[16 + esz:24 + esz] = struct.pack(">Q", off + 16384)
        open(os.path.join(d, f), "wb").write(b)
        break
PY
s=$(ls "$tmp/damaged" | grep -v -e metadata -e index | head -1)
size=$(stat -c %s "$tmp/damaged/$s")
truncate -s $((size / 2)) "$tmp/damaged/$s"
compare noindex "$tmp/noindex"
compare badindex "$tmp/badindex"
compare damaged "$tmp/damaged"
mkdir -p "$tmp/twice/a" "$tmp/twice/b"
cp -r "$src" "$tmp/twice/a/" && cp -r "$src" "$tmp/twice/b/"
compare twice "$tmp/twice"

harness_finish
