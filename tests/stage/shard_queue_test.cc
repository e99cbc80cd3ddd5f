// SpscQueue (stage/spsc_queue.h), the hand-over queue of the shard stage: one producer and one
// consumer thread pass a million values in order, nothing lost or duplicated, and the nodes (with
// their buffers) are reused rather than allocated again. Labelled tsan.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "stage/spsc_queue.h"

namespace sluice::stage {
namespace {

struct Batch {
  std::vector<uint64_t> values;
};

TEST(SpscQueue, PassesBatchesInOrderBetweenThreads) {
  SpscQueue<Batch> q;
  constexpr uint64_t kValues = 1'000'000;
  uint64_t received = 0;
  std::atomic<uint64_t> consumed_batches{0};
  bool in_order = true;
  std::thread consumer([&] {
    while (received < kValues) {
      Batch* b = q.Front();
      if (b == nullptr) {
        std::this_thread::yield();
        continue;
      }
      for (uint64_t v : b->values) {
        if (v != received) in_order = false;
        ++received;
      }
      b->values.clear();
      q.Pop();
      consumed_batches.fetch_add(1, std::memory_order_release);
    }
  });
  uint64_t next = 0;
  uint64_t produced_batches = 0;
  size_t reallocations = 0;
  while (next < kValues) {
    // At most 8 batches in flight, as a shard's backlog limit would keep it.
    while (produced_batches - consumed_batches.load(std::memory_order_acquire) >= 8) {
      std::this_thread::yield();
    }
    Batch& b = q.Prepare();
    const size_t capacity = b.values.capacity();
    b.values.clear();
    for (int i = 0; i < 100 && next < kValues; ++i) b.values.push_back(next++);
    if (b.values.capacity() != capacity) ++reallocations;
    q.Commit();
    ++produced_batches;
  }
  consumer.join();
  EXPECT_EQ(received, kValues);
  EXPECT_TRUE(in_order);
  EXPECT_TRUE(q.empty());
  // 10,000 batches through at most 10 nodes: buffers are reused, only the first uses grow them.
  EXPECT_LE(reallocations, 10u);
}

TEST(SpscQueue, EmptyUntilCommitted) {
  SpscQueue<Batch> q;
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.Front(), nullptr);
  q.Prepare().values = {1, 2, 3};
  EXPECT_TRUE(q.empty());
  q.Commit();
  ASSERT_NE(q.Front(), nullptr);
  EXPECT_EQ(q.Front()->values.size(), 3u);
  q.Pop();
  EXPECT_TRUE(q.empty());
}

// After a burst, Trim gives back the nodes the consumer is done with (and their buffers) down to
// the working size, and never a value still queued.
TEST(SpscQueue, TrimFreesConsumedNodesOnly) {
  SpscQueue<Batch> q;
  for (uint64_t i = 0; i < 100; ++i) {
    q.Prepare().values.assign(1000, i);
    q.Commit();
  }
  EXPECT_EQ(q.nodes(), 101u);  // the stub and the burst
  // Half consumed: only nodes the consumer moved past can go.
  for (int i = 0; i < 50; ++i) q.Pop();
  EXPECT_EQ(q.Trim(4), 50u);
  EXPECT_EQ(q.nodes(), 51u);
  for (uint64_t i = 50; i < 100; ++i) {
    ASSERT_NE(q.Front(), nullptr);
    EXPECT_EQ(q.Front()->values.front(), i);
    EXPECT_EQ(q.Front()->values.size(), 1000u);
    q.Pop();
  }
  EXPECT_EQ(q.Trim(4), 47u);
  EXPECT_EQ(q.nodes(), 4u);
  // Still a working queue.
  q.Prepare().values = {7};
  q.Commit();
  ASSERT_NE(q.Front(), nullptr);
  EXPECT_EQ(q.Front()->values, std::vector<uint64_t>{7});
  q.Pop();
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace sluice::stage
