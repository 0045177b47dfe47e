# install(): the shared library, public headers, a CMake package (proxyscope::proxyscope) and
# a pkg-config file (proxyscope.pc).
include(CMakePackageConfigHelpers)

install(TARGETS proxyscope EXPORT proxyscopeTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lib/include/proxyscope
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT proxyscopeTargets NAMESPACE proxyscope::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/proxyscope)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/proxyscopeConfig.cmake.in
  ${PROJECT_BINARY_DIR}/proxyscopeConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/proxyscope)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/proxyscopeConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/proxyscopeConfig.cmake
              ${PROJECT_BINARY_DIR}/proxyscopeConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/proxyscope)

set(PROXYSCOPE_PC_LIBS_PRIVATE "")
if(WITH_OFI)
  set(PROXYSCOPE_PC_LIBS_PRIVATE "-lfabric")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/proxyscope.pc.in
               ${PROJECT_BINARY_DIR}/proxyscope.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/proxyscope.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The example: a standalone CMake project building against the installed package.
install(FILES ${PROJECT_SOURCE_DIR}/examples/CMakeLists.txt ${PROJECT_SOURCE_DIR}/examples/ring.c
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
