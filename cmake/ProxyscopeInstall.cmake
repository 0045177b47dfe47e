# SPDX-License-Identifier: MIT
# install(): the shared library, public headers, a CMake package (proxyscope::proxyscope), a
# pkg-config file (proxyscope.pc), the example, the licence and the documentation. The Debian
# package (ProxyscopePackage.cmake) is made from these same rules.
include(CMakePackageConfigHelpers)

install(TARGETS proxyscope EXPORT proxyscopeTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lib/include/proxyscope
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The CMake package and the pkg-config file, right for any prefix (ProxyscopePackageFiles.cmake;
# tests/install/prefix_project uses the same code with a multiarch LIBDIR).
include(ProxyscopePackageFiles)
proxyscope_install_package_files()

# The example: a standalone CMake project building against the installed package.
install(FILES ${PROJECT_SOURCE_DIR}/examples/CMakeLists.txt ${PROJECT_SOURCE_DIR}/examples/ring.c
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

# The licence and the documentation, with the README's relative links kept (docs/...): the JSON
# schemas of the --json documents are in docs/schema/, installed with the rest of docs/.
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/README.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs DESTINATION ${CMAKE_INSTALL_DOCDIR})
# Where a Debian system looks for a package's licence.
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME copyright)
