#!/bin/sh
# SPDX-License-Identifier: MIT
# The pkg-config file and the CMake package name the right directories for every prefix, from
# the build the suite already has (no second build):
# - a moved prefix: `cmake --install BUILD --prefix P`, then P copied elsewhere and removed;
# - /usr/local and /usr: installed with DESTDIR; the .pc says /usr/local/include, /usr/include
#   (absolute, as pkg-config expects of system directories);
# - /usr with Debian's multiarch LIBDIR (lib/ARCH: the issue's `/usr/lib/include`), and the same
#   LIBDIR in a moved prefix: tests/install/prefix_project, the same install rules on a stand-in
#   library, configured for it.
# The CMake package is checked each time by tests/install/consumer (find_package, then the
# include directory of proxyscope::proxyscope).
#
#   sh test_prefixes.sh CMAKE GENERATOR BUILD_DIR SOURCE_DIR [LIBRARY_ARCH]
set -eu

cmake=${1:?usage: test_prefixes.sh CMAKE GENERATOR BUILD_DIR SOURCE_DIR [LIBRARY_ARCH]}
generator=$2
build=$3
src=$4
arch=${5:-x86_64-linux-gnu}
bin=/nonexistent # run() is not used
. "$(dirname "$0")/../cli_harness.sh"
consumer=$(cd "$(dirname "$0")" && pwd)/consumer
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR DESTDIR

keep() {
	status=0
	"$@" </dev/null >"$out" 2>"$err" || status=$?
	return $status
}

# expect WHAT GOT WANT
expect() {
	[ "$2" = "$3" ] || fail "$1: '$2', expected '$3'"
}

# pc_var PCDIR VAR: the variable as pkg-config prints it, reading only PCDIR.
pc_var() {
	PKG_CONFIG_LIBDIR=$1 pkg-config --variable="$2" proxyscope 2>"$err" || echo "(pkg-config failed)"
}

# pc_dir ROOT: the directory holding proxyscope.pc under ROOT (exactly one).
pc_dir() {
	dirname "$(find "$1" -name proxyscope.pc | head -n 1)"
}

# cmake_include ROOT: the include directory proxyscope::proxyscope names, found under ROOT.
cmake_include() {
	rm -rf "$tmp/consumer"
	if keep "$cmake" -S "$consumer" -B "$tmp/consumer" -G "$generator" -DCMAKE_PREFIX_PATH="$1" \
		-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF; then
		sed -n 's/^-- include: //p' "$out"
	else
		fail "find_package(proxyscope) against $1"
		echo "(none)"
	fi
}

# check_moved WHAT PREFIX LIBDIR: the .pc and the CMake package of a relocated PREFIX.
check_moved() {
	what=$1 p=$2 libdir=$3
	pcd=$(pc_dir "$p")
	expect "$what: .pc directory" "$pcd" "$p/$libdir/pkgconfig"
	expect "$what: includedir" "$(realpath -m "$(pc_var "$pcd" includedir)")" "$p/include"
	expect "$what: libdir" "$(realpath -m "$(pc_var "$pcd" libdir)")" "$p/$libdir"
	cflags=$(PKG_CONFIG_LIBDIR=$pcd pkg-config --cflags proxyscope | sed "s/ *$//")
	[ -f "${cflags#-I}/proxyscope/proxyscope.h" ] || fail "$what: --cflags '$cflags' has no proxyscope/proxyscope.h"
	expect "$what: CMake include" "$(realpath -m "$(cmake_include "$p")")" "$p/include"
}

# check_system WHAT ROOT PREFIX LIBDIR: a DESTDIR install for PREFIX, staged under ROOT.
check_system() {
	what=$1 root=$2 p=$3 libdir=$4
	pcd=$(pc_dir "$root")
	expect "$what: .pc directory" "$pcd" "$root$p/$libdir/pkgconfig"
	expect "$what: includedir" "$(pc_var "$pcd" includedir)" "$p/include"
	expect "$what: libdir" "$(pc_var "$pcd" libdir)" "$p/$libdir"
	expect "$what: prefix" "$(pc_var "$pcd" prefix)" "$p"
	# Seen through a sysroot (what a cross build or a packager does): the staged files.
	cflags=$(PKG_CONFIG_LIBDIR=$pcd PKG_CONFIG_SYSROOT_DIR=$root pkg-config --cflags proxyscope | sed "s/ *$//")
	expect "$what: --cflags in the sysroot" "$cflags" "-I$root$p/include"
	expect "$what: CMake include" "$(cmake_include "$root$p")" "$root$p/include"
}

# --- the build's own install rules --------------------------------------------------------------
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:[A-Z]*=//p' "$build/CMakeCache.txt")
if keep "$cmake" --install "$build" --prefix "$tmp/first"; then
	cp -a "$tmp/first" "$tmp/moved"
	rm -rf "$tmp/first"
	check_moved "moved prefix" "$tmp/moved" "$libdir"
	grep -rq -- "$tmp/first" "$tmp/moved/$libdir" && fail "moved prefix: a file names the first prefix"
else
	fail "cmake --install --prefix $tmp/first"
fi
for p in /usr/local /usr; do
	root=$tmp/dest$(echo "$p" | tr / _)
	if DESTDIR=$root keep "$cmake" --install "$build" --prefix "$p"; then
		check_system "$p" "$root" "$p" "$libdir"
	else
		fail "DESTDIR=$root cmake --install --prefix $p"
	fi
done

# --- a multiarch LIBDIR: /usr, and a moved prefix ----------------------------------------------
multi=lib/$arch
if keep "$cmake" -S "$(dirname "$0")/prefix_project" -B "$tmp/pp" -G "$generator" \
	-DPROXYSCOPE_SOURCE_DIR="$src" -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_INSTALL_LIBDIR="$multi"; then
	if DESTDIR=$tmp/multi keep "$cmake" --install "$tmp/pp"; then
		check_system "/usr, $multi" "$tmp/multi" /usr "$multi"
	else
		fail "prefix_project: DESTDIR install"
	fi
	if keep "$cmake" --install "$tmp/pp" --prefix "$tmp/m1"; then
		cp -a "$tmp/m1" "$tmp/m2"
		rm -rf "$tmp/m1"
		check_moved "moved prefix, $multi" "$tmp/m2" "$multi"
	else
		fail "prefix_project: install into $tmp/m1"
	fi
else
	fail "prefix_project does not configure"
fi
harness_finish "prefix"
