// RibResync (bgp/process/rib_resync.h): when sluice-bgp re-synchronises the RIB — at each birth,
// after a lost call while the RIB is up (1 s, then doubling), never while it is dead.
#include <gtest/gtest.h>

#include <chrono>

#include "bgp/process/rib_resync.h"

namespace sluice::bgp::process {
namespace {

TEST(RibResyncTest, BirthsAndLostCallsWhileUpResynchroniseDeathsDoNot) {
  boost::asio::io_context io;
  int syncs = 0;
  RibResync resync(io, [&] { ++syncs; });

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
  resync.Stop();
  resync.OnLostCall();
  EXPECT_FALSE(resync.pending());
}

}  // namespace
}  // namespace sluice::bgp::process
