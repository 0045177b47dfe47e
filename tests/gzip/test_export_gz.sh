#!/bin/sh
# SPDX-License-Identifier: MIT
# `proxyscope export -o FILE.gz` writes gzip, for every format: the file starts with the gzip
# magic, `gzip -t` passes and its content is the plain export's, byte for byte; the guarantees
# of -o hold (a FIFO named *.gz is written into; a failed write leaves nothing; a plain name is
# not compressed). On the recorded text fixture of export's tests (no LTTng needed).
#
#   sh test_export_gz.sh PROXYSCOPE SOURCE_DIR
set -eu

bin=${1:?usage: test_export_gz.sh PROXYSCOPE SOURCE_DIR}
src=${2:?usage: test_export_gz.sh PROXYSCOPE SOURCE_DIR}
. "$src/tests/cli_harness.sh"
trace=$src/tests/export/stall_2ranks.txt

for f in chrome csv html; do
	run 0 export --format "$f" -o "$tmp/plain.$f" "$trace" || continue
	run 0 export --format "$f" -o "$tmp/out.$f.gz" "$trace" || continue
	magic=$(od -An -tx1 -N2 "$tmp/out.$f.gz" | tr -d ' ')
	[ "$magic" = 1f8b ] || fail "export --format $f -o out.$f.gz: no gzip magic ($magic)"
	gzip -t "$tmp/out.$f.gz" 2>"$err" || fail "export --format $f: gzip -t fails"
	gzip -dc "$tmp/out.$f.gz" >"$tmp/back.$f" 2>"$err" &&
		cmp -s "$tmp/back.$f" "$tmp/plain.$f" ||
		fail "export --format $f: the decompressed file differs from the plain export"
	! gzip -t "$tmp/plain.$f" 2>/dev/null || fail "export --format $f: a plain name got gzip"
done
ls -a "$tmp" | grep -q '^\.out\.' && fail "a temporary file was left beside the output"

# A FIFO named *.gz is written into (not replaced), compressed.
mkfifo "$tmp/pipe.gz"
gzip -dc <"$tmp/pipe.gz" >"$tmp/from-pipe" 2>"$tmp/pipe.err" &
reader=$!
run 0 export --format chrome -o "$tmp/pipe.gz" "$trace" || true
wait "$reader" || fail "the FIFO's reader did not get a whole gzip stream"
cmp -s "$tmp/from-pipe" "$tmp/plain.chrome" || fail "export into a FIFO named *.gz differs"

# A write that fails (a full device behind a *.gz name) exits 1 with an error line.
ln -s /dev/full "$tmp/full.gz"
if run 1 export --format chrome -o "$tmp/full.gz" "$trace"; then
	grep -q "^error: cannot write '.*full.gz': No space left on device" "$err" ||
		fail "export -o full.gz: no 'No space left on device' error"
fi

# Memory: the gzip layer adds its fixed buffers (zlib's window and state, 64 KiB of output), not
# a copy of the output: the peak RSS of the .gz export stays within 8 MiB of the plain one's
# (test_gz_stream shows it flat over 256 MiB of output).
rss() {
	/usr/bin/env time -f %M "$bin" export --format chrome -o "$1" "$trace" 2>&1 >/dev/null |
		tail -1
}
if [ -x /usr/bin/time ]; then
	p=$(rss "$tmp/rss.json")
	g=$(rss "$tmp/rss.json.gz")
	[ $((g - p)) -lt 8192 ] || fail "export -o .gz: peak RSS $g KiB against $p KiB plain"
fi
harness_finish "export .gz"
