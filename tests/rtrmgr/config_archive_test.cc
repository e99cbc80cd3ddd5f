// The archive of committed configurations (rtrmgr/process/config_archive.h): newest first, no
// duplicate of the newest, at most 20 entries, private files, and a clear error past the end.
#include "rtrmgr/process/config_archive.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice::rtrmgr {
namespace {

using ::testing::HasSubstr;

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class ConfigArchiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/sluice-archive.XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(ConfigArchiveTest, NewestFirstWithoutRepeatingTheNewest) {
  ConfigArchive archive(dir_ + "/archive");
  ASSERT_TRUE(archive.Add("one").ok());
  ASSERT_TRUE(archive.Add("two").ok());
  ASSERT_TRUE(archive.Add("two").ok());  // a reload that changed nothing
  ASSERT_TRUE(archive.Add("one").ok());  // a rollback is a commit of its own
  EXPECT_EQ(archive.Sequence().size(), 3u);
  EXPECT_EQ(Read(*archive.Path(0)), "one");
  EXPECT_EQ(Read(*archive.Path(1)), "two");
  EXPECT_EQ(Read(*archive.Path(2)), "one");
  struct stat st;
  ASSERT_EQ(stat(archive.dir().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(stat(archive.Path(0)->c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(ConfigArchiveTest, KeepsTheLastTwenty) {
  ConfigArchive archive(dir_);
  for (int i = 1; i <= 25; ++i) ASSERT_TRUE(archive.Add(absl::StrCat("config ", i)).ok());
  EXPECT_EQ(archive.Sequence().size(), ConfigArchive::kKeep);
  EXPECT_EQ(Read(*archive.Path(0)), "config 25");
  EXPECT_EQ(Read(*archive.Path(19)), "config 6");
  absl::StatusOr<std::string> past = archive.Path(20);
  ASSERT_FALSE(past.ok());
  EXPECT_EQ(past.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(past.status().message(), HasSubstr("holds 20 configurations"));
}

TEST_F(ConfigArchiveTest, IgnoresOtherFilesAndAnEmptyArchiveHasNoEntry) {
  ConfigArchive archive(dir_);
  std::ofstream(dir_ + "/notes.txt") << "x";
  std::ofstream(dir_ + "/07.conf") << "x";
  EXPECT_TRUE(archive.Sequence().empty());
  EXPECT_EQ(archive.Path(0).status().code(), absl::StatusCode::kNotFound);
}

TEST(DefaultArchiveDir, TheRunDirectoryUnlessTheSystemRouter) {
  EXPECT_EQ(DefaultArchiveDir("/tmp/x"), "/tmp/x/rtrmgr/archive");
}

}  // namespace
}  // namespace sluice::rtrmgr
