// Redump (ipc/redump.h): a publisher's repair of a subscriber whose call failed — the whole state
// again after 1 s, then doubling; nothing more for failures of calls sent before that dump or
// while one is pending; NOT_FOUND and UNIMPLEMENTED forget the subscriber.
#include "ipc/redump.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>

namespace sluice::ipc {
namespace {

using Outcome = Redump::Outcome;

TEST(RedumpTest, AFailedCallOfTheLastDumpSchedulesOneDumpAfterABackoff) {
  boost::asio::io_context io;
  int dumps = 0;
  Redump redump(io, "vrp_changes to bgp", [&] { ++dumps; });
  EXPECT_EQ(redump.Sending(), 1u);  // the subscribe's dump
  const uint64_t first = redump.dump();

  EXPECT_EQ(redump.Failed(first, absl::UnavailableError("reset")), Outcome::kRepair);
  EXPECT_TRUE(redump.pending());
  EXPECT_EQ(redump.Failed(first, absl::DeadlineExceededError("slow")), Outcome::kIgnored)
      << "one dump repairs both";
  io.run_for(std::chrono::milliseconds(500));
  EXPECT_EQ(dumps, 0) << "before the backoff";
  io.run_for(std::chrono::milliseconds(700));
  EXPECT_EQ(dumps, 1);
  EXPECT_FALSE(redump.pending());
  EXPECT_EQ(redump.redumps(), 1u);

  // The publisher sends the dump; a late failure of a call from before it counts no more.
  const uint64_t second = redump.Sending();
  EXPECT_EQ(redump.Failed(first, absl::UnavailableError("reset")), Outcome::kIgnored);
  EXPECT_FALSE(redump.pending());
  // A failure soon after the last: twice the wait.
  EXPECT_EQ(redump.Failed(second, absl::InvalidArgumentError("refused")), Outcome::kRepair);
  io.restart();
  io.run_for(std::chrono::milliseconds(1200));
  EXPECT_EQ(dumps, 1) << "the second wait is 2 s";
  io.run_for(std::chrono::milliseconds(1000));
  EXPECT_EQ(dumps, 2);
}

TEST(RedumpTest, ASubscriberThatServesNoSuchMethodIsForgotten) {
  boost::asio::io_context io;
  Redump redump(io, "interface_events to rib", [] {});
  const uint64_t dump = redump.Sending();
  EXPECT_EQ(redump.Failed(dump, absl::NotFoundError("no target rib")), Outcome::kForget);
  EXPECT_EQ(redump.Failed(dump, absl::UnimplementedError("no such method")), Outcome::kForget);
  EXPECT_FALSE(redump.pending());
}

TEST(RedumpTest, ADumpSentMeanwhileOrTheEndOfTheSubscriberCancelsTheRepair) {
  boost::asio::io_context io;
  int dumps = 0;
  auto redump = std::make_unique<Redump>(io, "vrp_changes to bgp", [&] { ++dumps; });
  redump->Failed(redump->Sending(), absl::UnavailableError("reset"));
  redump->Sending();  // the subscriber subscribed again: its dump is on its way
  io.run_for(std::chrono::milliseconds(1200));
  EXPECT_EQ(dumps, 0);

  redump->Failed(redump->dump(), absl::UnavailableError("reset"));
  redump.reset();  // forgotten (it died) before the backoff ends
  io.restart();
  io.run_for(std::chrono::milliseconds(2200));
  EXPECT_EQ(dumps, 0);
}

}  // namespace
}  // namespace sluice::ipc
