#!/bin/sh
# SPDX-License-Identifier: MIT
# The Debian package, made by CPack from the build the suite already has (no second build):
# what it holds (`dpkg -c`), what it declares (`dpkg -I`: name, version, architecture, the
# run-time dependencies), then its files unpacked into a temporary root (`dpkg -x`), used from
# there: the .pc through a sysroot, the CMake package by a project that builds and runs the
# installed example against it. Nothing of it may name the build tree.
#
#   sh test_deb.sh CMAKE GENERATOR BUILD_DIR SOURCE_DIR VERSION
set -eu

cmake=${1:?usage: test_deb.sh CMAKE GENERATOR BUILD_DIR SOURCE_DIR VERSION}
generator=$2
build=$3
src=$4
version=$5
bin=/nonexistent # run() is not used
. "$(dirname "$0")/../cli_harness.sh"
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR DESTDIR

for tool in dpkg dpkg-deb; do
	command -v $tool >/dev/null 2>&1 || { echo "skip: no $tool (not a Debian system)"; exit 77; }
done
cpack=$(dirname "$cmake")/cpack
[ -x "$cpack" ] || cpack=cpack

keep() {
	status=0
	"$@" </dev/null >"$out" 2>"$err" || status=$?
	return $status
}

# --- make it -----------------------------------------------------------------------------------
arch=$(dpkg --print-architecture)
deb=$tmp/pkg/proxyscope_${version}_$arch.deb
if ! keep "$cpack" --config "$build/CPackConfig.cmake" -G DEB -B "$tmp/pkg"; then
	fail "cpack -G DEB"
	harness_finish "Debian package"
fi
[ -f "$deb" ] || { fail "no $deb"; harness_finish "Debian package"; }

# --- what it holds ------------------------------------------------------------------------------
dpkg -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' >"$tmp/contents"
for f in /usr/bin/proxyscope /usr/lib/libproxyscope.so.0 /usr/lib/libproxyscope-tp.so.0 \
	/usr/include/proxyscope/proxyscope.h /usr/include/proxyscope/trace_events.h \
	/usr/lib/pkgconfig/proxyscope.pc /usr/lib/cmake/proxyscope/proxyscopeConfig.cmake \
	/usr/lib/cmake/proxyscope/proxyscopeConfigVersion.cmake /usr/lib/cmake/proxyscope/proxyscopeTargets.cmake \
	/usr/share/man/man1/proxyscope.1 /usr/share/man/man1/proxyscope-run.1 \
	/usr/share/bash-completion/completions/proxyscope \
	/usr/share/doc/proxyscope/LICENSE /usr/share/doc/proxyscope/copyright /usr/share/doc/proxyscope/README.md \
	/usr/share/doc/proxyscope/docs/ARCHITECTURE.md /usr/share/doc/proxyscope/docs/json-schema.md \
	/usr/share/doc/proxyscope/examples/ring.c; do
	grep -qx -- "$f" "$tmp/contents" || fail "dpkg -c: no $f"
done
# Every man page and every JSON schema of the source tree is there.
for f in "$src"/docs/schema/*.json; do
	[ -e "$f" ] || continue
	grep -qx -- "/usr/share/doc/proxyscope/docs/schema/${f##*/}" "$tmp/contents" || fail "dpkg -c: no schema ${f##*/}"
done
for f in "$build"/cli/docs/man1/*.1; do
	grep -qx -- "/usr/share/man/man1/${f##*/}" "$tmp/contents" || fail "dpkg -c: no man page ${f##*/}"
done
grep -v '^/usr/' "$tmp/contents" | grep -v '^/$' >"$out" && fail "dpkg -c: files outside /usr"

# --- what it declares ---------------------------------------------------------------------------
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = proxyscope ] || fail "dpkg -I: Package '$(field Package)'"
[ "$(field Version)" = "$version" ] || fail "dpkg -I: Version '$(field Version)', expected $version"
[ "$(field Architecture)" = "$arch" ] || fail "dpkg -I: Architecture '$(field Architecture)'"
[ -n "$(field Maintainer)" ] || fail "dpkg -I: no Maintainer"
depends=$(field Depends)
for d in lttng-tools liblttng-ust1 libbabeltrace2-0 libfabric1 libpmix2 libc6; do
	echo "$depends" | tr ',' '\n' | grep -q "^ *$d\( \|$\)" || fail "dpkg -I: Depends '$depends' lacks $d"
done

# --- its files, unpacked ------------------------------------------------------------------------
root=$tmp/root
dpkg -x "$deb" "$root"
if grep -rl -- "$build" "$root" >"$out" 2>/dev/null; then
	fail "files of the package name the build tree $build"
fi
pcdir=$root/usr/lib/pkgconfig
v=$(PKG_CONFIG_LIBDIR=$pcdir pkg-config --variable=includedir proxyscope 2>"$err") || fail "pkg-config"
[ "$v" = /usr/include ] || fail "the .pc: includedir '$v', expected /usr/include"
v=$(PKG_CONFIG_LIBDIR=$pcdir pkg-config --modversion proxyscope 2>"$err") || fail "pkg-config"
[ "$v" = "$version" ] || fail "the .pc: version '$v', expected $version"
v=$(PKG_CONFIG_LIBDIR=$pcdir PKG_CONFIG_SYSROOT_DIR=$root pkg-config --cflags --libs proxyscope 2>"$err")
echo "$v" | grep -q -- "-I$root/usr/include" || fail "the .pc in a sysroot: --cflags --libs '$v'"
echo "$v" | grep -q -- "-lproxyscope" || fail "the .pc: --libs '$v' lacks -lproxyscope"

# The CMake package: the installed example, configured with find_package(proxyscope) against the
# unpacked /usr, built and run.
if keep "$cmake" -S "$root/usr/share/doc/proxyscope/examples" -B "$tmp/example" -G "$generator" \
	-DCMAKE_PREFIX_PATH="$root/usr" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF; then
	grep -q "^proxyscope_DIR:PATH=$root/usr/lib/cmake/proxyscope$" "$tmp/example/CMakeCache.txt" ||
		fail "find_package did not find $root/usr/lib/cmake/proxyscope"
	if keep "$cmake" --build "$tmp/example"; then
		keep ldd "$tmp/example/proxyscope_ring" || true
		grep -q "libproxyscope.so.0 => $root/usr/lib/" "$out" || fail "the example does not load the package's library"
		ENC_TRACE=0 keep "$tmp/example/proxyscope_ring" || fail "the example exits $status"
	else
		fail "the example does not build against the package"
	fi
else
	fail "the example does not configure against the package"
fi
# The unpacked CLI runs (its probe library beside it, in ../lib).
keep "$root/usr/bin/proxyscope" --version || keep "$root/usr/bin/proxyscope" --help ||
	fail "the package's proxyscope does not run"

harness_finish "Debian package"
