# SPDX-License-Identifier: MIT
# The Debian package: `cpack -G DEB` in a build tree (or `cpack --config
# BUILD/CPackConfig.cmake -G DEB`) makes proxyscope_<version>_<arch>.deb from what
# `cmake --install` installs, into /usr.
#
# CPack and not a debian/ directory: the package is made from the build the tests already
# have (CI builds once), with the install rules that `cmake --install` uses and tests, so the
# package and a hand install cannot disagree; a debian/ directory would build everything a
# second time through debhelper, and keep a second list of files to install.
#
# The run-time dependencies: the shared libraries are found by dpkg-shlibdeps (from dpkg-dev)
# in every ELF file of the package (the CLI, libproxyscope.so, the probe library): LTTng-UST,
# lttng-ctl, babeltrace2, PMIx, zlib, with the versions their symbols need. Without
# dpkg-shlibdeps, the Debian 12 names are declared by hand. libfabric is declared by hand in
# both cases: the ofi backend loads it at run time (lib/net/ofi/ofi_dl.c), so no ELF file of the
# package needs it and dpkg-shlibdeps cannot see it; the version is the one built against, as
# libfabric1's shlibs file says for a linked binary (>= 1.17.0 on Debian 12). The programs the
# CLI runs are declared too: lttng-tools (lttng, lttng-sessiond, lttng-relayd) always; iproute2
# (ip, for `proxyscope hosts`) and openmpi-bin (mpirun, for `run --hosts`) recommended.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME proxyscope)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "the proxyscope authors")
set(CPACK_PACKAGE_CONTACT "the proxyscope authors")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "collective-communication proxy driver, its LTTng tracepoints and trace analysis")
string(JOIN "\n" CPACK_PACKAGE_DESCRIPTION
  "A collective-communication proxy driver (libproxyscope) with LTTng-UST"
  "tracepoints, and the proxyscope command, which records traces of it and"
  "explains them: per-task timelines, latency statistics, and a watchdog report"
  "that follows a hung collective to its root cause.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# CMAKE_INSTALL_PREFIX is /usr while the files go to CPack's staging directory (DESTDIR): the
# install rules see the real prefix (the pkg-config file is written for /usr, ProxyscopeInstall).
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# What Debian's own tools do for a package: binaries stripped (the build tree keeps the debug
# information), a shlibs file for the two libraries and the ldconfig trigger.
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
find_program(PROXYSCOPE_DPKG_SHLIBDEPS dpkg-shlibdeps)
find_program(PROXYSCOPE_FILE file)
set(_deps "lttng-tools")
if(PROXYSCOPE_DPKG_SHLIBDEPS AND PROXYSCOPE_FILE)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  message(STATUS "proxyscope package: no dpkg-shlibdeps or file (apt-get install dpkg-dev "
                 "file), the library dependencies are declared by hand")
  list(APPEND _deps liblttng-ust1 liblttng-ctl0 libbabeltrace2-0 libpmix2 zlib1g)
endif()
if(WITH_OFI)
  list(APPEND _deps "libfabric1 (>= ${LIBFABRIC_VERSION})")
endif()
list(JOIN _deps ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "iproute2, openmpi-bin")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "babeltrace2")
include(CPack)
