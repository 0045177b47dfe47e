# SPDX-License-Identifier: MIT
# Optional dependencies. Each WITH_* option that is ON must find its dependency or fail here.
find_package(PkgConfig REQUIRED)

if(WITH_LTTNG)
  pkg_check_modules(LTTNG_UST IMPORTED_TARGET lttng-ust)
  if(NOT LTTNG_UST_FOUND)
    message(FATAL_ERROR "WITH_LTTNG=ON but lttng-ust was not found "
                        "(apt-get install liblttng-ust-dev, or configure with -DWITH_LTTNG=OFF)")
  endif()
  pkg_check_modules(LTTNG_CTL REQUIRED IMPORTED_TARGET lttng-ctl) # liblttng-ctl-dev: the sessions
endif()

if(WITH_OFI)
  pkg_check_modules(LIBFABRIC IMPORTED_TARGET libfabric)
  if(NOT LIBFABRIC_FOUND)
    message(FATAL_ERROR "WITH_OFI=ON but libfabric was not found "
                        "(apt-get install libfabric-dev, or configure with -DWITH_OFI=OFF)")
  endif()
endif()

if(WITH_PMIX)
  pkg_check_modules(PMIX IMPORTED_TARGET pmix)
  if(NOT PMIX_FOUND)
    message(FATAL_ERROR "WITH_PMIX=ON but PMIx was not found "
                        "(apt-get install libpmix-dev, or configure with -DWITH_PMIX=OFF)")
  endif()
endif()

if(WITH_ANALYSIS)
  pkg_check_modules(BABELTRACE2 IMPORTED_TARGET babeltrace2)
  if(NOT BABELTRACE2_FOUND)
    message(FATAL_ERROR "WITH_ANALYSIS=ON but babeltrace2 was not found "
                        "(apt-get install libbabeltrace2-dev, or configure with -DWITH_ANALYSIS=OFF)")
  endif()
endif()

if(PROXYSCOPE_TESTS)
  # Debian's cmocka CMake config defines no imported target: use pkg-config.
  pkg_check_modules(CMOCKA REQUIRED IMPORTED_TARGET cmocka)
endif()
