# SPDX-License-Identifier: MIT
# Compiler flags shared by every target: C11 + _GNU_SOURCE, hidden visibility, warnings,
# and the sanitizer selected with PROXYSCOPE_SANITIZE.
set(CMAKE_C_STANDARD 11)
set(CMAKE_C_STANDARD_REQUIRED ON)
set(CMAKE_C_EXTENSIONS OFF)
set(CMAKE_C_VISIBILITY_PRESET hidden)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)

add_compile_definitions(_GNU_SOURCE)
add_compile_options(-Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
                    -Wformat=2 -Wno-unused-parameter -Wvla)
# Nothing installed names the build tree: the debug info's compilation directories (and the
# generated sources) are recorded relative to it.
add_compile_options(-ffile-prefix-map=${PROJECT_BINARY_DIR}=.)
if(PROXYSCOPE_WERROR)
  add_compile_options(-Werror)
endif()

if(PROXYSCOPE_SANITIZE)
  add_compile_options(-fsanitize=${PROXYSCOPE_SANITIZE} -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=${PROXYSCOPE_SANITIZE})
  if(PROXYSCOPE_SANITIZE MATCHES "undefined")
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
endif()
