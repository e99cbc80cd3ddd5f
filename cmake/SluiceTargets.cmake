# Small helpers so that each folder's CMakeLists.txt stays a list of what it builds.
#
#   sluice_library(NAME SRCS a.cc b.cc DEPS x y)         static library sluice_NAME, includes rooted at repo
#   sluice_executable(NAME SRCS main.cc DEPS x [INSTALL bin|sbin|daemon])
#                                                         a program; INSTALL: where `cmake
#                                                         --install` and the package put it
#   sluice_test(NAME SRCS t.cc DEPS x LABEL unit [TIMEOUT s] [ARGS ...])  a GoogleTest binary under ctest
#   sluice_benchmark(NAME SRCS b.cc DEPS x)               a Google Benchmark binary (not run by ctest)
#   sluice_fuzzer(NAME SRCS f.cc DEPS x)                  a libFuzzer target (only when SLUICE_FUZZ=ON)
include(SluiceWarnings)
include(GNUInstallDirs)

# Installed layout (relative to the prefix): people's programs in bin, the router manager in
# sbin, the daemons it starts in lib/sluice (Debian's place for a package's private programs;
# not CMAKE_INSTALL_LIBDIR, which may be a multiarch directory). sluice-rtrmgr finds the
# daemons from its own location (rtrmgr/process/program_dir.h).
set(SLUICE_INSTALL_BINDIR ${CMAKE_INSTALL_BINDIR})
set(SLUICE_INSTALL_SBINDIR ${CMAKE_INSTALL_SBINDIR})
set(SLUICE_INSTALL_DAEMONDIR lib/sluice)

function(sluice_library name)
  cmake_parse_arguments(A "" "" "SRCS;DEPS" ${ARGN})
  add_library(sluice_${name} STATIC ${A_SRCS})
  target_include_directories(sluice_${name} PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
  target_link_libraries(sluice_${name} PUBLIC ${A_DEPS})
  sluice_warnings(sluice_${name})
endfunction()

function(sluice_executable name)
  cmake_parse_arguments(A "" "INSTALL" "SRCS;DEPS" ${ARGN})
  add_executable(${name} ${A_SRCS})
  target_link_libraries(${name} PRIVATE ${A_DEPS})
  sluice_warnings(${name})
  if(A_INSTALL STREQUAL "bin")
    install(TARGETS ${name} RUNTIME DESTINATION ${SLUICE_INSTALL_BINDIR})
  elseif(A_INSTALL STREQUAL "sbin")
    install(TARGETS ${name} RUNTIME DESTINATION ${SLUICE_INSTALL_SBINDIR})
  elseif(A_INSTALL STREQUAL "daemon")
    install(TARGETS ${name} RUNTIME DESTINATION ${SLUICE_INSTALL_DAEMONDIR})
  elseif(A_INSTALL)
    message(FATAL_ERROR "sluice_executable(${name}): INSTALL is bin, sbin or daemon")
  endif()
  if(A_INSTALL)
    set_property(GLOBAL APPEND PROPERTY SLUICE_INSTALLED_PROGRAMS ${name})
  endif()
endfunction()

# LABEL is one or more of: unit, system, interop (the normal build runs these), plus asan or
# tsan to also build and run the test in the AddressSanitizer/UBSan or ThreadSanitizer build of
# test.sh. Tests that need root, daemons or data skip themselves with GTEST_SKIP() and a message;
# ctest counts them as skipped.
function(sluice_test name)
  cmake_parse_arguments(A "" "TIMEOUT" "SRCS;DEPS;ARGS;LABEL" ${ARGN})
  if(NOT A_LABEL)
    set(A_LABEL unit)
  endif()
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 300)
  endif()
  add_executable(${name} ${A_SRCS})
  target_link_libraries(${name} PRIVATE ${A_DEPS} GTest::gmock GTest::gtest_main)
  sluice_warnings(${name})
  add_test(NAME ${name} COMMAND ${name} ${A_ARGS})
  set_tests_properties(${name} PROPERTIES LABELS "${A_LABEL}" TIMEOUT ${A_TIMEOUT}
    SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]"
    ENVIRONMENT "SLUICE_BUILD_DIR=${PROJECT_BINARY_DIR};SLUICE_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
  foreach(_san asan tsan)
    if(_san IN_LIST A_LABEL)
      set_property(GLOBAL APPEND PROPERTY SLUICE_${_san}_TARGETS ${name})
    endif()
  endforeach()
endfunction()

# test.sh builds only the targets a sanitizer build needs: it reads these lists.
function(sluice_write_sanitizer_target_lists)
  foreach(_san asan tsan)
    get_property(_targets GLOBAL PROPERTY SLUICE_${_san}_TARGETS)
    list(JOIN _targets " " _text)
    file(WRITE ${PROJECT_BINARY_DIR}/sanitize-${_san}-targets.txt "${_text}\n")
  endforeach()
endfunction()

function(sluice_benchmark name)
  cmake_parse_arguments(A "" "" "SRCS;DEPS" ${ARGN})
  add_executable(${name} ${A_SRCS})
  target_link_libraries(${name} PRIVATE ${A_DEPS} benchmark::benchmark)
  sluice_warnings(${name})
endfunction()

# A fuzz target runs under ctest (label fuzz) for SLUICE_FUZZ_SECONDS. It reads the seeds
# committed in tests/fuzz/corpus/NAME (when that folder exists) and the working corpus folder
# NAME_corpus in the build tree, where it writes what it finds (SEED_COMMAND, when given, adds
# seeds made at test time, e.g. messages extracted from the captures in SLUICE_DATA_DIR). The
# test fails on a crash, a sanitizer report, a leak, one input running longer than
# SLUICE_FUZZ_INPUT_TIMEOUT seconds, or more than SLUICE_FUZZ_RSS_MB of memory.
set(SLUICE_FUZZ_SECONDS 60 CACHE STRING "Seconds each libFuzzer target runs under ctest")
set(SLUICE_FUZZ_INPUT_TIMEOUT 30 CACHE STRING "Seconds one fuzz input may run before it fails")
set(SLUICE_FUZZ_RSS_MB 2048 CACHE STRING "Memory limit of a fuzz run, in MiB")
function(sluice_fuzzer name)
  cmake_parse_arguments(A "" "" "SRCS;DEPS;SEED_COMMAND" ${ARGN})
  if(NOT SLUICE_FUZZ)
    return()
  endif()
  add_executable(${name} ${A_SRCS})
  target_compile_options(${name} PRIVATE -fsanitize=fuzzer)
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  target_link_libraries(${name} PRIVATE ${A_DEPS})
  sluice_warnings(${name})
  set(_corpus ${CMAKE_CURRENT_BINARY_DIR}/${name}_corpus)
  set(_seeds ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/${name})
  set(_cmd "mkdir -p ${_corpus}")
  if(A_SEED_COMMAND)
    list(JOIN A_SEED_COMMAND " " _seed)
    string(APPEND _cmd " && ${_seed} ${_corpus}")
  endif()
  string(APPEND _cmd " && $<TARGET_FILE:${name}> -max_total_time=${SLUICE_FUZZ_SECONDS}"
    " -timeout=${SLUICE_FUZZ_INPUT_TIMEOUT} -rss_limit_mb=${SLUICE_FUZZ_RSS_MB}"
    " -print_final_stats=1 -artifact_prefix=${CMAKE_CURRENT_BINARY_DIR}/${name}- ${_corpus}")
  if(EXISTS ${_seeds})
    string(APPEND _cmd " ${_seeds}")
  endif()
  math(EXPR _timeout "${SLUICE_FUZZ_SECONDS} + 300")
  add_test(NAME ${name} COMMAND sh -c "${_cmd}")
  set_tests_properties(${name} PROPERTIES LABELS fuzz TIMEOUT ${_timeout}
    ENVIRONMENT "SLUICE_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
  set_property(GLOBAL APPEND PROPERTY SLUICE_asan_TARGETS ${name})
endfunction()
