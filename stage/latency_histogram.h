#pragma once
// LatencyHistogram: a fixed-bucket histogram of durations, always on, for Prometheus
// (cumulative buckets `le`, a sum and a count; https://prometheus.io/docs/concepts/metric_types/).
//
// Units: observations are durations in nanoseconds; bounds and the sum are read in seconds.
// Buckets (upper bounds, inclusive, in seconds): 100 µs, 250 µs, 500 µs, 1 ms, 2.5 ms, 5 ms,
// 10 ms, 25 ms, 50 ms, 100 ms, 250 ms, 500 ms, 1 s, 2.5 s, 5 s, 10 s, and +Inf (the count).
// A negative observation (clocks that disagree) counts as 0.
//
// Observe costs two relaxed atomic additions and a search of 16 bounds; it is safe from any
// thread, and Read may run concurrently (its numbers are then consistent only to within the
// observations in progress).

#include <array>
#include <atomic>
#include <cstdint>

namespace sluice::stage {

class LatencyHistogram {
 public:
  static constexpr size_t kBuckets = 16;
  // Upper bounds in nanoseconds.
  static constexpr std::array<int64_t, kBuckets> kBoundsNs = {
      100'000,       250'000,       500'000,       1'000'000,     2'500'000,   5'000'000,
      10'000'000,    25'000'000,    50'000'000,    100'000'000,   250'000'000, 500'000'000,
      1'000'000'000, 2'500'000'000, 5'000'000'000, 10'000'000'000};

  struct Reading {
    std::array<double, kBuckets> bounds_s{};      // upper bounds in seconds
    std::array<uint64_t, kBuckets> cumulative{};  // observations <= bounds_s[i]
    uint64_t count = 0;                           // every observation (the +Inf bucket)
    double sum_s = 0;                             // their sum in seconds
  };

  void ObserveNs(int64_t ns);
  Reading Read() const;

 private:
  std::array<std::atomic<uint64_t>, kBuckets + 1> buckets_{};  // per bucket, last: above 10 s
  std::atomic<uint64_t> sum_ns_{0};
};

}  // namespace sluice::stage
