// Background tasks run in slices and let other events of the loop run between slices.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <memory>

#include "stage/background_task.h"

namespace sluice::stage {
namespace {

TEST(BackgroundTask, SlicesInterleaveWithOtherEvents) {
  boost::asio::io_context io;
  std::vector<std::string> order;
  int remaining = 5;
  bool done = false;
  BackgroundTask task(
      io, "delete",
      [&] {
        order.push_back("slice");
        return --remaining > 0;
      },
      [&] { done = true; });
  task.Start();
  // Three unrelated events become ready while the task runs; each re-posts once.
  for (int i = 0; i < 3; ++i) {
    boost::asio::post(io, [&, i] {
      order.push_back("event" + std::to_string(i));
      if (i == 0) boost::asio::post(io, [&] { order.push_back("later"); });
    });
  }
  io.run();
  EXPECT_TRUE(done);
  EXPECT_EQ(task.slices_run(), 5u);
  EXPECT_FALSE(task.running());
  // After the first slice, the events queued meanwhile run before the next slice.
  EXPECT_EQ(order, (std::vector<std::string>{"slice", "event0", "event1", "event2", "slice",
                                             "later", "slice", "slice", "slice"}));
}

TEST(BackgroundTask, TimerFiresBetweenSlicesOfALongJob) {
  boost::asio::io_context io;
  uint64_t work = 0;
  uint64_t work_when_timer_fired = 0;
  BackgroundTask task(io, "long", [&] {
    SliceBudget budget(1000);
    while (work < 50'000'000 && !budget.Exhausted()) ++work;
    return work < 50'000'000;
  });
  // Already expired: it becomes ready as soon as the loop polls its timers, which it must do
  // between slices.
  boost::asio::steady_timer timer(io, std::chrono::milliseconds(0));
  timer.async_wait([&](auto) { work_when_timer_fired = work; });
  task.Start();
  io.run();
  EXPECT_EQ(work, 50'000'000u);
  EXPECT_GT(work_when_timer_fired, 0u);
  EXPECT_LT(work_when_timer_fired, work) << "the timer had to wait for the whole job";
}

TEST(BackgroundTask, CancelAndDestroyStopSlices) {
  boost::asio::io_context io;
  int slices = 0;
  auto task = std::make_unique<BackgroundTask>(io, "t", [&] {
    ++slices;
    return true;
  });
  task->Start();
  boost::asio::post(io, [&] { task.reset(); });  // destroyed with a slice pending
  io.run();
  EXPECT_EQ(slices, 1);

  BackgroundTask other(io, "u", [&] {
    ++slices;
    return true;
  });
  other.Start();
  other.Cancel();
  io.restart();
  io.run();
  EXPECT_EQ(slices, 1);
  other.Start();  // restartable
  boost::asio::post(io, [&] { other.Cancel(); });
  io.restart();
  io.run();
  EXPECT_EQ(slices, 2);
}

TEST(BackgroundTask, RestartFromInsideItsOwnSliceRunsTheNewJob) {
  boost::asio::io_context io;
  int job = 1, slices_of_job2 = 0;
  BackgroundTask* self = nullptr;
  BackgroundTask task(io, "t", [&] {
    if (job == 1) {
      job = 2;  // new work arrived: start over from the top
      self->Cancel();
      self->Start();
      return false;  // the old run reports no more work
    }
    return ++slices_of_job2 < 3;
  });
  self = &task;
  task.Start();
  io.run();
  EXPECT_EQ(slices_of_job2, 3);
  EXPECT_FALSE(task.running());
}

TEST(SliceBudget, StopsOnItemsAndOnTime) {
  SliceBudget items(10, absl::Hours(1));
  int n = 0;
  while (!items.Exhausted()) ++n;
  EXPECT_EQ(n, 9);
  SliceBudget time(UINT64_MAX, absl::Milliseconds(1));
  uint64_t m = 0;
  while (!time.Exhausted()) ++m;
  EXPECT_GT(m, 0u);
}

}  // namespace
}  // namespace sluice::stage
