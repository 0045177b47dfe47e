#!/bin/sh
# SPDX-License-Identifier: MIT
# Hostile inputs and outputs, one check per case (issue 14): each ends in one "error:" line
# naming the file and why with exit 2 and nothing written, or in a correct result - never a
# hang, an abort, a babeltrace2 backtrace or *.btr file, a replaced device node, FIFO or
# symbolic link, nor a file left behind.
#
# Reading: a metadata file cut inside a packet (checked before babeltrace2 sees it; and, with
# the check off, babeltrace2's own hang bounded by the open timeout); an event context holding
# a sequence (detected; and, with the check off, babeltrace2's abort caught); an index file
# that disagrees with its stream (ignored: babeltrace2 rebuilds it); a FIFO, /dev/zero and a
# newline-less stdin as text; a symbolic link to a trace (every command); a trace below the
# search depth; text values out of range; time going backwards.
# Writing: -o a FIFO, a character device, /dev/stdout, a symbolic link, beside a planted or stray
# FILE.tmp, an input file, a file inside an input trace; Ctrl-C during the export.
#
#   sh test_hostile_input.sh PROXYSCOPE FIXTURES BABELTRACE2_CTF_TRACES
set -eu

bin=${1:?usage: test_hostile_input.sh PROXYSCOPE FIXTURES TRACES}
fx=${2:?usage: test_hostile_input.sh PROXYSCOPE FIXTURES TRACES}
bt=${3:?usage: test_hostile_input.sh PROXYSCOPE FIXTURES TRACES}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
fx=$(cd "$fx" && pwd)
if [ ! -d "$bt/succeed" ]; then
	echo "FAIL: babeltrace2's CTF test traces are not at '$bt'" >&2
	exit 1
fi
bt=$(cd "$bt" && pwd)
. "$(dirname "$0")/../cli_harness.sh"
. "$(dirname "$0")/../wait.sh"
healthy=$fx/healthy.txt
mkdir "$tmp/cwd" "$tmp/tmpdir"
export TMPDIR="$tmp/tmpdir"

# bad TEXT ARGS...: exit 2 within 30 s, exactly one stderr line "error: ...TEXT", nothing on
# stdout, nothing left in the working directory or TMPDIR.
bad() {
	text=$1
	shift
	status=0
	(cd "$tmp/cwd" && timeout -s KILL 30 "$bin" "$@" <"${stdin:-/dev/null}" >"$out" 2>"$err") ||
		status=$?
	if [ "$status" -ne 2 ]; then
		fail "proxyscope $*: exit $status, expected 2"
		return 0
	fi
	grep -q "^error: .*$text" "$err" || fail "proxyscope $*: no 'error: ...$text' line"
	[ "$(wc -l <"$err")" -eq 1 ] || fail "proxyscope $*: not exactly one line on stderr"
	[ -s "$out" ] && fail "proxyscope $*: bad input wrote to stdout"
	[ -z "$(ls -A "$tmp/cwd" "$tmp/tmpdir" | grep -v '^/\|^$')" ] ||
		fail "proxyscope $*: left files behind: $(ls -A "$tmp/cwd" "$tmp/tmpdir")"
	return 0
}

# --- reading CTF -------------------------------------------------------------------------------
base=$bt/succeed/trace-with-index # packetized metadata, 4 streams with their index files
cp -r "$base" "$tmp/cut" && chmod -R u+w "$tmp/cut"
head -c 5000 "$base/metadata" >"$tmp/cut/metadata"
bad "metadata packet 1 at byte 4096 is cut short" report "$tmp/cut"
mkdir "$tmp/beside" && cp -r "$tmp/cut" "$tmp/beside/a" && cp -r "$base" "$tmp/beside/b"
bad "'$tmp/beside/a/metadata': metadata packet 1" watchdog "$tmp/beside"
printf '/* CTF 1.8 */\ntrace { major = 1; minor = 8;\n' >"$tmp/cut/metadata"
bad "metadata '$tmp/cut/metadata': it is cut short" stats "$tmp/cut"

# a trace of ours, recorded (babeltrace2 hangs on its metadata cut, not on the test traces')
need_lttng
timeout 120 "$bin" run -o "$tmp/rec" --ranks 2 --ops 20 >"$out" 2>"$err" ||
	fail "proxyscope run: could not record a trace"
rec=$(dirname "$(find "$tmp/rec" -name metadata | head -1)")
run 0 report "$rec" && sed 1d "$out" >"$tmp/rec-report.body"
cp -r "$rec" "$tmp/reccut"
head -c 10000 "$rec/metadata" >"$tmp/reccut/metadata"
bad "metadata packet 2 at byte 8192 is cut short" report "$tmp/reccut"
# babeltrace2's own hang on it, bounded by the open timeout
PROXYSCOPE_CTF_CHECK=0 PROXYSCOPE_OPEN_TIMEOUT=2 \
	bad "'$tmp/reccut': babeltrace2 did not open it within 2 s" report "$tmp/reccut"
# beside good traces: the one cut short is named
mkdir "$tmp/recbeside" && cp -r "$rec" "$tmp/recbeside/good" && cp -r "$tmp/reccut" "$tmp/recbeside/cut"
PROXYSCOPE_CTF_CHECK=0 PROXYSCOPE_OPEN_TIMEOUT=2 \
	bad "'$tmp/recbeside/cut': babeltrace2 did not open it" report "$tmp/recbeside"

bad "its event context holds a sequence" report "$bt/succeed/meta-ctx-sequence"
# babeltrace2's own abort on it: one line quoting the assertion, no backtrace, no *.btr
PROXYSCOPE_CTF_CHECK=0 bad "babeltrace2 aborted while opening it (.*Assertion" \
	report "$bt/succeed/meta-ctx-sequence"
PROXYSCOPE_CTF_CHECK=0 bad "babeltrace2 aborted" watchdog --json "$bt/succeed/meta-ctx-sequence"

# 4 bytes flipped in an index: the index is ignored, the trace read whole (it has no event of ours)
cp -r "$base" "$tmp/flip" && chmod -R u+w "$tmp/flip"
printf '\377\377\377\377' | dd of="$tmp/flip/index/ust_channel_1.idx" bs=1 seek=16 conv=notrunc 2>/dev/null
bad "no proxyscope events in '$tmp/flip'" report "$tmp/flip"
cp -r "$rec" "$tmp/recflip"
for idx in "$tmp/recflip"/index/*.idx; do
	printf '\377\377\377\377' | dd of="$idx" bs=1 seek=16 conv=notrunc 2>/dev/null
done
# read without its index, a stream cut short is named in the trace, not in a private copy
cp -r "$tmp/recflip" "$tmp/recflipcut"
stream=$(ls "$tmp/recflipcut"/proxyscope_* | tail -1)
head -c 1000 "$stream" >"$tmp/cutstream" && cat "$tmp/cutstream" >"$stream"
bad "CTF stream file '$stream'" report "$tmp/recflipcut"
if run 0 report "$tmp/recflip"; then
	# the same report but for the trace's path on its first line
	sed 1d "$out" | cmp -s - "$tmp/rec-report.body" ||
		fail "report with a bad index differs from the trace's"
fi
bad "no proxyscope events in '$tmp/flip'" export --format csv -o "$tmp/x.csv" "$tmp/flip"
[ -e "$tmp/x.csv" ] && fail "export of a trace without our events left its output"

# a FIFO as an index file, or called metadata beside a trace: never opened (it would block)
cp -r "$rec" "$tmp/recfifo"
idx=$(ls "$tmp/recfifo"/index/*.idx | head -1)
rm "$idx" && mkfifo "$idx"
mkdir "$tmp/recfifo/sub" && mkfifo "$tmp/recfifo/sub/metadata"
status=0
timeout -s KILL 60 "$bin" report "$tmp/recfifo" >"$out" 2>"$err" </dev/null || status=$?
[ "$status" -eq 0 ] || fail "report of a trace with a FIFO index: exit $status, expected 0"

# a FIFO or a device inside a trace
cp -r "$base" "$tmp/fifo-trace" && chmod -R u+w "$tmp/fifo-trace"
mkfifo "$tmp/fifo-trace/stream_x"
bad "'stream_x' in it is not a regular file" report "$tmp/fifo-trace"

# a symbolic link to a trace is a trace for every command
ln -s "$base" "$tmp/link"
for cmd in report timeline stats watchdog; do
	bad "no proxyscope events in '$tmp/link'" "$cmd" "$tmp/link"
done
bad "no proxyscope events in '$tmp/link'" export --format chrome -o "$tmp/x.json" "$tmp/link"
mkdir "$tmp/linkparent" && ln -s "$base" "$tmp/linkparent/t"
bad "no proxyscope events in '$tmp/linkparent'" report "$tmp/linkparent"
ln -s . "$tmp/linkparent/loop" # a loop is walked once
bad "no proxyscope events in '$tmp/linkparent'" report "$tmp/linkparent"

# deeper than the search goes: say so
deep=$tmp/deep/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17
mkdir -p "$deep" && cp "$base/metadata" "$deep/"
bad "within 16 directory levels under it, and deeper ones are not searched" report "$tmp/deep"

# --- reading text --------------------------------------------------------------------------------
mkfifo "$tmp/fifo"
bad "'$tmp/fifo' is not a trace: a FIFO" report "$tmp/fifo"
bad "'/dev/zero' is not a trace: a character device" stats /dev/zero
bad "is not a trace: a FIFO" export --format csv -o "$tmp/x.csv" "$tmp/fifo"
stdin=/dev/zero bad "-:1: a line longer than 16777216 bytes" report -

oor() { # oor FIELD VALUE TEXT: the first line with FIELD set to VALUE is an error naming it
	n=$(grep -n "$1 = [0-9]" "$healthy" | head -1 | cut -d: -f1)
	{ head -$((n - 1)) "$healthy"; sed -n "${n}p" "$healthy" | sed "s/$1 = [0-9]*/$1 = $2/"; } \
		>"$tmp/oor.txt"
	bad "$tmp/oor.txt:$n: value out of range: $3" report "$tmp/oor.txt"
}
oor task_id 18446744073709551616 "task_id does not fit in 64 bits"
oor task_id 18446744073709551615 "task_id is above 2^63-1"
oor task_id -1 "task_id is negative"

# time going backwards: counted and reported, the report still made
{ head -20 "$healthy"; sed -n 2p "$healthy"; sed -n '21,$p' "$healthy"; } >"$tmp/back.txt"
if run 0 report "$tmp/back.txt"; then
	grep -q "^warning: $tmp/back.txt:21: 1 event is earlier than the event before it" "$err" ||
		fail "report of text going back in time: no warning naming line 21"
fi

# --- writing -----------------------------------------------------------------------------------
exp() { "$bin" export --format csv "$@"; }

# a FIFO is written into, not replaced
mkfifo "$tmp/out.fifo"
cat "$tmp/out.fifo" >"$tmp/from-fifo" &
reader=$!
status=0
timeout 60 "$bin" export --format csv -o "$tmp/out.fifo" "$healthy" >"$out" 2>"$err" || status=$?
wait $reader || true
[ "$status" -eq 0 ] || fail "export -o FIFO: exit $status"
[ -p "$tmp/out.fifo" ] || fail "export -o FIFO: the FIFO was replaced"
[ -s "$tmp/from-fifo" ] || fail "export -o FIFO: nothing came through the FIFO"

# a character device is written into: /dev/null stays, a full device fails with exit 1
if run 0 export --format csv -o /dev/null "$healthy"; then
	[ -c /dev/null ] || fail "export -o /dev/null: /dev/null is no longer a device"
fi
full=/dev/full
if [ "$(id -u)" -eq 0 ] && mknod "$tmp/full" c 1 7 2>/dev/null; then
	full=$tmp/full # as root a mistake would replace the real one
fi
if run 1 export --format csv -o "$full" "$healthy"; then
	[ -c "$full" ] || fail "export -o $full: the device was replaced"
	grep -q "^error: cannot write '$full': No space left on device" "$err" ||
		fail "export -o $full: no 'cannot write' line"
fi
ls "$tmp" | grep -q '^\.full\.' && fail "export -o $full left its temporary file"

# /dev/stdout is standard output: the export goes there, with no summary line mixed in
if run 0 export --format csv -o /dev/stdout "$healthy"; then
	head -1 "$out" | grep -q ',' || fail "export -o /dev/stdout: no CSV on stdout"
	grep -q 'timeline of' "$out" && fail "export -o /dev/stdout: the summary went into the export"
fi

# a symbolic link stays a link; its target gets the export, with its mode
: >"$tmp/target.csv"
chmod 640 "$tmp/target.csv"
ln -s target.csv "$tmp/link.csv"
if run 0 export --format csv -o "$tmp/link.csv" "$healthy"; then
	[ -L "$tmp/link.csv" ] || fail "export -o LINK: the link was replaced"
	[ -s "$tmp/target.csv" ] || fail "export -o LINK: its target is empty"
	[ "$(stat -c %a "$tmp/target.csv")" = 640 ] || fail "export -o LINK: the target lost its mode"
fi

# a planted FILE.tmp link is not written through; a stray FILE.tmp is not deleted
echo victim >"$tmp/victim"
ln -s victim "$tmp/planted.csv.tmp"
echo stray >"$tmp/stray.csv.tmp"
run 0 export --format csv -o "$tmp/planted.csv" "$healthy" || true
run 0 export --format csv -o "$tmp/stray.csv" "$healthy" || true
[ "$(cat "$tmp/victim")" = victim ] || fail "export wrote through a planted FILE.tmp link"
[ -L "$tmp/planted.csv.tmp" ] || fail "export removed the planted FILE.tmp link"
[ "$(cat "$tmp/stray.csv.tmp")" = stray ] || fail "export deleted a stray FILE.tmp"
[ -s "$tmp/planted.csv" ] && [ -s "$tmp/stray.csv" ] || fail "export -o FILE: no FILE written"

# an output that is an input is refused, the input left whole
cp "$healthy" "$tmp/input.txt"
bad "-o '$tmp/input.txt' is the input '$tmp/input.txt'" export --format csv -o "$tmp/input.txt" \
	"$tmp/input.txt"
cmp -s "$healthy" "$tmp/input.txt" || fail "export -o INPUT changed the input"
cp -r "$base" "$tmp/in-trace" && chmod -R u+w "$tmp/in-trace"
bad "is inside the input trace" export --format csv -o "$tmp/in-trace/metadata" "$tmp/in-trace"
bad "is inside the input trace" export --format csv -o "$tmp/in-trace/new.csv" "$tmp/in-trace"
cmp -s "$base/metadata" "$tmp/in-trace/metadata" || fail "export -o TRACE/metadata changed it"
[ -e "$tmp/in-trace/new.csv" ] && fail "export wrote a file into an input trace"

# Ctrl-C during the export (here: while it reads stdin) leaves nothing behind
mkdir "$tmp/int"
mkfifo "$tmp/int/in"
"$bin" export --format csv -o "$tmp/int/out.csv" - <"$tmp/int/in" >/dev/null 2>&1 &
pid=$!
exec 9>"$tmp/int/in"
head -50 "$healthy" >&9
# while it reads stdin: it has taken the 50 lines and waits for more
wait_for 30 blocked_reading_pipe $pid || fail "export never waited on its stdin"
kill -INT $pid
exec 9>&-
status=0
wait $pid || status=$?
[ "$status" -ne 0 ] || fail "export killed by SIGINT: exit 0"
left=$(ls -A "$tmp/int" | grep -v '^in$' || true)
[ -z "$left" ] || fail "export killed by SIGINT left: $left"

harness_finish "hostile input"
