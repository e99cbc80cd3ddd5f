#pragma once
// When the routes being worked on arrived, for the route latency histogram (BGP in → FEA).
//
// An arrival is a CLOCK_MONOTONIC time in nanoseconds (std::chrono::steady_clock on Linux): one
// clock for every process on the host, so a time taken in sluice-bgp can be subtracted from one
// taken in sluice-fea. 0 means unknown (a route not from an UPDATE: a re-send, a deletion in the
// background, an old sender).
//
// The arrival travels with the work without touching the routes: the code that starts the work
// (a session delivering an UPDATE, the RIB applying a batch) opens an ArrivalScope on its
// thread, the stages it calls synchronously read CurrentArrival(), and a stage that keeps
// changes for later (a queue) keeps their arrival with them and opens a scope again when it
// delivers them. Batches carry the oldest known arrival of their changes (OldestArrival).

#include <chrono>
#include <cstdint>

namespace sluice::stage {

inline int64_t MonotonicNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace internal {
inline thread_local int64_t current_arrival_ns = 0;
}  // namespace internal

// The arrival of the work this thread is doing now; 0 when unknown.
inline int64_t CurrentArrival() { return internal::current_arrival_ns; }

// The older of two arrivals, 0 (unknown) counting as newer than any known one.
inline int64_t OldestArrival(int64_t a, int64_t b) {
  if (a == 0) return b;
  if (b == 0) return a;
  return a < b ? a : b;
}

// Sets CurrentArrival() for its lifetime on this thread (scopes nest; the outer value returns).
class ArrivalScope {
 public:
  explicit ArrivalScope(int64_t arrival_ns) : saved_(internal::current_arrival_ns) {
    internal::current_arrival_ns = arrival_ns;
  }
  ~ArrivalScope() { internal::current_arrival_ns = saved_; }
  ArrivalScope(const ArrivalScope&) = delete;
  ArrivalScope& operator=(const ArrivalScope&) = delete;

 private:
  int64_t saved_;
};

}  // namespace sluice::stage
