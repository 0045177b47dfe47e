#!/bin/sh
# SPDX-License-Identifier: MIT
# compare_outputs.sh [OPTIONS] OLD_PROXYSCOPE NEW_PROXYSCOPE [TRACE...]
#
# The before/after check of a change meant to keep behaviour: every reading command's machine
# output (report, watchdog, stats and timeline --json, export --format chrome -o -) from two
# builds of proxyscope on the same traces, compared byte for byte with the exit status. Exit 0
# only when every output is identical; 1 when one differs (each is named, with a short diff);
# 2 on usage.
#
# The traces: the TRACE arguments; without any, a set recorded with NEW_PROXYSCOPE `run` (a
# healthy run, a device stall, 2 ofi processes of which one is killed, a --snapshot run, a lossy
# run with small buffers, a --loglevel debug run), under a session daemon of the script's own
# (tests/private_lttng.sh). Plus, when PROXYSCOPE_BT2_TRACES names a directory, every trace
# directory (one that holds a `metadata` file) under it, e.g. babeltrace2's CTF test traces.
#
# Options:
#   --ignore FIELD  drop every JSON member named FIELD, at any depth, from both outputs before
#                   comparing (repeatable); the rest of the text is compared as printed
#   --keep DIR      record the traces into DIR (new or empty) and keep them, to give them as
#                   TRACE arguments to a later comparison
#   --timeout S     bound each command to S seconds (default 300); a hang is exit 137
set -u

usage() {
	sed -n '2,/^set -u$/{/^set -u$/d;s/^# \{0,1\}//;p}' "$0"
}
usage_error() {
	echo "error: $*" >&2
	echo "usage: compare_outputs.sh [--ignore FIELD]... [--keep DIR] [--timeout S] OLD_PROXYSCOPE NEW_PROXYSCOPE [TRACE...]" >&2
	exit 2
}

here=$(cd "$(dirname "$0")" && pwd)
ignore=
keep=
bound=300
while [ $# -gt 0 ]; do
	case $1 in
	--ignore) [ $# -ge 2 ] || usage_error "--ignore needs a FIELD"; ignore="$ignore $2"; shift 2 ;;
	--keep) [ $# -ge 2 ] || usage_error "--keep needs a DIR"; keep=$2; shift 2 ;;
	--timeout) [ $# -ge 2 ] || usage_error "--timeout needs seconds"; bound=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	-*) usage_error "unknown option '$1'" ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || usage_error "OLD_PROXYSCOPE and NEW_PROXYSCOPE are required"
case $bound in '' | *[!0-9]*) usage_error "--timeout: '$bound' is not a number of seconds" ;; esac
abs() { (cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")"); }
for b in "$1" "$2"; do
	[ -f "$b" ] && [ -x "$b" ] || usage_error "'$b' is not an executable file"
done
old=$(abs "$1")
new=$(abs "$2")
shift 2
for t in "$@"; do
	[ -e "$t" ] || usage_error "no trace at '$t'"
done
if [ -n "${PROXYSCOPE_BT2_TRACES:-}" ] && [ ! -d "$PROXYSCOPE_BT2_TRACES" ]; then
	usage_error "PROXYSCOPE_BT2_TRACES: '$PROXYSCOPE_BT2_TRACES' is not a directory"
fi
command -v python3 >/dev/null || { echo "error: python3 is needed" >&2; exit 2; }

# Recording needs a session daemon that sees only this script's processes: run again under
# tests/private_lttng.sh (a mount namespace of our own, as root), once.
if [ $# -eq 0 ] && [ -z "${PROXYSCOPE_COMPARE_PRIVATE:-}" ]; then
	PROXYSCOPE_COMPARE_PRIVATE=1 exec sh "$here/private_lttng.sh" sh "$0" \
		$(for f in $ignore; do printf '%s %s ' --ignore "$f"; done) \
		${keep:+--keep "$keep"} --timeout "$bound" "$old" "$new"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/compare_outputs.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
mkdir "$work/cwd" "$work/tmp" "$work/traces"
: >"$work/list"

# --- the traces ---------------------------------------------------------------------------------

# record NAME ARGS...: `NEW run -o DIR ARGS...` into the kept directory or the work one. Its exit
# status is the run's verdict (1 for a stall): only a missing trace is an error.
record() {
	name=$1
	shift
	dir=$rec/$name
	echo "recording $name: proxyscope run $*" >&2
	(cd "$work/cwd" && timeout -s KILL "$bound" "$new" run -o "$dir" "$@" \
		</dev/null >"$work/rec.out" 2>"$work/rec.err")
	if ! find "$dir" -name metadata -type f 2>/dev/null | grep -q .; then
		echo "error: recording $name left no trace; its stderr:" >&2
		tail -20 "$work/rec.err" >&2
		exit 1
	fi
	echo "$dir" >>"$work/list"
}

if [ $# -eq 0 ]; then
	command -v lttng >/dev/null || { echo "error: recording needs lttng-tools" >&2; exit 1; }
	if [ -n "$keep" ]; then
		mkdir -p "$keep" && [ -z "$(ls -A "$keep")" ] ||
			{ echo "error: --keep: '$keep' is not a new or empty directory" >&2; exit 2; }
		rec=$(cd "$keep" && pwd)
	else
		rec=$work/traces
	fi
	record healthy --ranks 4 --ops 30
	record device-stall --ops 5 --inject device-stall:rank=1,exec=2 --timeout 500ms
	record ofi-kill --backend ofi --procs 2 --ranks 4 --ops 20 --inject kill:rank=3,exec=5
	record snapshot --ranks 4 --ops 2000 --timeout 10s --inject device-stall:rank=1,exec=1900 \
		--snapshot --buffer-size 1MiB
	record lossy --ranks 4 --ops 20000 --loglevel debug --buffer-size 512KiB
	record debug --ops 20 --loglevel debug
	[ -z "$keep" ] || echo "traces kept in $rec" >&2
fi
for t in "$@"; do
	abs "$t" >>"$work/list"
done
if [ -n "${PROXYSCOPE_BT2_TRACES:-}" ]; then
	find "$(cd "$PROXYSCOPE_BT2_TRACES" && pwd)" -name metadata -type f | sed 's|/metadata$||' |
		sort >>"$work/list"
fi

# --- the comparison -----------------------------------------------------------------------------

# normalise FILE: FILE with the --ignore members dropped, when it is one JSON document (numbers,
# strings and member order kept as printed); otherwise left as it is.
normalise() {
	[ -n "$ignore" ] || return 0
	python3 - "$1" $ignore <<'EOF'
import json, sys

class Num(str):
    pass

class Obj(list):
    pass

path, drop = sys.argv[1], set(sys.argv[2:])
text = open(path, encoding="utf-8", errors="surrogateescape").read()
try:
    doc = json.loads(text, parse_float=Num, parse_int=Num,
                     object_pairs_hook=lambda kv: Obj((k, v) for k, v in kv if k not in drop))
except ValueError:
    sys.exit(0)

def dump(v):
    if isinstance(v, Obj):
        return "{" + ",".join(json.dumps(k) + ":" + dump(x) for k, x in v) + "}"
    if isinstance(v, list):
        return "[" + ",".join(dump(x) for x in v) + "]"
    if isinstance(v, Num):
        return str(v)
    return json.dumps(v)

open(path, "w", encoding="utf-8", errors="surrogateescape").write(dump(doc) + "\n")
EOF
}

# show_diff A B: a short diff, JSON pretty-printed first so a one-line document diffs by member.
show_diff() {
	for f in "$1" "$2"; do
		python3 -c '
import json, sys
try:
    print(json.dumps(json.load(open(sys.argv[1])), indent=1))
except ValueError:
    sys.stdout.write(open(sys.argv[1], errors="replace").read())' "$f" >"$f.pretty"
	done
	diff -u "$1.pretty" "$2.pretty" | sed -n '3,40p' | cut -c1-200
}

# run_one BIN OUT ARGS...: BIN ARGS... with stdout in OUT, its exit status in OUT.status.
run_one() {
	bin=$1
	o=$2
	shift 2
	status=0
	(cd "$work/cwd" && TMPDIR=$work/tmp timeout -s KILL "$bound" "$bin" "$@" \
		</dev/null >"$o" 2>"$o.err") || status=$?
	echo "$status" >"$o.status"
}

compared=0
differ=0
while read -r t; do
	for cmd in report watchdog stats timeline export; do
		case $cmd in
		export) set -- export --format chrome -o - "$t" ;;
		*) set -- "$cmd" --json "$t" ;;
		esac
		run_one "$old" "$work/old" "$@"
		run_one "$new" "$work/new" "$@"
		normalise "$work/old"
		normalise "$work/new"
		compared=$((compared + 1))
		if cmp -s "$work/old" "$work/new" && cmp -s "$work/old.status" "$work/new.status"; then
			continue
		fi
		differ=$((differ + 1))
		echo "DIFFERS: proxyscope $* (exit $(cat "$work/old.status") before," \
			"$(cat "$work/new.status") after)"
		show_diff "$work/old" "$work/new"
		if ! cmp -s "$work/old.err" "$work/new.err"; then
			echo "  stderr before: $(head -c 300 "$work/old.err")"
			echo "  stderr after:  $(head -c 300 "$work/new.err")"
		fi
	done
done <"$work/list"

echo "$compared outputs compared on $(wc -l <"$work/list") traces, $differ differ"
[ "$compared" -gt 0 ] && [ "$differ" -eq 0 ]
