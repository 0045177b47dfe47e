#!/bin/sh
# SPDX-License-Identifier: MIT
# A report (and an export) over a tree of 2 hosts walks and checks each trace directory once
# (psa_input.h):
# one recorded trace copied as host0/ and host1/ with a UUID and a hostname of their own
# (bench_hosts --make-tree), `proxyscope report`, `watchdog --json` and `export --format chrome`
# over the tree with every opendir() counted (count_opendir.so): in the command's own process
# each trace directory and its index/ are opened exactly once (before, 2 times: the read's checks and the
# integrity report's; 3 when the clocks were corrected). The reader's child, where babeltrace2
# opens them itself, is not counted.
bin=${1:?usage: test_input_once.sh PROXYSCOPE BENCH_HOSTS COUNT_OPENDIR_SO}
hosts_bin=${2:?}
shim=${3:?}
. "$(dirname "$0")/../cli_harness.sh"
need_lttng

timeout 120 "$bin" run -q -o "$tmp/rec" --ranks 2 --ops 20 >"$out" 2>"$err"
[ $? -le 1 ] || { fail "proxyscope run: could not record a trace"; harness_finish input_once; }
rec=$(dirname "$(find "$tmp/rec" -name metadata | head -1)")
"$hosts_bin" --make-tree "$tmp/tree" --trace "$rec" --hosts 2 --proxyscope "$bin" >"$out" 2>"$err" ||
	{ fail "bench_hosts --make-tree"; harness_finish input_once; }
find "$tmp/tree" -name metadata -type f | sed 's|/metadata$||' | sort >"$tmp/dirs"
[ "$(wc -l <"$tmp/dirs")" -eq 2 ] || fail "the tree holds $(wc -l <"$tmp/dirs") traces, not 2"

# once_each CMD...: run proxyscope CMD... with opendir counted; each trace directory and its
# index/ opened once by the command's own process
once_each() {
	rm -f "$tmp/log" "$tmp/pid"
	LD_PRELOAD=$shim PSA_COUNT_OPENDIR=$tmp/log sh -c 'echo $$ >"$1"; shift; exec "$@"' sh \
		"$tmp/pid" "$bin" "$@" >"$out" 2>"$err"
	status=$?
	[ "$status" -le 1 ] || { fail "proxyscope $*: exit $status"; return; }
	pid=$(cat "$tmp/pid")
	while read -r d; do
		for x in "$d" "$d/index"; do
			n=$(grep -cxF "$pid $x" "$tmp/log")
			[ "$n" -eq 1 ] || fail "proxyscope $*: '$x' opened $n times, not once"
		done
	done <"$tmp/dirs"
}
once_each report "$tmp/tree"
once_each watchdog --json "$tmp/tree"
once_each export --format chrome -o "$tmp/timeline.json" "$tmp/tree"
# a trace reached from two paths is still one trace, opened once
once_each stats --json "$tmp/tree" "$(head -1 "$tmp/dirs")"

harness_finish input_once
