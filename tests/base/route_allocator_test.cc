// A program linked with sluice_route_allocator (cmake/SluiceAllocator.cmake), as sluice-bgp,
// sluice-rib and sluice-fea are: malloc is tcmalloc's, and its thread caches are bounded before
// main() (base/route_allocator.cc).
#include <gperftools/malloc_extension_c.h>

#include <cstdlib>

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

}  // namespace
