// The heap of a benchmark, for its bytes per route, under the allocator the program links
// (cmake/SluiceAllocator.cmake: tcmalloc when SLUICE_TCMALLOC is defined, else glibc's malloc).
#pragma once

#include <cstddef>

#if defined(SLUICE_TCMALLOC)
#include <gperftools/malloc_extension_c.h>
#else
#include <malloc.h>
#endif

namespace sluice::bgp {

// Bytes handed out by malloc and not yet freed: tcmalloc's generic.current_allocated_bytes, or
// glibc's mallinfo2() uordblks + hblkhd (which walks every arena's free lists: not for hot loops).
inline size_t HeapInUse() {
#if defined(SLUICE_TCMALLOC)
  size_t bytes = 0;
  MallocExtension_GetNumericProperty("generic.current_allocated_bytes", &bytes);
  return bytes;
#else
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
#endif
}

// Returns the allocator's free memory to the system, so that what follows starts from what is
// alive.
inline void TrimHeap() {
#if defined(SLUICE_TCMALLOC)
  MallocExtension_ReleaseFreeMemory();
#else
  malloc_trim(0);
#endif
}

}  // namespace sluice::bgp
