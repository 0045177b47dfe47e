#!/bin/sh
# SPDX-License-Identifier: MIT
# The default run at 128 ranks loses no event in the buffers sized from its event rate
# (ctl/lttng/lttng_ctl.c, lt_buffers_want: 16 MiB per CPU on 2 CPUs, where 64 MiB a rank was
# once given): `proxyscope run --ranks 128`, under a session daemon of its own, prints
# "events: N recorded, 0 lost" with N every event of its 12800 execs (17.8 an exec measured;
# at least 17 asked). The consumers' timeout is raised so that a loaded machine's slow exec is
# no stall; nothing here is timed.
set -u
bin=$1
dir=$(dirname "$0")
command -v lttng-sessiond >/dev/null || { echo "test_run_lossless: no LTTng; skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sh "$dir/../private_lttng.sh" "$bin" run --ranks 128 --timeout 60s -o "$tmp/t" >"$tmp/out" 2>&1
rc=$?
line=$(grep '^events: ' "$tmp/out" | head -1)
echo "exit $rc; $line"
set -- $(echo "$line" | sed -n 's/^events: *\([0-9]*\) recorded, \([0-9]*\) lost.*/\1 \2/p')
if [ "$rc" -ne 0 ] || [ "${2:-x}" != 0 ] || [ "${1:-0}" -lt $((12800 * 17)) ]; then
	echo "FAIL: the default 128-rank run lost events or did not complete"
	cat "$tmp/out"
	exit 1
fi
echo "ok: the default 128-rank run recorded $1 events, 0 lost"
