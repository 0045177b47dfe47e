#!/bin/sh
# SPDX-License-Identifier: MIT
# The driver library is the driver: libproxyscope.so exports no simulator symbol (enc_dev_*,
# enc_wl_*), and the simulator archive calls into the driver only through its public API and
# its test hook - no library-internal enc__ symbol except the simulator's own (enc__dev_,
# enc__wl_); and libfabric is not linked.
# usage: lib_symbols.sh LIBPROXYSCOPE_SO LIBPROXYSCOPE_SIM_A
set -eu
so=$1
sim=$2
status=0

leaked=$(nm -D --defined-only "$so" | awk '{print $3}' | grep -E '^enc_(dev|wl)_' || true)
if [ -n "$leaked" ]; then
	echo "FAIL: $so exports simulator symbols:" $leaked
	status=1
fi
internal=$(nm -u "$sim" | awk '{print $2}' | grep -E '^enc__' | grep -vE '^enc__(dev|wl)_' |
	sort -u || true)
if [ -n "$internal" ]; then
	echo "FAIL: $sim uses driver internals:" $internal
	status=1
fi
# libfabric is loaded by the ofi backend when it opens (lib/net/ofi/ofi_dl.c), never linked:
# nothing of it in DT_NEEDED, and no fi_* function left undefined for the loader to bind.
fabric=$( (readelf -d "$so" | grep 'NEEDED.*libfabric'; nm -D --undefined-only "$so" |
	awk '{print $2}' | grep -E '^fi_') || true)
if [ -n "$fabric" ]; then
	echo "FAIL: $so links libfabric:" $fabric
	status=1
fi
[ "$status" = 0 ] && echo "ok: no simulator symbol in $so, no driver internal in $sim, no libfabric"
exit $status
