#pragma once
// Golden-file comparison for trace tests.
//
//   EXPECT_GOLDEN(capture->Text(), "tests/stage/golden/splice.trace");
//
// The path is relative to the source tree (SLUICE_SOURCE_DIR, set by ctest). With
// SLUICE_UPDATE_GOLDEN=1 in the environment the file is (re)written instead and the test
// passes, so a reviewed change of behaviour updates the golden file in one run.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace sluice::testing {

inline std::string SourcePath(const std::string& relative) {
  const char* root = std::getenv("SLUICE_SOURCE_DIR");
  return (root != nullptr ? std::string(root) + "/" : std::string()) + relative;
}

inline ::testing::AssertionResult MatchesGolden(const std::string& actual,
                                                const std::string& relative) {
  const std::string path = SourcePath(relative);
  if (const char* update = std::getenv("SLUICE_UPDATE_GOLDEN"); update && *update == '1') {
    std::ofstream(path) << actual;
    return ::testing::AssertionSuccess() << "updated " << path;
  }
  std::ifstream in(path);
  if (!in) {
    return ::testing::AssertionFailure()
           << "no golden file " << path << " (run with SLUICE_UPDATE_GOLDEN=1 to create it)";
  }
  std::stringstream expected;
  expected << in.rdbuf();
  if (expected.str() == actual) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "trace differs from " << path << "\n--- expected\n"
                                       << expected.str() << "--- actual\n"
                                       << actual;
}

}  // namespace sluice::testing

#define EXPECT_GOLDEN(actual, relative) \
  EXPECT_TRUE(::sluice::testing::MatchesGolden((actual), (relative)))
