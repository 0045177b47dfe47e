#!/bin/sh
# SPDX-License-Identifier: MIT
# The licence line: scripts/spdx.sh first on files made here (each comment syntax, a shebang and
# a doctype kept first, --add twice changes nothing, --check's exit status), then --check on the
# source tree: every source, script and CMake file carries `SPDX-License-Identifier: MIT`.
#
#   sh test_spdx.sh SOURCE_DIR
set -eu

src=${1:?usage: test_spdx.sh SOURCE_DIR}
bin=/nonexistent # run() is not used
. "$(dirname "$0")/../cli_harness.sh"
spdx=$src/scripts/spdx.sh
tag="SPDX-License-Identifier: MIT"

# --- the script itself, on made files -----------------------------------------------------------
d=$tmp/files
mkdir -p "$d/sub"
printf '#!/bin/sh\necho hi\n' >"$d/a.sh"
chmod 755 "$d/a.sh"
printf '/* a module */\nint a;\n' >"$d/b.c"
printf '#pragma once\n' >"$d/b.h"
printf 'project(x)\n' >"$d/sub/CMakeLists.txt"
printf 'set(x 1)\n' >"$d/c.cmake"
printf '#!/usr/bin/env python3\nprint(1)\n' >"$d/d.py"
printf '<!DOCTYPE html>\n<html></html>\n' >"$d/e.html"
printf 'let a = 1;\n' >"$d/f.js"
printf '_f()\n{\n}\n' >"$d/g.bash.in"
printf 'prefix=@P@\n' >"$d/h.pc.in"
printf '#!/bin/bash\nexit 0\n' >"$d/run"
printf '{"a": 1}\n' >"$d/data.json"
printf 'recorded\n' >"$d/fixture"
files="a.sh b.c b.h sub/CMakeLists.txt c.cmake d.py e.html f.js g.bash.in h.pc.in run data.json fixture"

cd "$d"
# shellcheck disable=SC2086
if bash "$spdx" --check $files >"$out" 2>"$err"; then
	fail "--check passed on files without the line"
fi
[ "$(wc -l <"$out")" -eq 11 ] || fail "--check: not the 11 files that take the line"
grep -qx 'data.json' "$out" && fail "--check: a JSON file listed (JSON has no comments)"
grep -qx 'fixture' "$out" && fail "--check: a data file listed"
# shellcheck disable=SC2086
bash "$spdx" --add $files >"$out" 2>"$err" || fail "--add"
cp -a "$d" "$tmp/once"
# shellcheck disable=SC2086
bash "$spdx" --add $files >"$out" 2>"$err" || fail "--add (twice)"
diff -r "$tmp/once" "$d" >"$out" || fail "--add twice changed files"
# shellcheck disable=SC2086
bash "$spdx" --check $files >"$out" 2>"$err" || fail "--check after --add"

# first_lines FILE: its first two lines, joined by '|'.
first_lines() { head -n 2 "$1" | paste -sd '|'; }
expect() { [ "$(first_lines "$1")" = "$2" ] || fail "$1 begins '$(first_lines "$1")', expected '$2'"; }
expect a.sh "#!/bin/sh|# $tag"
expect b.c "/* $tag */|/* a module */"
expect b.h "/* $tag */|#pragma once"
expect sub/CMakeLists.txt "# $tag|project(x)"
expect c.cmake "# $tag|set(x 1)"
expect d.py "#!/usr/bin/env python3|# $tag"
expect e.html "<!DOCTYPE html>|<!-- $tag -->"
expect f.js "// $tag|let a = 1;"
expect g.bash.in "# $tag|_f()"
expect h.pc.in "# $tag|prefix=@P@"
expect run "#!/bin/bash|# $tag"
[ "$(cat data.json)" = '{"a": 1}' ] || fail "--add changed a JSON file"
[ "$(cat fixture)" = recorded ] || fail "--add changed a data file"
[ -x a.sh ] || fail "--add lost the executable bit"

# --- the source tree ----------------------------------------------------------------------------
if ! bash "$spdx" --check >"$out" 2>"$err"; then
	fail "files without '$tag' (scripts/spdx.sh --add inserts it)"
fi
harness_finish "SPDX"
