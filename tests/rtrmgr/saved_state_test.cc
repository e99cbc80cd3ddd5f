// The router manager's saved state (rtrmgr/process/saved_state.h): the children file reads back
// what was written, is private to its owner, tells a live process from a dead one or from a
// recycled pid, and a corrupt file is refused (the router manager then ignores it).
#include "rtrmgr/process/saved_state.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice::rtrmgr {
namespace {

using ::testing::HasSubstr;

class SavedStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/sluice-saved-state.XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const char* name) const { return dir_ + "/" + name; }

  // This test process, as the router manager would record it.
  static ChildRecord Self() {
    ChildRecord r;
    r.name = "fea";
    r.pid = getpid();
    r.start_time = ProcessStartTime(getpid()).value_or(0);
    r.program = ProcessProgram(getpid()).value_or("");
    r.configured = true;
    return r;
  }

  std::string dir_;
};

TEST_F(SavedStateTest, ChildrenReadBackAsWrittenInAPrivateFile) {
  const std::vector<ChildRecord> records = {
      {"finder", 100, 12345, true, "/opt/sluice/finder/sluice-finder"},
      {"bgp", 2000000, 99, false, "/path with spaces/bgp/process/sluice-bgp"},
  };
  ASSERT_TRUE(WriteChildren(Path("children"), records).ok());
  auto back = ReadChildren(Path("children"));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, records);
  struct stat st {};
  ASSERT_EQ(stat(Path("children").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_FALSE(std::filesystem::exists(Path("children.new")));

  // Written again: replaced whole.
  ASSERT_TRUE(WriteChildren(Path("children"), {records[1]}).ok());
  back = ReadChildren(Path("children"));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, std::vector<ChildRecord>{records[1]});
  EXPECT_TRUE(absl::IsNotFound(ReadChildren(Path("none")).status()));
}

TEST_F(SavedStateTest, ALiveProcessIsRecognisedAndARecycledPidIsNot) {
  const ChildRecord self = Self();
  ASSERT_GT(self.start_time, 0u);
  ASSERT_FALSE(self.program.empty());
  EXPECT_TRUE(IsSameProcess(self));

  // The same pid, started at another time: another process that got the pid.
  ChildRecord recycled = self;
  recycled.start_time += 1;
  EXPECT_FALSE(IsSameProcess(recycled));
  // The same pid and time running another program.
  ChildRecord other = self;
  other.program = "/usr/sbin/something-else";
  EXPECT_FALSE(IsSameProcess(other));

  // A process that has exited: a zombie first, then gone.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  ChildRecord dead = self;
  dead.pid = child;
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, child, &info, WEXITED | WNOWAIT), 0);  // exited, not yet reaped
  EXPECT_FALSE(ProcessStartTime(child).has_value()) << "a zombie is not running";
  EXPECT_FALSE(IsSameProcess(dead));
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_FALSE(ProcessStartTime(child).has_value());
  EXPECT_FALSE(IsSameProcess(dead));
}

TEST_F(SavedStateTest, ACorruptFileIsRefusedNamingTheLine) {
  const char* corrupt[] = {
      "fea 12 34 1 /bin/fea\nrib twelve 34 1 /bin/rib\n",  // pid not a number
      "fea 12 34 1 /bin/fea\nrib 13 34 1 /bin/r",          // cut short
      "fea 0 34 1 /bin/fea\n",                             // pid 0
      "fea 12 34 2 /bin/fea\n",                            // configured not 0/1
      "fea 12 34 1 relative/fea\n",                        // not an absolute program path
      "f/ea 12 34 1 /bin/fea\n",                           // not a child name
      "fea 12 34\n",                                       // too few fields
      "\x01\x02\xff garbage\n",
  };
  for (const char* text : corrupt) {
    SCOPED_TRACE(text);
    std::ofstream(Path("children"), std::ios::trunc) << text;
    auto records = ReadChildren(Path("children"));
    ASSERT_FALSE(records.ok());
    EXPECT_EQ(records.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_THAT(std::string(records.status().message()), HasSubstr(Path("children")));
  }
  std::ofstream(Path("children"), std::ios::trunc) << "fea 12 34 1 /bin/fea\nrib x 34 1 /r\n";
  EXPECT_THAT(std::string(ReadChildren(Path("children")).status().message()), HasSubstr("line 2"));
}

TEST_F(SavedStateTest, ALinkIsNotFollowed) {
  ASSERT_TRUE(WriteFileAtomically(Path("real"), "fea 12 34 1 /bin/fea\n").ok());
  std::filesystem::create_symlink(Path("real"), Path("children"));
  EXPECT_FALSE(ReadChildren(Path("children")).ok());
}

}  // namespace
}  // namespace sluice::rtrmgr
