#include "base/version.h"

#include <gtest/gtest.h>

#include <string>

namespace sluice::base {
namespace {

TEST(VersionTest, StartsWithTheProjectVersion) {
  const std::string version(Version());
  ASSERT_FALSE(version.empty());
  // SLUICE_EXPECTED_VERSION is CMake's PROJECT_VERSION, given to this test alone.
  EXPECT_EQ(version.rfind(SLUICE_EXPECTED_VERSION, 0), 0u) << version;
}

TEST(VersionTest, AnythingAfterTheProjectVersionIsTheSourceInParentheses) {
  const std::string version(Version());
  const std::string rest = version.substr(std::string(SLUICE_EXPECTED_VERSION).size());
  if (rest.empty()) return;  // configured without git
  ASSERT_GE(rest.size(), 4u) << version;
  EXPECT_EQ(rest.substr(0, 2), " (") << version;
  EXPECT_EQ(rest.back(), ')') << version;
}

TEST(VersionTest, PrintVersionPrintsProgramAndVersion) {
  ::testing::internal::CaptureStdout();
  PrintVersion("sluice-test");
  EXPECT_EQ(::testing::internal::GetCapturedStdout(),
            "sluice-test " + std::string(Version()) + "\n");
}

}  // namespace
}  // namespace sluice::base
