// base/cpus.h: the CPUs a process may use — its affinity mask (the kernel's, on this thread) and
// its cgroups' CPU bandwidth limits (files in a directory that mirrors /sys/fs/cgroup).

#include "base/cpus.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace sluice::base {
namespace {

TEST(CpusTest, AQuotaAllowsItsCpusRoundedUp) {
  EXPECT_EQ(CpusOfQuota(200000, 100000), 2);
  EXPECT_EQ(CpusOfQuota(150000, 100000), 2);
  EXPECT_EQ(CpusOfQuota(50000, 100000), 1);
  EXPECT_EQ(CpusOfQuota(-1, 100000), std::nullopt);  // v1: no limit
  EXPECT_EQ(CpusOfQuota(0, 100000), std::nullopt);
  EXPECT_EQ(CpusOfQuota(100000, 0), std::nullopt);
}

// A directory standing for the file system root, with cgroup control files written into it.
class CgroupTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = ::testing::TempDir() + "/cpus_test_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void Write(const std::string& path, const std::string& text) {
    std::filesystem::create_directories(std::filesystem::path(root_ + path).parent_path());
    std::ofstream(root_ + path) << text;
  }
  std::string root_;
};

constexpr char kV2Mount[] =
    "25 1 0:22 / /proc rw - proc proc rw\n"
    "30 25 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 "
    "rw,nsdelegate,memory_recursiveprot\n";

TEST_F(CgroupTree, V2TakesTheLowestLimitOfTheCgroupAndItsAncestors) {
  Write("/sys/fs/cgroup/system.slice/cpu.max", "300000 100000\n");
  Write("/sys/fs/cgroup/system.slice/sluice.service/cpu.max", "max 100000\n");
  EXPECT_EQ(CgroupCpuLimit("0::/system.slice/sluice.service\n", kV2Mount, root_), 3);
  Write("/sys/fs/cgroup/system.slice/sluice.service/cpu.max", "120000 100000\n");
  EXPECT_EQ(CgroupCpuLimit("0::/system.slice/sluice.service\n", kV2Mount, root_), 2);
}

TEST_F(CgroupTree, NoLimitWhereNoneIsSetOrTheFilesMakeNoSense) {
  Write("/sys/fs/cgroup/a/cpu.max", "max 100000\n");
  EXPECT_EQ(CgroupCpuLimit("0::/a\n", kV2Mount, root_), std::nullopt);
  Write("/sys/fs/cgroup/a/cpu.max", "lots\n");
  EXPECT_EQ(CgroupCpuLimit("0::/a\n", kV2Mount, root_), std::nullopt);
  EXPECT_EQ(CgroupCpuLimit("0::/not/there\n", kV2Mount, root_), std::nullopt);
  Write("/sys/fs/cgroup/cpu.max", "100000 100000\n");  // what a walk out of the tree would find
  EXPECT_EQ(CgroupCpuLimit("0::relative\n", kV2Mount, root_), std::nullopt);
  EXPECT_EQ(CgroupCpuLimit("0::/../outside\n", kV2Mount, root_), std::nullopt);
  EXPECT_EQ(CgroupCpuLimit("0::/a\n", kV2Mount, root_), 1);  // the files above are read
  EXPECT_EQ(CgroupCpuLimit("", kV2Mount, root_), std::nullopt);
  EXPECT_EQ(CgroupCpuLimit("0::/a\n", "", root_), std::nullopt);
  EXPECT_EQ(CgroupCpuLimit("garbage", "more garbage - x\n", root_), std::nullopt);
}

TEST_F(CgroupTree, V1ReadsTheCpuControllersHierarchy) {
  const std::string mounts =
      "30 25 0:26 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
      "31 25 0:27 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n";
  const std::string self = "4:memory:/svc\n3:cpu,cpuacct:/svc\n0::/\n";
  Write("/sys/fs/cgroup/memory/svc/cpu.cfs_quota_us", "100000\n");  // not the cpu hierarchy
  Write("/sys/fs/cgroup/memory/svc/cpu.cfs_period_us", "100000\n");
  Write("/sys/fs/cgroup/cpu,cpuacct/svc/cpu.cfs_quota_us", "-1\n");
  Write("/sys/fs/cgroup/cpu,cpuacct/svc/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(CgroupCpuLimit(self, mounts, root_), std::nullopt);
  Write("/sys/fs/cgroup/cpu,cpuacct/svc/cpu.cfs_quota_us", "250000\n");
  EXPECT_EQ(CgroupCpuLimit(self, mounts, root_), 3);
}

// In a container the mount's root is the container's own cgroup.
TEST_F(CgroupTree, AMountRootedAtTheCgroupItselfIsRead) {
  const std::string mounts = "40 39 0:26 /docker/abc /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n";
  Write("/sys/fs/cgroup/cpu.max", "100000 100000\n");
  EXPECT_EQ(CgroupCpuLimit("0::/docker/abc\n", mounts, root_), 1);
  EXPECT_EQ(CgroupCpuLimit("0::/elsewhere\n", mounts, root_), std::nullopt);
}

// mountinfo writes a space in a path as "\040" (and a backslash as "\134"); /proc/self/cgroup
// writes it as it is.
TEST_F(CgroupTree, EscapedMountPathsAreReadAsTheFileSystemNamesThem) {
  const std::string mounts =
      "40 39 0:26 /my\\040box /sys/fs/cg\\134roups ro - cgroup2 cgroup2 rw\n";
  Write("/sys/fs/cg\\roups/cpu.max", "100000 100000\n");
  Write("/sys/fs/cg\\roups/inner/cpu.max", "max 100000\n");
  EXPECT_EQ(CgroupCpuLimit("0::/my box/inner\n", mounts, root_), 1);
  EXPECT_EQ(CgroupCpuLimit("0::/my\\040box/inner\n", mounts, root_), std::nullopt);
}

TEST(CpusTest, UsableCpusFollowsTheAffinityMask) {
  const int all = UsableCpus();
  ASSERT_GE(all, 1);
  cpu_set_t saved;
  ASSERT_EQ(sched_getaffinity(0, sizeof(saved), &saved), 0);
  if (CPU_COUNT(&saved) < 2 || all < 2) {
    GTEST_SKIP() << "this thread may run on one CPU only: no smaller mask to try";
  }
  cpu_set_t one;
  CPU_ZERO(&one);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &saved)) {
      CPU_SET(cpu, &one);
      break;
    }
  }
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  const std::optional<int> affinity = AffinityCpus();
  const int usable = UsableCpus();
  ASSERT_EQ(sched_setaffinity(0, sizeof(saved), &saved), 0);
  EXPECT_EQ(affinity, 1);
  EXPECT_EQ(usable, 1);
  EXPECT_EQ(UsableCpus(), all);
}

}  // namespace
}  // namespace sluice::base
