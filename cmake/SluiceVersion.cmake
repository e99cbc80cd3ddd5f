# sluice_source_describe(VAR): the `git describe` of the source tree's commit, with a "g" before
# a bare commit id ("g1234abc", "v0.1.0-3-g1234abc"); empty when git or the repository is missing
# (a source tarball). Only the configure step runs git: the build never needs it, but a commit or
# checkout (which moves HEAD's reflog) makes the next build configure again. Uncommitted changes
# are not marked: they would not trigger that.
function(sluice_source_describe var)
  set(${var} "" PARENT_SCOPE)
  find_package(Git QUIET)
  if(NOT GIT_FOUND)
    return()
  endif()
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --show-toplevel
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} RESULT_VARIABLE _rc OUTPUT_VARIABLE _top
    ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  # Not our repository: the source may be unpacked inside someone else's checkout.
  if(NOT _rc EQUAL 0 OR NOT _top STREQUAL PROJECT_SOURCE_DIR)
    return()
  endif()
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --tags --always --abbrev=7
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} RESULT_VARIABLE _rc OUTPUT_VARIABLE _describe
    ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _rc EQUAL 0)
    return()
  endif()
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --path-format=absolute --git-path logs/HEAD
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE _reflog ERROR_QUIET
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(_reflog AND EXISTS ${_reflog})
    set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_reflog})
  endif()
  if(_describe MATCHES "^[0-9a-f]+$")
    set(_describe "g${_describe}")
  endif()
  set(${var} "${_describe}" PARENT_SCOPE)
endfunction()
