#pragma once
// Prefetching the slots a producer is about to fill in a buffer that another thread consumed.
//
// A hand-over buffer reused between two threads (a shard's input or output batch) holds cache
// lines the consumer's core wrote last. Each write to such a line first takes it from that core
// (a "request for ownership"), and every atomic operation between two writes (the reference
// count a copied route takes) waits for the earlier writes to complete, so the producer pays
// that latency once per slot. Asking for the lines of the slots a few items ahead, with the
// intent to write, overlaps the transfers with the work.
//
// A hint only: no effect on what the program computes, nothing faults, and on a CPU without
// PREFETCHW (x86) the instruction does nothing.

#include <cstddef>
#include <vector>

namespace sluice::base {

// Asks for the cache lines of [p, p + bytes) in the exclusive state (for writing).
inline void PrefetchForWrite(const void* p, size_t bytes) {
  const char* c = static_cast<const char*>(p);
  for (size_t at = 0; at < bytes; at += 64) {
#if defined(__x86_64__)
    // PREFETCHW: GCC emits it for __builtin_prefetch(p, 1) only with -mprfchw, which the
    // baseline x86-64 target lacks; the opcode is a no-op on CPUs without the feature.
    asm volatile("prefetchw %0" : : "m"(c[at]));
#else
    __builtin_prefetch(c + at, 1, 3);
#endif
  }
}

// For a producer about to append to `v`: prefetches, for writing, the slot `ahead` items past
// the end when the vector's capacity already holds it (nothing otherwise).
template <typename T>
void PrefetchAppendSlot(const std::vector<T>& v, size_t ahead) {
  const size_t slot = v.size() + ahead;
  if (slot < v.capacity()) PrefetchForWrite(v.data() + slot, sizeof(T));
}

}  // namespace sluice::base
