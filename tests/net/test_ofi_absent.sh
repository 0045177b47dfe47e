#!/bin/sh
# SPDX-License-Identifier: MIT
# Without libfabric (hidden in a mount namespace of this test's own: /dev/null bound over the
# library, as root), the CLI still starts and runs the loop backend, and the ofi backend fails
# with one line naming the dlopen error (lib/net/ofi/ofi_dl.c loads libfabric at run time; when
# it was linked, every command failed before main). Then, with libfabric back, the same binary
# has none of it in its DT_NEEDED.   usage: test_ofi_absent.sh PROXYSCOPE
set -eu
bin=$1
. "$(dirname "$0")/../cli_harness.sh"
: >"$out"
: >"$err"

readelf -d "$bin" | grep -q 'NEEDED.*libfabric' && fail "$bin needs libfabric (readelf -d)"

if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
	echo "skip: hiding libfabric needs root (a mount namespace)"
	exit 77
fi
so=$(ldconfig -p | awk '$1 == "libfabric.so.1" { print $NF; exit }')
[ -n "$so" ] || { fail "ldconfig -p lists no libfabric.so.1"; harness_finish ofi_absent; }
so=$(readlink -f "$so")

# in_ns ARGS...: the CLI with libfabric hidden; stdout/stderr in $out/$err, the status in $status
in_ns() {
	status=0
	unshare -m sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' sh "$so" "$bin" "$@" \
		</dev/null >"$out" 2>"$err" || status=$?
}

in_ns --help
[ "$status" = 0 ] || fail "--help without libfabric: exit $status"
grep -q '^usage: proxyscope' "$out" || fail "--help without libfabric: no usage"

in_ns run --no-trace -q --ops 20
[ "$status" = 0 ] || fail "run (loop backend) without libfabric: exit $status"

for p in tcp shm; do
	what="run --backend ofi --provider $p without libfabric"
	in_ns run --no-trace -q --backend ofi --procs 2 --provider $p --ops 20
	[ "$status" = 2 ] || fail "$what: exit $status, expected 2"
	grep -q "cannot load libfabric: .*libfabric.so.1" "$err" ||
		fail "$what: no line naming the dlopen error"
	[ "$(wc -l <"$err")" -le 2 ] || fail "$what: more than the error and its hint"
done
harness_finish ofi_absent
