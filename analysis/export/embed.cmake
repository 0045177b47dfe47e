# SPDX-License-Identifier: MIT
# cmake -DIN=<file> -DOUT=<file.c> -DNAME=<symbol> -P embed.cmake
# Writes OUT defining `const char NAME[]` (IN's bytes, NUL-terminated) and `NAME_len`, so a
# text resource (the html export's page) is edited as itself and compiled into the library.
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n" hex "${hex}")
file(WRITE "${OUT}.tmp"
  "/* Generated from ${IN} by embed.cmake: edit that file instead. */\n"
  "#include <stddef.h>\n"
  "extern const char ${NAME}[];\n"
  "extern const size_t ${NAME}_len;\n"
  "const char ${NAME}[] = {\n${hex}\n0x00};\n"
  "const size_t ${NAME}_len = sizeof(${NAME}) - 1;\n")
file(RENAME "${OUT}.tmp" "${OUT}")
