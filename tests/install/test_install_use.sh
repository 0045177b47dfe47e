#!/bin/sh
# SPDX-License-Identifier: MIT
# The second half of test_install.sh: use an installed (and moved) proxyscope as a user would.
# With --hide (run by test_install.sh in a mount namespace of its own) the build tree is first
# hidden under an empty tmpfs. The example (installed under share/doc) is built with
# find_package(proxyscope) against PREFIX, run, and recorded with the INSTALLED
# `proxyscope record`; the trace must hold the example's tasks, all done, read back with the
# installed `proxyscope report --json` and with babeltrace2. The man pages and the bash
# completion are installed and cover every command.
#
#   sh test_install_use.sh --hide|--no-hide CMAKE GENERATOR C_COMPILER BUILD_DIR PREFIX
set -eu

hide=${1:?usage: test_install_use.sh --hide|--no-hide CMAKE GENERATOR C_COMPILER BUILD_DIR PREFIX}
cmake=$2
generator=$3
cc=$4
build=$5
prefix=$6
bin=/nonexistent # run() is not used: every command here is the installed one
. "$(dirname "$0")/../cli_harness.sh"

# The example's numbers (examples/ring.c): 4 ranks x 20 execs, a network and a barrier task each.
tasks=160

# Run a command, keeping its output in $out / $err; returns its exit status.
keep() {
	status=0
	"$@" </dev/null >"$out" 2>"$err" || status=$?
	return $status
}

if [ "$hide" = --hide ]; then
	mount -t tmpfs -o mode=0755 proxyscope-hidden "$build" || { echo "cannot hide $build" >&2; exit 1; }
	[ -z "$(ls -A "$build")" ] || fail "the build tree is still visible"
fi
unset ENC_TRACE ENC_TRACE_PROBE LD_LIBRARY_PATH LD_PRELOAD
PATH=$prefix/bin:/usr/local/bin:/usr/bin:/bin
export PATH

# --- the example, against the moved prefix ------------------------------------------------------
if ! keep "$cmake" -S "$prefix/share/doc/proxyscope/examples" -B "$tmp/example" -G "$generator" \
	-DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_FLAGS="-Wall -Wextra -Werror"; then
	fail "the example does not configure against the installed package"
	harness_finish install
fi
grep -q "$prefix" "$tmp/example/CMakeCache.txt" || fail "find_package did not find $prefix"
if ! keep "$cmake" --build "$tmp/example"; then
	fail "the example does not build against the installed package"
	harness_finish install
fi
example=$tmp/example/proxyscope_ring
keep ldd "$example" || true
grep -q "libproxyscope.so.0 => $prefix/lib/" "$out" || fail "the example does not load $prefix/lib/libproxyscope.so.0"
if keep "$example"; then
	grep -q ': ok$' "$out" || fail "the example did not say ok"
else
	fail "the example exits $status"
fi

# --- recorded by the installed proxyscope -------------------------------------------------------
cd "$tmp"
if keep proxyscope record -o "$tmp/trace" -- "$example"; then
	grep -q "^trace: $tmp/trace" "$out" || fail "record: no trace line"
	grep -q '^events: *[1-9][0-9]* recorded, 0 lost' "$out" || fail "record: no 'events: N recorded, 0 lost' line"
	if grep -q 'no proxyscope events' "$err"; then
		fail "record: warned that nothing was recorded"
	fi
else
	fail "proxyscope record -- example: exit $status"
fi
if keep proxyscope report --json "$tmp/trace"; then
	python3 - "$out" "$tasks" <<'PY' || fail "report --json: not the example's $tasks tasks"
import json, sys
d = json.load(open(sys.argv[1]))
t = d["overview"]["tasks"]
want = int(sys.argv[2])
assert t["seen"] == want and t["done"] == want, t
assert d["watchdog"]["stall_found"] is False, d["watchdog"]
PY
else
	fail "proxyscope report --json: exit $status"
fi
if command -v babeltrace2 >/dev/null 2>&1; then
	babeltrace2 "$tmp/trace" >"$out" 2>"$err" || fail "babeltrace2 cannot read the trace"
	n=$(grep -c 'encproxy:task_enqueue:' "$out" || true)
	[ "$n" -eq "$tasks" ] || fail "babeltrace2: $n task_enqueue events, expected $tasks"
	grep -q "procname = \"proxyscope_ring\"" "$out" || fail "babeltrace2: no event of the example's process"
fi

# --- a program that does not load libproxyscope: the warning, not a silent empty trace ----------
if keep proxyscope record -o "$tmp/empty" -- /bin/true; then
	grep -q '^warning: no proxyscope events were recorded: /bin/true did not load libproxyscope, or its probe library was not found' "$err" ||
		fail "record -- /bin/true: no warning that nothing was recorded"
else
	fail "proxyscope record -- /bin/true: exit $status"
fi

# --- the man pages and the completion -----------------------------------------------------------
for c in record run report timeline stats watchdog export; do
	[ -s "$prefix/share/man/man1/proxyscope-$c.1" ] || fail "no man page proxyscope-$c.1"
	grep -q "$c" "$prefix/share/bash-completion/completions/proxyscope" || fail "completion: no '$c'"
done
if command -v man >/dev/null 2>&1; then
	MANPATH=$prefix/share/man man -P cat proxyscope-run >"$out" 2>"$err" || fail "man proxyscope-run fails"
	grep -q -- '--buffer-size' "$out" || fail "man proxyscope-run: no --buffer-size"
fi
if command -v bash >/dev/null 2>&1; then
	bash -c '. "$1"; COMP_WORDS=(proxyscope re); COMP_CWORD=1; _proxyscope; printf "%s\n" "${COMPREPLY[@]}"' \
		sh "$prefix/share/bash-completion/completions/proxyscope" >"$out" 2>"$err" || fail "completion script fails"
	grep -qx record "$out" && grep -qx report "$out" || fail "completion of 're': not record and report"
	bash -c '. "$1"; COMP_WORDS=(proxyscope run --buf); COMP_CWORD=2; _proxyscope; printf "%s\n" "${COMPREPLY[@]}"' \
		sh "$prefix/share/bash-completion/completions/proxyscope" >"$out" 2>"$err" || fail "completion script fails"
	grep -qx -- --buffer-size "$out" || fail "completion of 'run --buf': not --buffer-size"
fi

harness_finish "installed package"
