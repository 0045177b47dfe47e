# proxyscope_component(<name> <src>...): an object library of lib/ with the common include paths.
function(proxyscope_component name)
  add_library(${name} OBJECT ${ARGN})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/lib/include
                                     PRIVATE ${PROJECT_SOURCE_DIR}/lib)
  target_link_libraries(${name} PRIVATE Threads::Threads)
endfunction()
