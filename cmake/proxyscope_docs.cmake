# SPDX-License-Identifier: MIT
# The CLI's documentation, made at build time from docs/commands/*.txt by tools/docgen (a small C
# program built first: the build needs nothing beyond the compiler and CMake):
#   cli/gen/cli_help.h                          the --help texts and summaries the commands print
#   cli/docs/man1/proxyscope.1, proxyscope-<command>.1   the man pages
#   cli/docs/proxyscope.bash                    the bash completion (tools/docgen/completion.bash.in + data)
# One source per command, so the help, the page and the completion cannot disagree.
# Included by cli/CMakeLists.txt after the proxyscope_cli target exists.

set(_doc_src ${PROJECT_SOURCE_DIR}/docs/commands)
set(_docs ${CMAKE_CURRENT_BINARY_DIR}/docs)
set(_gen ${CMAKE_CURRENT_BINARY_DIR}/gen)

add_executable(proxyscope_docgen
  ${PROJECT_SOURCE_DIR}/tools/docgen/docgen.c ${PROJECT_SOURCE_DIR}/tools/docgen/docgen_parse.c
  ${PROJECT_SOURCE_DIR}/tools/docgen/docgen_help.c ${PROJECT_SOURCE_DIR}/tools/docgen/docgen_man.c
  ${PROJECT_SOURCE_DIR}/tools/docgen/docgen_bash.c ${PROJECT_SOURCE_DIR}/tools/docgen/docgen_util.c)
target_compile_definitions(proxyscope_docgen PRIVATE _GNU_SOURCE)

# The pages made: proxyscope.1 and one per command proxyscope.txt lists.
file(STRINGS ${_doc_src}/proxyscope.txt _doc_cmds REGEX "^@commands ")
string(REGEX REPLACE "^@commands +" "" _doc_cmds "${_doc_cmds}")
string(REPLACE " " ";" _doc_cmds "${_doc_cmds}")
set(_doc_pages ${_docs}/man1/proxyscope.1)
foreach(c ${_doc_cmds})
  list(APPEND _doc_pages ${_docs}/man1/proxyscope-${c}.1)
endforeach()
file(GLOB _doc_inputs CONFIGURE_DEPENDS ${_doc_src}/*.txt)

# The pages' date: SOURCE_DATE_EPOCH when set (reproducible builds), else the configure day.
string(TIMESTAMP _doc_date "%Y-%m-%d" UTC)

add_custom_command(
  OUTPUT ${_gen}/cli_help.h ${_doc_pages} ${_docs}/proxyscope.bash
  COMMAND ${CMAKE_COMMAND} -E make_directory ${_gen} ${_docs}/man1
  COMMAND proxyscope_docgen --src ${_doc_src} --version ${PROJECT_VERSION} --date ${_doc_date}
          --docdir ${CMAKE_INSTALL_FULL_DOCDIR} --datadir ${CMAKE_INSTALL_FULL_DATADIR}
          --header ${_gen}/cli_help.h --mandir ${_docs}/man1
          --bash-template ${PROJECT_SOURCE_DIR}/tools/docgen/completion.bash.in --bash ${_docs}/proxyscope.bash
  DEPENDS proxyscope_docgen ${_doc_inputs} ${PROJECT_SOURCE_DIR}/tools/docgen/completion.bash.in
  COMMENT "Generating the --help texts, man pages and bash completion of proxyscope")
add_custom_target(proxyscope_docs ALL DEPENDS ${_gen}/cli_help.h ${_doc_pages}
                                              ${_docs}/proxyscope.bash)
target_sources(proxyscope_cli PRIVATE ${_gen}/cli_help.h)
target_include_directories(proxyscope_cli PRIVATE ${_gen})

install(FILES ${_doc_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${_docs}/proxyscope.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME proxyscope)
