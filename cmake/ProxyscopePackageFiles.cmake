# SPDX-License-Identifier: MIT
# proxyscope_install_package_files(): the install rules of the CMake package
# (proxyscope::proxyscope, from the export set proxyscopeTargets, which the caller fills) and of
# the pkg-config file proxyscope.pc, both right for any prefix and LIBDIR. A file of its own so
# that tests/install/prefix_project checks this very code with a multiarch LIBDIR without a
# second build of the project.
include(CMakePackageConfigHelpers)
set(_proxyscope_cmake_dir ${CMAKE_CURRENT_LIST_DIR})

function(proxyscope_install_package_files)
  install(EXPORT proxyscopeTargets NAMESPACE proxyscope::
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/proxyscope)

  configure_package_config_file(${_proxyscope_cmake_dir}/proxyscopeConfig.cmake.in
    ${PROJECT_BINARY_DIR}/proxyscopeConfig.cmake
    INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/proxyscope)
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/proxyscopeConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/proxyscopeConfig.cmake
                ${PROJECT_BINARY_DIR}/proxyscopeConfigVersion.cmake
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/proxyscope)

  # The pkg-config file. Where it finds the prefix depends on where it is installed, decided at
  # install time (the prefix of `cmake --install --prefix P` or of a package is only known then):
  # - /usr and /usr/local: the absolute prefix. Files there are never moved, and pkg-config drops
  #   -I/usr/include and -L/usr/lib... only when they are spelt so: a path through
  #   ${pcfiledir}/../.. would put the system directories on every user's command line.
  # - anywhere else: relative to the file itself, ${pcfiledir} and one `..` per directory of
  #   LIBDIR/pkgconfig (three for lib/x86_64-linux-gnu/pkgconfig, two for lib/pkgconfig), so the
  #   prefix can be moved as a whole.
  # An absolute LIBDIR or INCLUDEDIR cannot move: then both are written as they are.
  # Nothing but libdl and threads for a static link: libfabric is loaded at run time.
  set(_pc_dir "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
  cmake_path(NORMAL_PATH _pc_dir)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
    set(PROXYSCOPE_PC_LIBDIR "${CMAKE_INSTALL_FULL_LIBDIR}")
    set(PROXYSCOPE_PC_INCLUDEDIR "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
    set(_pc_relocatable_prefix "${CMAKE_INSTALL_PREFIX}")
  else()
    set(PROXYSCOPE_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
    set(PROXYSCOPE_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
    string(REGEX REPLACE "/$" "" _pc_up "${_pc_dir}")
    string(REGEX REPLACE "[^/]+" ".." _pc_up "${_pc_up}")
    set(_pc_relocatable_prefix "\${pcfiledir}/${_pc_up}")
  endif()
  set(PROXYSCOPE_PC_PREFIX "${_pc_relocatable_prefix}")
  configure_file(${_proxyscope_cmake_dir}/proxyscope.pc.in
                 ${PROJECT_BINARY_DIR}/pkgconfig/relocatable/proxyscope.pc @ONLY)
  # The absolute one keeps a placeholder (configure_file substitutes once) filled in at install time.
  set(PROXYSCOPE_PC_PREFIX "@PROXYSCOPE_PC_INSTALL_PREFIX@")
  configure_file(${_proxyscope_cmake_dir}/proxyscope.pc.in
                 ${PROJECT_BINARY_DIR}/pkgconfig/absolute/proxyscope.pc.in @ONLY)
  install(CODE "set(_pc_build \"${PROJECT_BINARY_DIR}/pkgconfig\")\nset(_pc_dest \"${_pc_dir}\")")
  install(CODE [[
    if(NOT IS_ABSOLUTE "${_pc_dest}")
      set(_pc_dest "${CMAKE_INSTALL_PREFIX}/${_pc_dest}")
    endif()
    if(CMAKE_INSTALL_PREFIX MATCHES "^/usr(/local)?/?$")
      string(REGEX REPLACE "(.)/$" "\\1" _pc_prefix "${CMAKE_INSTALL_PREFIX}")
      file(READ "${_pc_build}/absolute/proxyscope.pc.in" _pc)
      string(REPLACE "@PROXYSCOPE_PC_INSTALL_PREFIX@" "${_pc_prefix}" _pc "${_pc}")
      file(WRITE "${_pc_build}/absolute/proxyscope.pc" "${_pc}")
      file(INSTALL DESTINATION "${_pc_dest}" TYPE FILE FILES "${_pc_build}/absolute/proxyscope.pc")
    else()
      file(INSTALL DESTINATION "${_pc_dest}" TYPE FILE FILES "${_pc_build}/relocatable/proxyscope.pc")
    endif()
  ]])
endfunction()
