// LatencyHistogram: the buckets a duration lands in, cumulative counts, the sum; ArrivalScope.
#include "stage/latency_histogram.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "stage/route_arrival.h"

namespace sluice::stage {
namespace {

TEST(LatencyHistogramTest, EmptyReadsZeroWithTheDocumentedBounds) {
  LatencyHistogram h;
  LatencyHistogram::Reading r = h.Read();
  EXPECT_EQ(r.count, 0u);
  EXPECT_EQ(r.sum_s, 0);
  EXPECT_DOUBLE_EQ(r.bounds_s.front(), 0.0001);
  EXPECT_DOUBLE_EQ(r.bounds_s.back(), 10.0);
  for (uint64_t c : r.cumulative) EXPECT_EQ(c, 0u);
}

TEST(LatencyHistogramTest, CountsAreCumulativeAndBoundsInclusive) {
  LatencyHistogram h;
  h.ObserveNs(50'000);          // 50 µs: first bucket
  h.ObserveNs(100'000);         // exactly 100 µs: still the first (le is inclusive)
  h.ObserveNs(3'000'000);       // 3 ms: <= 5 ms
  h.ObserveNs(20'000'000'000);  // 20 s: only +Inf
  LatencyHistogram::Reading r = h.Read();
  EXPECT_EQ(r.count, 4u);
  EXPECT_EQ(r.cumulative[0], 2u);   // le 0.0001
  EXPECT_EQ(r.cumulative[4], 2u);   // le 0.0025
  EXPECT_EQ(r.cumulative[5], 3u);   // le 0.005
  EXPECT_EQ(r.cumulative[15], 3u);  // le 10
  EXPECT_NEAR(r.sum_s, 20.00315, 1e-9);
  for (size_t i = 1; i < r.cumulative.size(); ++i) EXPECT_GE(r.cumulative[i], r.cumulative[i - 1]);
}

TEST(LatencyHistogramTest, NegativeDurationCountsAsZero) {
  LatencyHistogram h;
  h.ObserveNs(-5);
  EXPECT_EQ(h.Read().cumulative[0], 1u);
  EXPECT_EQ(h.Read().sum_s, 0);
}

TEST(LatencyHistogramTest, ObservationsFromThreadsAllCount) {
  LatencyHistogram h;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&h] {
      for (int i = 0; i < 10000; ++i) h.ObserveNs(1'000'000);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(h.Read().count, 40000u);
  EXPECT_EQ(h.Read().cumulative[3], 40000u);  // le 1 ms
}

TEST(RouteArrivalTest, ScopesNestAndRestore) {
  EXPECT_EQ(CurrentArrival(), 0);
  {
    ArrivalScope outer(10);
    EXPECT_EQ(CurrentArrival(), 10);
    {
      ArrivalScope inner(20);
      EXPECT_EQ(CurrentArrival(), 20);
    }
    EXPECT_EQ(CurrentArrival(), 10);
  }
  EXPECT_EQ(CurrentArrival(), 0);
}

TEST(RouteArrivalTest, OldestIgnoresUnknown) {
  EXPECT_EQ(OldestArrival(0, 7), 7);
  EXPECT_EQ(OldestArrival(7, 0), 7);
  EXPECT_EQ(OldestArrival(3, 7), 3);
  EXPECT_EQ(OldestArrival(0, 0), 0);
  EXPECT_GT(MonotonicNowNs(), 0);
}

}  // namespace
}  // namespace sluice::stage
