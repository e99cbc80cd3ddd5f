// One RTR session against a scripted cache: reset and serial queries, changes applied whole at
// End of Data, protocol errors, version negotiation, and the refresh, retry and expire timers
// on an injected clock (RFC 8210 §6, §7, §8).

#include "rpki/rtr_session.h"

#include <gtest/gtest.h>

#include "tests/rpki/cache_pdus.h"

namespace sluice::rpki {
namespace {

using namespace sluice::rpki::testing;  // NOLINT: the PDU builders
using Clock = RtrSession::Clock;
using std::chrono::seconds;

constexpr uint32_t k192 = 0xC0000200;  // 192.0.2.0
constexpr uint32_t k198 = 0xC6336400;  // 198.51.100.0

class RtrSessionTest : public ::testing::Test {
 protected:
  RtrSession::Output Feed(const Octets& octets) { return session_.Received(octets, now_); }
  // Connect and answer the Reset Query with `vrps` (192.0.2.0/24 AS 64496, ...).
  void Sync(uint16_t session_id, uint32_t serial) {
    RtrSession::Output q = session_.Connected(now_);
    ASSERT_EQ(q.send, (Octets{1, 2, 0, 0, 0, 0, 0, 8}));  // Reset Query, version 1
    ASSERT_FALSE(Feed(CacheResponse(1, session_id)).close);
    ASSERT_FALSE(Feed(Ipv4Prefix(1, true, k192, 24, 24, 64496)).close);
    ASSERT_FALSE(Feed(Ipv4Prefix(1, true, k198, 24, 28, 64497)).close);
    ASSERT_FALSE(Feed(EndOfData(1, session_id, serial, 60, 30, 600)).close);
    ASSERT_EQ(session_.state(), RtrSession::State::kEstablished);
  }

  VrpStore store_;
  RtrSession session_{&store_, 1};
  Clock::time_point now_ = Clock::time_point() + seconds(1000);
};

TEST_F(RtrSessionTest, ResetQueryFillsTheStoreAtEndOfData) {
  session_.Connected(now_);
  Feed(CacheResponse(1, 7));
  Feed(Ipv4Prefix(1, true, k192, 24, 24, 64496));
  EXPECT_EQ(store_.size(), 0u);  // not before End of Data
  Feed(EndOfData(1, 7, 1));
  EXPECT_EQ(store_.size(), 1u);
  EXPECT_EQ(session_.session_id(), 7);
  EXPECT_EQ(session_.serial(), 1u);
}

TEST_F(RtrSessionTest, PdusSplitAnywhereAndBatchedAreTheSame) {
  session_.Connected(now_);
  const Octets all = Cat({CacheResponse(1, 7), Ipv4Prefix(1, true, k192, 24, 24, 64496),
                          Ipv4Prefix(1, true, k198, 24, 24, 64497), EndOfData(1, 7, 1)});
  for (size_t i = 0; i < all.size(); i += 3) {
    const size_t n = std::min<size_t>(3, all.size() - i);
    ASSERT_FALSE(session_.Received(std::span(all).subspan(i, n), now_).close);
  }
  EXPECT_EQ(store_.size(), 2u);
  EXPECT_EQ(session_.state(), RtrSession::State::kEstablished);
}

TEST_F(RtrSessionTest, SerialQueryAppliesChangesAndNotifyAsksAtOnce) {
  Sync(7, 1);
  RtrSession::Output q = Feed(SerialNotify(1, 7, 2));
  ASSERT_EQ(q.send.size(), 12u);  // Serial Query
  EXPECT_EQ(q.send[1], 1);
  EXPECT_EQ(q.send[11], 1);  // our serial
  Feed(CacheResponse(1, 7));
  Feed(Ipv4Prefix(1, false, k192, 24, 24, 64496));
  Feed(Ipv4Prefix(1, true, k192, 24, 25, 64496));
  Feed(EndOfData(1, 7, 2));
  EXPECT_EQ(store_.size(), 2u);
  EXPECT_FALSE(store_.Contains(Vrp{*net::Prefix::Parse("192.0.2.0/24"), 24, 64496}));
  EXPECT_TRUE(store_.Contains(Vrp{*net::Prefix::Parse("192.0.2.0/24"), 25, 64496}));
  EXPECT_EQ(session_.serial(), 2u);
}

TEST_F(RtrSessionTest, ReconnectAsksForChangesSinceOurSerial) {
  Sync(7, 5);
  session_.Disconnected();
  RtrSession::Output q = session_.Connected(now_);
  ASSERT_EQ(q.send.size(), 12u);
  EXPECT_EQ(q.send[1], 1);  // Serial Query, keeping our data
  EXPECT_EQ(store_.size(), 2u);
}

TEST_F(RtrSessionTest, ASerialQueryTheCacheClosedOnIsFollowedByAReset) {
  Sync(7, 5);
  session_.Disconnected();
  ASSERT_EQ(session_.Connected(now_).send.size(), 12u);  // Serial Query
  session_.Disconnected();                               // closed without an answer
  EXPECT_EQ(session_.Connected(now_).send.size(), 8u);   // Reset Query
  EXPECT_EQ(store_.size(), 2u);                          // the data stays meanwhile
}

TEST_F(RtrSessionTest, CacheResetReplacesTheSetWithoutAStorm) {
  Sync(7, 1);
  session_.Tick(now_ + seconds(60));  // refresh: Serial Query
  store_.TakeChanges();
  RtrSession::Output q = Feed(CacheReset(1));
  EXPECT_EQ(q.send, (Octets{1, 2, 0, 0, 0, 0, 0, 8}));  // Reset Query
  Feed(CacheResponse(1, 8));
  Feed(Ipv4Prefix(1, true, k192, 24, 24, 64496));  // kept
  Feed(EndOfData(1, 8, 1));
  VrpChanges c = store_.TakeChanges();
  EXPECT_TRUE(c.announced.empty());
  ASSERT_EQ(c.withdrawn.size(), 1u);  // only what left
  EXPECT_EQ(c.withdrawn[0].asn, 64497u);
}

TEST_F(RtrSessionTest, UnknownWithdrawalAndDuplicateAnnouncementAreErrors) {
  Sync(7, 1);
  Feed(SerialNotify(1, 7, 2));
  Feed(CacheResponse(1, 7));
  RtrSession::Output e = Feed(Ipv4Prefix(1, false, 0x0A000000, 8, 8, 1));
  EXPECT_TRUE(e.close);
  ASSERT_GE(e.send.size(), 8u);
  EXPECT_EQ(e.send[1], 10);      // Error Report
  EXPECT_EQ(e.send[3], 6);       // Withdrawal of Unknown Record
  EXPECT_EQ(store_.size(), 2u);  // earlier data stays
  session_.Disconnected();
  Sync(8, 1);  // after an error, a Reset Query: the whole set again
  Feed(SerialNotify(1, 8, 2));
  Feed(CacheResponse(1, 8));
  e = Feed(Ipv4Prefix(1, true, k192, 24, 24, 64496));
  EXPECT_TRUE(e.close);
  EXPECT_EQ(e.send[3], 7);  // Duplicate Announcement Received
}

TEST_F(RtrSessionTest, ANewSessionIdMeansStartingAgain) {
  Sync(7, 1);
  Feed(SerialNotify(1, 7, 2));
  RtrSession::Output e = Feed(CacheResponse(1, 9));
  EXPECT_TRUE(e.close);
  session_.Disconnected();
  EXPECT_EQ(session_.Connected(now_).send.size(), 8u);  // a Reset Query this time
}

TEST_F(RtrSessionTest, AVersion0CacheNegotiatesDown) {
  const Octets query = session_.Connected(now_).send;
  RtrSession::Output e = Feed(ErrorReport(0, 4, query));
  EXPECT_TRUE(e.close);
  EXPECT_TRUE(e.reconnect_now);
  EXPECT_TRUE(e.send.empty());  // no Error Report about an Error Report
  EXPECT_EQ(session_.version(), 0);
  EXPECT_EQ(session_.Connected(now_).send, (Octets{0, 2, 0, 0, 0, 0, 0, 8}));
  Feed(CacheResponse(0, 3));
  Feed(Ipv4Prefix(0, true, k192, 24, 24, 64496));
  Feed(EndOfData(0, 3, 1));
  EXPECT_EQ(store_.size(), 1u);
  EXPECT_EQ(session_.intervals().expire, 7200u);  // version 0: the defaults
}

TEST_F(RtrSessionTest, RefreshRetryAndExpireOnTheClock) {
  Sync(7, 1);  // refresh 60, retry 30, expire 600 from End of Data
  EXPECT_EQ(session_.Deadline(), now_ + seconds(60));
  EXPECT_TRUE(session_.Tick(now_ + seconds(59)).send.empty());
  RtrSession::Output q = session_.Tick(now_ + seconds(60));
  EXPECT_EQ(q.send.size(), 12u);                       // Serial Query
  EXPECT_EQ(session_.Deadline(), now_ + seconds(90));  // the query's retry
  RtrSession::Output t = session_.Tick(now_ + seconds(90));
  EXPECT_TRUE(t.close);  // unanswered
  session_.Disconnected();
  // The cache is gone: the data holds until the expire interval after the last End of Data.
  EXPECT_EQ(session_.Deadline(), now_ + seconds(600));
  session_.Tick(now_ + seconds(599));
  EXPECT_EQ(store_.size(), 2u);
  session_.Tick(now_ + seconds(600));
  EXPECT_EQ(store_.size(), 0u);
  EXPECT_EQ(session_.expiries(), 1u);
  EXPECT_FALSE(session_.Deadline().has_value());
  EXPECT_EQ(session_.Connected(now_).send.size(), 8u);  // a Reset Query after expiry
}

TEST_F(RtrSessionTest, IntervalsOutOfBoundsAreIgnored) {
  session_.Connected(now_);
  Feed(CacheResponse(1, 7));
  Feed(EndOfData(1, 7, 1, 3600, 600, 100));  // expire below 600 s
  EXPECT_EQ(session_.intervals().expire, 7200u);
}

TEST_F(RtrSessionTest, PdusOutOfPlaceAreErrors) {
  session_.Connected(now_);
  EXPECT_TRUE(Feed(Ipv4Prefix(1, true, k192, 24, 24, 1)).close);  // before Cache Response
  session_.Connected(now_);
  EXPECT_TRUE(Feed(EndOfData(1, 7, 1)).close);
  session_.Connected(now_);
  EXPECT_TRUE(Feed(CacheReset(1)).close);  // answers a Serial Query only
  EXPECT_EQ(store_.size(), 0u);
}

}  // namespace
}  // namespace sluice::rpki
