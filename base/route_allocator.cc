// Linked into the programs that allocate through tcmalloc (cmake/SluiceAllocator.cmake), before
// their main() runs: sets how much freed memory tcmalloc's per-thread caches may hold in all, and
// where tcmalloc's heap comes from.
//
// tcmalloc's default, 32 MiB, raised sluice-bgp's peak RSS above glibc's malloc for no CPU gain;
// 4 MiB did not (bench/bgp/README.md). TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES in the environment
// still decides when set.
//
// Past its first 4 MiB, the heap grows in 2 MiB-aligned pieces of regions marked MADV_HUGEPAGE,
// so that where the kernel has transparent huge pages (even only "madvise"), a full table's worth
// of routes is faulted in 2 MiB at a time instead of 4 KiB: the first touch of fresh memory is a
// page fault, and a control plane taking a full table touches hundreds of megabytes. The first
// 4 MiB keep small pages, so that an idle process keeps its small footprint (one huge page more
// would add 2-4 MB to each). Where huge pages are off, the advice changes nothing.
// SLUICE_MALLOC_HUGEPAGES=0 in the environment keeps tcmalloc's own system allocator throughout.
#include <gperftools/malloc_extension.h>
#include <gperftools/malloc_extension_c.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

constexpr size_t kMaxTotalThreadCacheBytes = size_t{4} << 20;

const bool kThreadCachesBounded = [] {
  if (std::getenv("TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES") != nullptr) return false;
  return MallocExtension_SetNumericProperty("tcmalloc.max_total_thread_cache_bytes",
                                            kMaxTotalThreadCacheBytes) != 0;
}();

// tcmalloc's source of memory: its own allocator for the first kSmallPagedHeap octets, then bump
// allocation, in multiples of 2 MiB, from address space reserved 64 MiB at a time (address space
// only: a page costs memory when first touched). tcmalloc calls Alloc under its own lock. What
// the bump allocation cannot serve (a larger alignment, a failed mmap) goes to tcmalloc's own.
class HugePageSysAllocator : public SysAllocator {
 public:
  static constexpr size_t kHugePage = size_t{2} << 20;
  static constexpr size_t kReservation = size_t{64} << 20;
  static constexpr size_t kSmallPagedHeap = size_t{4} << 20;
  // Room left above the program break for tcmalloc's own allocator (kSmallPagedHeap and its
  // metadata) before the first region.
  static constexpr size_t kBrkGap = size_t{64} << 20;

  explicit HugePageSysAllocator(SysAllocator* fallback) : fallback_(fallback) {}

  void* Alloc(size_t size, size_t* actual_size, size_t alignment) override {
    if (small_paged_ < kSmallPagedHeap || alignment > kHugePage || size > SIZE_MAX - kHugePage) {
      return Fallback(size, actual_size, alignment);
    }
    const size_t bytes = (size + kHugePage - 1) & ~(kHugePage - 1);
    if (static_cast<size_t>(end_ - next_) < bytes && !Reserve(bytes)) {
      return Fallback(size, actual_size, alignment);
    }
    void* p = next_;
    next_ += bytes;
    if (actual_size != nullptr) *actual_size = bytes;
    return p;
  }

 private:
  void* Fallback(size_t size, size_t* actual_size, size_t alignment) {
    size_t got = 0;
    void* p = fallback_->Alloc(size, &got, alignment);
    if (got == 0) got = size;
    if (p != nullptr) small_paged_ += got;
    if (actual_size != nullptr) *actual_size = got;
    return p;
  }
  // Where to ask for the next region: after the last one, the first one kBrkGap above the
  // program break, where tcmalloc's own allocator put its first memory. tcmalloc maps a page to
  // its span through a radix tree whose leaves, each about 2 MiB and written in full when made,
  // cover a large window of address space each: a heap kept in one window needs one leaf, one
  // split between the break and the mmap area (where the kernel puts an unhinted mapping) two.
  // A hint is only a hint: where that space is taken, the kernel maps elsewhere.
  void* Hint() {
    if (hint_ == 0) {
      const auto brk = reinterpret_cast<uintptr_t>(sbrk(0));
      if (brk == static_cast<uintptr_t>(-1) || brk > UINTPTR_MAX - kBrkGap - kHugePage) {
        return nullptr;
      }
      hint_ = (brk + kBrkGap + kHugePage - 1) & ~(kHugePage - 1);
    }
    return reinterpret_cast<void*>(hint_);
  }
  // Maps a new 2 MiB-aligned region of at least `bytes` and advises huge pages for it; the rest
  // of the old region (never handed out, so never touched) stays mapped but costs no memory.
  bool Reserve(size_t bytes) {
    const size_t want = std::max(bytes, kReservation);
    if (want > SIZE_MAX - kHugePage) return false;
    void* m = mmap(Hint(), want + kHugePage, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return false;
    const auto raw = reinterpret_cast<uintptr_t>(m);
    const uintptr_t aligned = (raw + kHugePage - 1) & ~(kHugePage - 1);
    if (aligned > raw) munmap(m, aligned - raw);
    const uintptr_t tail = raw + want + kHugePage - (aligned + want);
    if (tail > 0) munmap(reinterpret_cast<void*>(aligned + want), tail);
    madvise(reinterpret_cast<void*>(aligned), want, MADV_HUGEPAGE);
    next_ = reinterpret_cast<char*>(aligned);
    end_ = next_ + want;
    hint_ = aligned + want;
    return true;
  }

  SysAllocator* fallback_;
  size_t small_paged_ = 0;  // octets tcmalloc's own allocator handed out
  char* next_ = nullptr;
  char* end_ = nullptr;
  uintptr_t hint_ = 0;  // 0: not chosen yet
};

const bool kHugePageHeap = [] {
  const char* env = std::getenv("SLUICE_MALLOC_HUGEPAGES");
  if (env != nullptr && std::strcmp(env, "0") == 0) return false;
  MallocExtension* tcmalloc = MallocExtension::instance();
  SysAllocator* fallback = tcmalloc->GetSystemAllocator();
  if (fallback == nullptr) return false;
  // Never freed: tcmalloc keeps using it until the process ends.
  static HugePageSysAllocator* const allocator = new HugePageSysAllocator(fallback);
  tcmalloc->SetSystemAllocator(allocator);
  return true;
}();

}  // namespace
