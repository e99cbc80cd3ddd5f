#include "stage/latency_histogram.h"

#include <algorithm>

namespace sluice::stage {

void LatencyHistogram::ObserveNs(int64_t ns) {
  if (ns < 0) ns = 0;
  const auto it = std::lower_bound(kBoundsNs.begin(), kBoundsNs.end(), ns);
  buckets_[static_cast<size_t>(it - kBoundsNs.begin())].fetch_add(1, std::memory_order_relaxed);
  sum_ns_.fetch_add(static_cast<uint64_t>(ns), std::memory_order_relaxed);
}

LatencyHistogram::Reading LatencyHistogram::Read() const {
  Reading r;
  uint64_t running = 0;
  for (size_t i = 0; i < kBuckets; ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    r.bounds_s[i] = static_cast<double>(kBoundsNs[i]) / 1e9;
    r.cumulative[i] = running;
  }
  r.count = running + buckets_[kBuckets].load(std::memory_order_relaxed);
  r.sum_s = static_cast<double>(sum_ns_.load(std::memory_order_relaxed)) / 1e9;
  return r;
}

}  // namespace sluice::stage
