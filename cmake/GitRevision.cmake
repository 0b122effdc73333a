# ao_git_revision(OUT): the short commit of the source tree, with "-dirty"
# when tracked files differ from it, or "unknown" when the source directory
# is not the top of a git checkout (a tarball unpacked inside another
# repository must not report that repository's commit). Read at configure
# time; the HEAD reflog is made a configure dependency so a commit or a
# checkout re-runs configure and the revision follows.
function(ao_git_output out)
  execute_process(COMMAND ${GIT_EXECUTABLE} ${ARGN} WORKING_DIRECTORY ${CMAKE_SOURCE_DIR} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE text ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    set(text "")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

function(ao_git_revision out)
  set(${out} unknown PARENT_SCOPE)
  find_package(Git QUIET)
  if(NOT GIT_FOUND)
    return()
  endif()
  ao_git_output(top rev-parse --show-toplevel)
  ao_git_output(commit rev-parse --short HEAD)
  if(top STREQUAL "" OR commit STREQUAL "")
    return()
  endif()
  file(REAL_PATH "${top}" top)
  file(REAL_PATH "${CMAKE_SOURCE_DIR}" src)
  if(NOT top STREQUAL src)
    return()
  endif()
  ao_git_output(changes status --porcelain --untracked-files=no)
  if(NOT changes STREQUAL "")
    string(APPEND commit "-dirty")
  endif()
  ao_git_output(reflog rev-parse --git-path logs/HEAD)
  if(NOT reflog STREQUAL "" AND NOT IS_ABSOLUTE "${reflog}")
    set(reflog "${CMAKE_SOURCE_DIR}/${reflog}")
  endif()
  if(EXISTS "${reflog}")
    set_property(DIRECTORY "${CMAKE_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${reflog}")
  endif()
  set(${out} ${commit} PARENT_SCOPE)
endfunction()
