# Small helpers so that each folder's CMakeLists.txt stays a list of what it builds.
#
#   sluice_library(NAME SRCS a.cc b.cc DEPS x y)         static library sluice_NAME, includes rooted at repo
#   sluice_executable(NAME SRCS main.cc DEPS x)           a program
#   sluice_test(NAME SRCS t.cc DEPS x LABEL unit [TIMEOUT s] [ARGS ...])  a GoogleTest binary under ctest
#   sluice_benchmark(NAME SRCS b.cc DEPS x)               a Google Benchmark binary (not run by ctest)
#   sluice_fuzzer(NAME SRCS f.cc DEPS x)                  a libFuzzer target (only when SLUICE_FUZZ=ON)
include(SluiceWarnings)

function(sluice_library name)
  cmake_parse_arguments(A "" "" "SRCS;DEPS" ${ARGN})
  add_library(sluice_${name} STATIC ${A_SRCS})
  target_include_directories(sluice_${name} PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
  target_link_libraries(sluice_${name} PUBLIC ${A_DEPS})
  sluice_warnings(sluice_${name})
endfunction()

function(sluice_executable name)
  cmake_parse_arguments(A "" "" "SRCS;DEPS" ${ARGN})
  add_executable(${name} ${A_SRCS})
  target_link_libraries(${name} PRIVATE ${A_DEPS})
  sluice_warnings(${name})
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

# A fuzz target runs under ctest (label fuzz) for SLUICE_FUZZ_SECONDS from the seed corpus
# folder SEEDS (made by a SEED_COMMAND at test time, e.g. extracting messages from a capture).
set(SLUICE_FUZZ_SECONDS 60 CACHE STRING "Seconds each libFuzzer target runs under ctest")
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
  set(_cmd "mkdir -p ${_corpus}")
  if(A_SEED_COMMAND)
    list(JOIN A_SEED_COMMAND " " _seed)
    string(APPEND _cmd " && ${_seed} ${_corpus}")
  endif()
  string(APPEND _cmd " && $<TARGET_FILE:${name}> -max_total_time=${SLUICE_FUZZ_SECONDS} -rss_limit_mb=4096 -print_final_stats=1 ${_corpus}")
  add_test(NAME ${name} COMMAND sh -c "${_cmd}")
  set_tests_properties(${name} PROPERTIES LABELS fuzz TIMEOUT 600
    ENVIRONMENT "SLUICE_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
  set_property(GLOBAL APPEND PROPERTY SLUICE_asan_TARGETS ${name})
endfunction()
