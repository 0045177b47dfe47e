# cmake -DBIN=<proxyscope> -DVERSION=<v> -DOUT=<dir> -DTEMPLATE=<completion.bash.in>
#       -P proxyscope_docs.cmake
# Generates, from the --help texts of the built proxyscope itself (so they never disagree):
#   OUT/man1/proxyscope.1, OUT/man1/proxyscope-<command>.1   the man pages
#   OUT/proxyscope.bash                                      the bash completion
# A man page is the help text as it is (preformatted), with NAME, SYNOPSIS and SEE ALSO.

function(help_of out)
  execute_process(COMMAND ${BIN} ${ARGN} --help OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${BIN} ${ARGN} --help exited ${rc}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# roff-escape one help text: backslashes, and lines that would start a request.
function(roff_escape out text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Write the man page of `proxyscope <cmd>` (cmd empty: proxyscope itself).
function(man_page cmd summary see_also)
  if(cmd)
    help_of(text ${cmd})
    set(name "proxyscope-${cmd}")
  else()
    help_of(text)
    set(name "proxyscope")
  endif()
  string(TOUPPER "${name}" title)
  # SYNOPSIS: the usage lines (up to the first blank line); DESCRIPTION: the rest.
  string(FIND "${text}" "\n\n" cut)
  string(SUBSTRING "${text}" 0 ${cut} synopsis)
  math(EXPR rest_at "${cut} + 2")
  string(SUBSTRING "${text}" ${rest_at} -1 body)
  string(REGEX REPLACE "^usage: " "" synopsis "${synopsis}")
  roff_escape(synopsis "${synopsis}")
  roff_escape(body "${body}")
  roff_escape(summary "${summary}")
  set(page ".TH ${title} 1 \"\" \"proxyscope ${VERSION}\" \"proxyscope manual\"\n")
  string(APPEND page ".SH NAME\n${name} \\- ${summary}\n")
  string(APPEND page ".SH SYNOPSIS\n.nf\n${synopsis}\n.fi\n")
  string(APPEND page ".SH DESCRIPTION\n.nf\n${body}.fi\n")
  string(APPEND page ".SH SEE ALSO\n${see_also}\n")
  file(WRITE "${OUT}/man1/${name}.1" "${page}")
endfunction()

# The commands and their summaries, from the top-level help's "Commands:" table.
help_of(top)
string(REGEX MATCH "\nCommands:\n(   [^\n]+\n)+" table "${top}")
string(REGEX MATCHALL "   [a-z]+ +[^\n]+" rows "${table}")
set(commands "")
set(see_also "")
foreach(row ${rows})
  string(REGEX REPLACE "^   ([a-z]+) +(.*)$" "\\1" c "${row}")
  string(REGEX REPLACE "^   ([a-z]+) +(.*)$" "\\2" s "${row}")
  list(APPEND commands ${c})
  set(summary_${c} "${s}")
  if(see_also)
    string(APPEND see_also ",\n")
  endif()
  string(APPEND see_also ".BR proxyscope-${c} (1)")
endforeach()
if(NOT commands)
  message(FATAL_ERROR "no Commands: table in `${BIN} --help`")
endif()

file(MAKE_DIRECTORY "${OUT}/man1")
man_page("" "record, analyze and explain proxy driver traces" "${see_also}")
foreach(c ${commands})
  man_page(${c} "${summary_${c}}" ".BR proxyscope (1)")
endforeach()

# The completion: each command's options, as its --help spells them.
set(PROXYSCOPE_COMMANDS "${commands}")
string(REPLACE ";" " " PROXYSCOPE_COMMANDS "${PROXYSCOPE_COMMANDS}")
set(PROXYSCOPE_CMD_OPTS "")
foreach(c ${commands})
  help_of(text ${c})
  # An option is a dash word after a blank, a '[' or a '(' (not the dash inside "per-poll");
  # brackets go first: CMake lists do not split inside them.
  string(REGEX REPLACE "[][()]" " " text "${text}")
  string(REGEX MATCHALL "[ \n]--?[a-z][a-z-]*" found "${text}")
  set(opts "")
  foreach(o ${found})
    string(REGEX REPLACE "^[^-]" "" o "${o}")
    list(APPEND opts "${o}")
  endforeach()
  list(REMOVE_DUPLICATES opts)
  list(SORT opts)
  string(REPLACE ";" " " opts "${opts}")
  string(APPEND PROXYSCOPE_CMD_OPTS "\t${c}) opts=\"${opts}\" ;;\n")
endforeach()
configure_file("${TEMPLATE}" "${OUT}/proxyscope.bash" @ONLY)
