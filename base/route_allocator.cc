// Linked into the programs that allocate through tcmalloc (cmake/SluiceAllocator.cmake), before
// their main() runs: sets how much freed memory tcmalloc's per-thread caches may hold in all.
//
// tcmalloc's default, 32 MiB, raised sluice-bgp's peak RSS above glibc's malloc for no CPU gain;
// 4 MiB did not (bench/bgp/README.md). TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES in the environment
// still decides when set.
#include <gperftools/malloc_extension_c.h>

#include <cstddef>
#include <cstdlib>

namespace {

constexpr size_t kMaxTotalThreadCacheBytes = size_t{4} << 20;

const bool kThreadCachesBounded = [] {
  if (std::getenv("TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES") != nullptr) return false;
  return MallocExtension_SetNumericProperty("tcmalloc.max_total_thread_cache_bytes",
                                            kMaxTotalThreadCacheBytes) != 0;
}();

}  // namespace
