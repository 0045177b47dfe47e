# SPDX-License-Identifier: MIT
# A trace whose metadata is CTF 2 (LTTng 2.15's default; a JSON text sequence, RFC 7464: each
# record starts with the RS byte 0x1E), written here by hand as the CTF 2 specification lays
# it out: one `error:` line saying what it is and the two ways out, exit 2 - for the report
# commands on a trace directory, and on a packetized metadata stream too.
# Usage: sh test_ctf2.sh PROXYSCOPE
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli_harness.sh"

t=$tmp/ctf2
mkdir -p "$t"
printf '\036{"type":"preamble","version":2}\n' >"$t/metadata"
printf '\036{"type":"trace-class","packet-header-field-class":{"type":"structure"}}\n' >>"$t/metadata"
printf '\036{"type":"clock-class","name":"monotonic","frequency":1000000000}\n' >>"$t/metadata"
printf '\036{"type":"data-stream-class","default-clock-class-name":"monotonic"}\n' >>"$t/metadata"
: >"$t/stream_0"

check_error() { # what: the one error line of the last run
	lines=$(wc -l <"$err")
	[ "$lines" -eq 1 ] || fail "$1: $lines lines on stderr, expected 1"
	grep -q "^error: .*CTF 2 (a JSON text sequence)" "$err" || fail "$1: does not say CTF 2"
	grep -q "lttng create --trace-format=ctf-1.8" "$err" || fail "$1: no --trace-format=ctf-1.8"
	grep -q "babeltrace2 >= 2.1" "$err" || fail "$1: no babeltrace2 >= 2.1"
}

for cmd in watchdog report stats; do
	run 2 "$cmd" "$t" && check_error "$cmd"
done
run 2 watchdog --full --json "$t" && check_error "watchdog --full --json"
[ -s "$out" ] && fail "watchdog --json printed a document for an unreadable trace"

# the same records in one metadata packet (the packetized form: CTF 1.8's header, magic first)
p=$tmp/ctf2p
mkdir -p "$p"
python3 - "$t/metadata" "$p/metadata" <<'PY'
import struct, sys
text = open(sys.argv[1], "rb").read()
content = 37 + len(text)
size = (content + 7) // 8 * 8
hdr = struct.pack("<I16sIII5B", 0x75D11D57, bytes(16), 0, content * 8, size * 8, 0, 0, 0, 1, 8)
open(sys.argv[2], "wb").write(hdr + text + bytes(size - content))
PY
: >"$p/stream_0"
run 2 watchdog "$p" && check_error "packetized"

harness_finish ctf2
