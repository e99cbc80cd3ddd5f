// A program linked with sluice_route_allocator (cmake/SluiceAllocator.cmake), as sluice-bgp,
// sluice-rib and sluice-fea are: malloc is tcmalloc's, and its thread caches are bounded before
// main() (base/route_allocator.cc), and past its first 4 MiB its heap asks for transparent huge
// pages. Run twice by ctest: as is, and with SLUICE_MALLOC_HUGEPAGES=0.
#include <gperftools/malloc_extension_c.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace {

TEST(RouteAllocatorTest, MallocIsTcmalloc) {
  void* p = std::calloc(1, 100);  // zeroed: GetOwnership takes a const pointer
  EXPECT_EQ(MallocExtension_GetOwnership(p), MallocExtension_kOwned);
  std::free(p);
}

TEST(RouteAllocatorTest, ThreadCachesHoldAtMostFourMebibytes) {
  if (std::getenv("TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES") != nullptr) {
    GTEST_SKIP() << "TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES is set: the environment decides";
  }
  size_t bytes = 0;
  ASSERT_TRUE(MallocExtension_GetNumericProperty("tcmalloc.max_total_thread_cache_bytes", &bytes));
  EXPECT_EQ(bytes, size_t{4} << 20);
}

// The bracketed choice of a sysfs setting such as "always [madvise] never" ("" when unknown).
std::string SysfsChoice(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  const size_t open = line.find('['), close = line.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return "";
  return line.substr(open + 1, close - open - 1);
}

// The kernel's transparent huge page mode for 2 MiB pages: "always", "madvise" or "never".
std::string TransparentHugePageMode() {
  const std::string mode = SysfsChoice("/sys/kernel/mm/transparent_hugepage/enabled");
  const std::string pmd =
      SysfsChoice("/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/enabled");
  return pmd.empty() || pmd == "inherit" ? mode : pmd;
}

// How many times, machine-wide, a fault wanted a huge page and the kernel had none to give.
long HugePageFallbacks() {
  std::ifstream in("/proc/vmstat");
  std::string key;
  long n = 0;
  while (in >> key >> n) {
    if (key == "thp_fault_fallback") return n;
  }
  return 0;
}

// This process's memory in transparent huge pages, in KiB (-1 when unknown).
long AnonHugePagesKiB() {
  std::ifstream in("/proc/self/smaps_rollup");
  std::string key;
  long kib = 0;
  while (in >> key) {
    if (key == "AnonHugePages:") return in >> kib ? kib : -1;
    in.ignore(1 << 10, '\n');
  }
  return -1;
}

TEST(RouteAllocatorTest, HugePagesOnlyPastTheFirstFourMebibytes) {
  const std::string mode = TransparentHugePageMode();
  if (mode != "madvise" && mode != "always") {
    GTEST_SKIP() << "transparent huge pages are '" << mode << "' here: nothing to observe";
  }
  const char* env = std::getenv("SLUICE_MALLOC_HUGEPAGES");
  const bool wanted = env == nullptr || std::strcmp(env, "0") != 0;
  if (mode == "madvise") {
    EXPECT_EQ(AnonHugePagesKiB(), 0) << "a small heap keeps small pages";
  }
  // A table's worth of memory, touched as a route table touches it.
  const long fallbacks = HugePageFallbacks();
  std::vector<char*> blocks;
  for (int i = 0; i < 64; ++i) {
    blocks.push_back(static_cast<char*>(std::malloc(size_t{1} << 20)));
    ASSERT_NE(blocks.back(), nullptr);
    std::memset(blocks.back(), 1, size_t{1} << 20);
  }
  const long huge = AnonHugePagesKiB();
  for (char* b : blocks) std::free(b);
  if (wanted) {
    if (huge == 0 && HugePageFallbacks() > fallbacks) {
      GTEST_SKIP() << "the kernel had no free huge page (thp_fault_fallback rose)";
    }
    EXPECT_GE(huge, 2048) << "64 MiB of heap, none of it in huge pages";
  } else if (mode == "madvise") {
    EXPECT_EQ(huge, 0) << "SLUICE_MALLOC_HUGEPAGES=0: tcmalloc's own allocator, small pages";
  }
}

}  // namespace
