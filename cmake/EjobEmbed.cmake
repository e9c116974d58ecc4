# ejob_embed_files(TARGET ROOT DIR...): compiles every file under ROOT/DIR (recursively) into
# TARGET as data, so the binary carries its default chart and scaffolding and works from any
# directory. The files are listed by cli/embedded.hpp (`embedded_files()`), each with its path
# relative to ROOT. The generated source is rebuilt when a file is added, removed or changed.
# EJOB_EMBED_HEADER and EJOB_EMBED_NAMESPACE, when set by the caller, name another header
# declaring EmbeddedFile, k_embedded and k_embedded_count, and its namespace.
function(ejob_embed_files target root)
  if(NOT EJOB_EMBED_HEADER)
    set(EJOB_EMBED_HEADER cli/embedded.hpp)
    set(EJOB_EMBED_NAMESPACE ejob::cli)
  endif()
  set(files)
  foreach(dir ${ARGN})
    file(GLOB_RECURSE found CONFIGURE_DEPENDS ${root}/${dir}/*)
    list(APPEND files ${found})
  endforeach()
  list(SORT files)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/embedded_files.cpp)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DROOT=${root} -DOUT=${out} "-DFILES=${files}"
            -DHEADER=${EJOB_EMBED_HEADER} -DNAMESPACE=${EJOB_EMBED_NAMESPACE} -P
            ${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake
    DEPENDS ${files} ${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake
    COMMENT "Embedding files for ${target}"
    VERBATIM)
  target_sources(${target} PRIVATE ${out})
endfunction()
