# SPDX-License-Identifier: MIT
# proxyscope_component(<name> <src>...): an object library of lib/ with the common include paths.
# With LTTng and the benchmarks enabled, a second object library <name>_notrace is built from
# the same sources with the tracepoints compiled out: the baseline of bench/bench_trace.
function(proxyscope_component name)
  add_library(${name} OBJECT ${ARGN})
  _proxyscope_component_setup(${name})
  if(WITH_LTTNG)
    # Tracepoints in the dynamic-linkage layout: the provider headers only, no liblttng-ust.
    target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tracepoints
                               ${LTTNG_UST_INCLUDE_DIRS})
    # The probe library is found relative to the loaded object (lib/common/trace.c): only the
    # installed BINDIR -> LIBDIR step is compiled in, never an absolute path.
    file(RELATIVE_PATH _bin_to_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
    target_compile_definitions(${name} PRIVATE ENC_WITH_LTTNG=1 LTTNG_UST_COMPAT_API_VERSION=1
      ENC_TP_BIN_TO_LIB="${_bin_to_lib}")
    if(PROXYSCOPE_BENCH)
      add_library(${name}_notrace OBJECT ${ARGN})
      _proxyscope_component_setup(${name}_notrace)
      target_compile_definitions(${name}_notrace PRIVATE ENC_WITH_LTTNG=0)
    endif()
  else()
    target_compile_definitions(${name} PRIVATE ENC_WITH_LTTNG=0)
  endif()
endfunction()

function(_proxyscope_component_setup name)
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/lib/include
                                     PRIVATE ${PROJECT_SOURCE_DIR}/lib)
  target_link_libraries(${name} PRIVATE Threads::Threads proxyscope_trace_events proxyscope_util)
endfunction()
