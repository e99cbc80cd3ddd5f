// Resync (ipc/resync.h): when a component re-synchronises a process it feeds — at each birth,
// after a lost call while it is up (1 s, then doubling), never while it is dead; which calls
// count as lost.
#include "ipc/resync.h"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "base/lost_call.h"

namespace sluice::ipc {
namespace {

TEST(ResyncTest, BirthsAndLostCallsWhileUpResynchroniseDeathsDoNot) {
  boost::asio::io_context io;
  int syncs = 0;
  std::vector<bool> after_loss;  // each sync's argument
  Resync resync(io, "RIB", [&](bool lost) {
    ++syncs;
    after_loss.push_back(lost);
  });

  resync.OnLostCall();  // no RIB yet: its birth will synchronise
  EXPECT_FALSE(resync.pending());
  resync.OnBirth();
  EXPECT_EQ(syncs, 1);

  resync.OnLostCall();
  resync.OnLostCall();  // one re-synchronisation for both
  EXPECT_TRUE(resync.pending());
  EXPECT_EQ(resync.backoff_s(), 1);
  io.run_for(std::chrono::milliseconds(500));
  EXPECT_EQ(syncs, 1) << "before the backoff";
  io.run_for(std::chrono::milliseconds(700));
  EXPECT_EQ(syncs, 2);
  EXPECT_FALSE(resync.pending());

  resync.OnLostCall();  // soon after the last: twice the wait
  EXPECT_EQ(resync.backoff_s(), 2);
  resync.OnDeath();  // the next birth synchronises instead
  EXPECT_FALSE(resync.pending());
  io.restart();
  io.run_for(std::chrono::milliseconds(2200));
  EXPECT_EQ(syncs, 2);
  resync.OnLostCall();
  EXPECT_FALSE(resync.pending()) << "the RIB is dead";

  resync.OnBirth();
  EXPECT_EQ(syncs, 3);
  // Only the one that followed lost calls asks the RIB to sweep what is not sent again.
  EXPECT_EQ(after_loss, (std::vector<bool>{false, true, false}));
  resync.Stop();
  resync.OnLostCall();
  EXPECT_FALSE(resync.pending());
}

TEST(ResyncTest, OnlyCallsThatMayNotHaveReachedTheCalleeAreLost) {
  EXPECT_TRUE(IsLostCall(absl::UnavailableError("connection refused")));
  EXPECT_TRUE(IsLostCall(absl::DeadlineExceededError("no answer")));
  EXPECT_FALSE(IsLostCall(absl::InvalidArgumentError("bad route")));
  EXPECT_FALSE(IsLostCall(absl::PermissionDeniedError("not yours")));
  EXPECT_FALSE(IsLostCall(absl::OkStatus()));
}

}  // namespace
}  // namespace sluice::ipc
