#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The licence line of every source, script and CMake file: `SPDX-License-Identifier: MIT` as the
# first comment line, in the file's own comment syntax, after a shebang (`#!`) or `<!DOCTYPE`
# line, which must stay first.
#
#   scripts/spdx.sh --check [FILE...]   list the files without the line; exit 1 if any
#   scripts/spdx.sh --add [FILE...]     insert the line where it is missing (idempotent)
#
# Without FILEs: every file of the checkout that git knows or would add (tracked, or new and
# not ignored) whose kind carries the line: .c .h .cmake CMakeLists.txt .sh .py .js .html,
# templates (.in: the syntax of the name without .in), and scripts without an extension that
# start with a shebang. Data (fixtures, corpora, .txt, .json, .md) carries none: JSON has no
# comments, and a fixture must stay byte for byte what was recorded.
set -euo pipefail

tag="SPDX-License-Identifier: MIT"

usage() {
	echo "usage: scripts/spdx.sh --check|--add [FILE...]" >&2
	exit 2
}

# The comment line for FILE, or nothing when its kind carries no licence line.
comment_for() {
	local f=$1 base=${1##*/}
	case $base in
	*.in) base=${base%.in} ;;
	esac
	case $base in
	CMakeLists.txt | *.cmake | *.sh | *.bash | *.py | *.pc) echo "# $tag" ;;
	*.c | *.h) echo "/* $tag */" ;;
	*.js) echo "// $tag" ;;
	*.html) echo "<!-- $tag -->" ;;
	*.*) ;;
	*)
		# No extension: a script when it starts with a shebang.
		if [ "$(head -c 2 "$f" 2>/dev/null | tr -d '\000')" = "#!" ]; then
			echo "# $tag"
		fi
		;;
	esac
}

# True when FILE already carries the line near its top (a shebang, a doctype and a comment
# opener may come first).
has_tag() {
	head -n 5 "$1" | grep -q "SPDX-License-Identifier:"
}

# Insert LINE into FILE as its first line, or its second after a shebang or doctype.
add_tag() {
	local f=$1 line=$2 first tmp
	first=$(head -n 1 "$f")
	tmp=$(mktemp "$f.spdx.XXXXXX")
	case $first in
	'#!'* | '<!DOCTYPE'* | '<!doctype'*)
		{ printf '%s\n%s\n' "$first" "$line"; tail -n +2 "$f"; } >"$tmp" ;;
	*)
		{ printf '%s\n' "$line"; cat "$f"; } >"$tmp" ;;
	esac
	chmod --reference="$f" "$tmp"
	mv "$tmp" "$f"
}

mode=${1:-}
case $mode in
--check | --add) shift ;;
*) usage ;;
esac

if [ $# -gt 0 ]; then
	files=("$@")
else
	root=$(cd "$(dirname "$0")/.." && pwd)
	cd "$root"
	if git rev-parse --git-dir >/dev/null 2>&1; then
		mapfile -t files < <(git ls-files --cached --others --exclude-standard)
	else
		mapfile -t files < <(find . -path ./build -prune -o -type f -print | sed 's|^\./||')
	fi
fi

missing=0
for f in "${files[@]}"; do
	[ -f "$f" ] || continue
	line=$(comment_for "$f")
	[ -n "$line" ] || continue
	has_tag "$f" && continue
	if [ "$mode" = --add ]; then
		add_tag "$f" "$line"
		echo "spdx: added to $f"
	else
		echo "$f"
		missing=$((missing + 1))
	fi
done
if [ "$mode" = --check ] && [ $missing -gt 0 ]; then
	echo "spdx: $missing files without '$tag' (scripts/spdx.sh --add inserts it)" >&2
	exit 1
fi
exit 0
