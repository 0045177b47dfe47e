# SPDX-License-Identifier: MIT
# Optional dependencies. Each WITH_* option that is ON must find its dependency or fail here.
find_package(PkgConfig REQUIRED)

# lib/net/ofi loads libfabric at run time (ofi_dl.c) instead of linking it: linked, every
# process paid libinfinipath's constructor (0.2 s) before main. proxyscope_libfabric_headers
# gives its headers and what ofi_dl.c resolves: the soname, and for each exported function it
# calls, the symbol version a link against this libfabric would bind (its default, name@@VER).
function(proxyscope_libfabric_dl)
  list(FILTER LIBFABRIC_LINK_LIBRARIES INCLUDE REGEX "libfabric[^/]*$")
  list(GET LIBFABRIC_LINK_LIBRARIES 0 _so)
  if(NOT CMAKE_READELF OR NOT EXISTS "${_so}")
    message(FATAL_ERROR "WITH_OFI=ON: libfabric is loaded at run time, which needs readelf "
                        "(binutils) and the library itself to read its soname and versions "
                        "(found: '${_so}')")
  endif()
  execute_process(COMMAND ${CMAKE_READELF} -W --dynamic --dyn-syms ${_so}
                  OUTPUT_VARIABLE _elf RESULT_VARIABLE _rc)
  string(REGEX MATCH "\\(SONAME\\)[^[]*\\[([^]]+)\\]" _m "${_elf}")
  set(_soname "${CMAKE_MATCH_1}")
  if(_rc OR NOT _soname)
    message(FATAL_ERROR "WITH_OFI=ON: no soname in ${_so} (readelf -d)")
  endif()
  set(_defs "ENC_FI_SONAME=\"${_soname}\"")
  foreach(_fn fi_getinfo fi_freeinfo fi_dupinfo fi_fabric fi_strerror fi_version)
    string(REGEX MATCH " ${_fn}@@([A-Za-z0-9_.]+)" _m "${_elf}")
    if(NOT CMAKE_MATCH_1)
      message(FATAL_ERROR "WITH_OFI=ON: ${_so} exports no default version of ${_fn}")
    endif()
    list(APPEND _defs "ENC_FI_VER_${_fn}=\"${CMAKE_MATCH_1}\"")
  endforeach()
  message(STATUS "libfabric loaded at run time: ${_soname} (${_defs})")
  add_library(proxyscope_libfabric_headers INTERFACE)
  target_include_directories(proxyscope_libfabric_headers INTERFACE ${LIBFABRIC_INCLUDE_DIRS})
  target_compile_options(proxyscope_libfabric_headers INTERFACE ${LIBFABRIC_CFLAGS_OTHER})
  target_compile_definitions(proxyscope_libfabric_headers INTERFACE ${_defs})
endfunction()

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
  proxyscope_libfabric_dl()
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
