# SPDX-License-Identifier: MIT
# The launcher of the tests that record: each gets a session daemon of its own
# (tests/private_lttng.sh), so two test runs at once never record each other's processes.
set(PROXYSCOPE_PRIVATE_LTTNG sh ${PROJECT_SOURCE_DIR}/tests/private_lttng.sh)

# proxyscope_add_test(<name> SOURCES <src>... [LABELS <label>...] [LIBS <lib>...] [TIMEOUT <s>]
#                     [LTTNG])
# One cmocka executable per module, registered with ctest under <name> and the given labels
# (a kind: unit | integration | stress, and a component). LTTNG: the test records; it runs with
# a private session daemon and holds the `lttng` resource lock.
function(proxyscope_add_test name)
  cmake_parse_arguments(T "LTTNG" "TIMEOUT" "SOURCES;LABELS;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} PkgConfig::CMOCKA Threads::Threads)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  if(T_LTTNG)
    add_test(NAME ${name} COMMAND ${PROXYSCOPE_PRIVATE_LTTNG} $<TARGET_FILE:${name}>)
    set_tests_properties(${name} PROPERTIES RESOURCE_LOCK lttng)
  else()
    add_test(NAME ${name} COMMAND ${name})
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT}
                       SKIP_RETURN_CODE 77)
endfunction()

# proxyscope_add_lttng_script(<name> <script> LABELS <label>... [TIMEOUT <s>] [ARGS <arg>...])
# A POSIX shell test that records: `sh <script> <arg>...` under tests/private_lttng.sh, holding
# the `lttng` resource lock; exit 77 skips (lttng-tools missing).
function(proxyscope_add_lttng_script name script)
  cmake_parse_arguments(T "" "TIMEOUT" "LABELS;ARGS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  add_test(NAME ${name} COMMAND ${PROXYSCOPE_PRIVATE_LTTNG} sh ${script} ${T_ARGS})
  set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT}
                       RESOURCE_LOCK lttng SKIP_RETURN_CODE 77)
endfunction()

# proxyscope_quiet_tests(): called at the end of every tests/<dir>/CMakeLists.txt. A recording
# session records every process that loads the probe library, so that the tests that record
# (RESOURCE_LOCK lttng) see only their own processes, every other test of the directory runs
# with the probe library off (ENC_TRACE=0).
function(proxyscope_quiet_tests)
  get_property(_tests DIRECTORY PROPERTY TESTS)
  foreach(_t ${_tests})
    get_test_property(${_t} RESOURCE_LOCK _lock)
    if(NOT _lock MATCHES "lttng")
      set_property(TEST ${_t} APPEND PROPERTY ENVIRONMENT ENC_TRACE=0)
    endif()
  endforeach()
endfunction()
