#!/bin/sh
# SPDX-License-Identifier: MIT
# The installed package, used as a user would, with the build tree out of the picture:
# `cmake --install` into a temporary prefix, which is then moved (copied elsewhere, the original
# removed); no installed file may name the build tree; then test_install_use.sh uses the moved
# prefix in a mount namespace of its own where the build tree is hidden under an empty tmpfs.
#
#   sh test_install.sh CMAKE GENERATOR C_COMPILER BUILD_DIR
# Runs under tests/private_lttng.sh (a mount namespace with a session daemon of its own).
set -eu

cmake=${1:?usage: test_install.sh CMAKE GENERATOR C_COMPILER BUILD_DIR}
generator=$2
cc=$3
build=$4
bin=/nonexistent # run() is not used: every command here is the installed one
. "$(dirname "$0")/../cli_harness.sh"
need_lttng

# Run a command, keeping its output in $out / $err; returns its exit status.
keep() {
	status=0
	"$@" </dev/null >"$out" 2>"$err" || status=$?
	return $status
}

# --- install, move, check that nothing names the build tree -------------------------------------
if ! keep "$cmake" --install "$build" --prefix "$tmp/first"; then
	fail "cmake --install failed"
	harness_finish install
fi
cp -a "$tmp/first" "$tmp/moved"
rm -rf "$tmp/first"
prefix=$tmp/moved
if grep -rl -- "$build" "$prefix" >"$out" 2>/dev/null; then
	fail "installed files name the build tree $build"
fi
for f in bin/proxyscope lib/libproxyscope.so lib/libproxyscope-tp.so.0 \
	share/doc/proxyscope/examples/CMakeLists.txt share/doc/proxyscope/examples/ring.c \
	share/man/man1/proxyscope.1 share/man/man1/proxyscope-record.1 \
	share/bash-completion/completions/proxyscope; do
	[ -e "$prefix/$f" ] || fail "not installed: $f"
done

# --- use it, with the build tree hidden (a mount namespace of its own: never the machine's) ----
use=$(dirname "$0")/test_install_use.sh
if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
	unshare -m --propagation private sh "$use" --hide "$cmake" "$generator" "$cc" "$build" \
		"$prefix" || fail "using the installed package (test_install_use.sh, above)"
else
	echo "note: cannot hide the build tree (no mount namespace): relying on the path checks" >&2
	sh "$use" --no-hide "$cmake" "$generator" "$cc" "$build" "$prefix" ||
		fail "using the installed package (test_install_use.sh, above)"
fi
harness_finish install
