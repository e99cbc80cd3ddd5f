// PeerIn (the Adj-RIB-In) and the dynamic Deletion stage (XORP NSDI'05 §5.1.2): golden traces,
// and the flap test — a peer flaps 5 times while 100,000 routes are being deleted in
// the background, with CacheStage checking what downstream sees.
#include <gtest/gtest.h>

#include <map>

#include "bgp/stages/deletion_stage.h"
#include "bgp/stages/peer_in.h"
#include "tests/bgp/stages_test_util.h"
#include "tests/testing/golden.h"

namespace sluice::bgp {
namespace {

using testing::Attr;
using testing::P;

class PeerInTest : public testing::StagesTest {
 protected:
  PeerIn* MakePeerIn(PeerIn::Options options = {}) {
    options.on_deletion_done = [this] { ++deletions_done_; };
    return plumber_.Make<PeerIn>("PeerIn(P1)", &plumber_, &tables_, options);
  }
  static PeerIn::Options SliceOf(size_t n) {
    PeerIn::Options o;
    o.deletion_slice = n;
    return o;
  }
  RouteTableSet tables_;
  int deletions_done_ = 0;
};

TEST_F(PeerInTest, AnnounceReplaceWithdrawTrace) {
  PeerIn* in = MakePeerIn();
  auto* cap = Capture("out");
  stage::Plumber::Plumb<BgpRoute>(in, cap);
  AttrRef a = Attr().Path({65001}).NextHop("192.0.2.1").In(store_);
  AttrRef b = Attr().Path({65001, 65002}).NextHop("192.0.2.1").In(store_);

  EXPECT_FALSE(in->Announce(P("10.0.0.0/8"), a)) << "no session yet";
  in->SessionUp(sources_.Intern(testing::Source(1, "P1", "192.0.2.1", 65001, false)));
  cap->Note("announce 10/8 and 10.1/16, then the same 10/8 again (no change)");
  in->Announce(P("10.0.0.0/8"), a);
  in->Announce(P("10.1.0.0/16"), a);
  in->Announce(P("10.0.0.0/8"), a);
  in->Push();
  cap->Note("new attributes for 10/8, withdraw 10.1/16 and an unknown prefix");
  in->Announce(P("10.0.0.0/8"), b);
  EXPECT_TRUE(in->Withdraw(P("10.1.0.0/16")));
  EXPECT_FALSE(in->Withdraw(P("10.2.0.0/16")));
  in->Push();
  EXPECT_EQ(in->size(), 1u);
  EXPECT_EQ(in->lookup_route(P("10.0.0.0/8"))->attrs, b);
  EXPECT_FALSE(in->lookup_route(P("10.1.0.0/16")));
  EXPECT_GOLDEN(cap->Text(), "tests/bgp/golden/peer_in.trace");
}

TEST_F(PeerInTest, DeletionStageWithdrawsInSlicesAndYieldsToNewRoutes) {
  PeerIn* in = MakePeerIn(SliceOf(2));
  auto* cache = Cache("check");
  auto* cap = Capture("out");
  stage::Plumber::Plumb<BgpRoute>(in, cache);
  stage::Plumber::Plumb<BgpRoute>(cache, cap);
  AttrRef a = Attr().Path({65001}).NextHop("192.0.2.1").In(store_);
  AttrRef b = Attr().Path({65001, 7}).NextHop("192.0.2.1").In(store_);
  in->SessionUp(sources_.Intern(testing::Source(1, "P1", "192.0.2.1", 65001, false)));
  for (const char* p :
       {"10.0.0.0/24", "10.0.1.0/24", "10.0.2.0/24", "10.0.3.0/24", "10.0.4.0/24"}) {
    in->Announce(P(p), a);
  }
  in->Push();
  cap->Clear();
  cap->Note("session down: the table moves to a deletion stage");
  DeletionStage* del = in->SessionDown();
  ASSERT_NE(del, nullptr);
  EXPECT_EQ(in->size(), 0u);
  EXPECT_EQ(in->lookup_route(P("10.0.3.0/24")), std::nullopt);
  EXPECT_TRUE(cache->lookup_route(P("10.0.3.0/24")).has_value()) << "still downstream";
  Poll(1);
  cap->Note("the peer is back (new BGP id) and announces 10.0.3/24 and 10.9/24");
  in->SessionUp(sources_.Intern(testing::Source(1, "P1'", "192.0.2.1", 65001, false)));
  in->Announce(P("10.0.3.0/24"), b);
  in->Announce(P("10.0.9.0/24"), b);
  in->Push();
  RunLoop();
  EXPECT_TRUE(violations_.empty()) << violations_.front();
  EXPECT_EQ(cache->Verify(), 0u);
  EXPECT_EQ(cache->route_count(), 2u);
  EXPECT_EQ(deletions_done_, 1);
  EXPECT_EQ(plumber_.Describe(),
            "PeerIn(P1) [PeerIn] routes=2\n  check [Cache] routes=2 violations=0\n    out "
            "[Capture] lines=" +
                std::to_string(cap->trace().size()) + "\n");
  EXPECT_GOLDEN(cap->Text(), "tests/bgp/golden/deletion.trace");
}

// Flap a peer 5 times during the background deletion of 100,000 routes.
TEST_F(PeerInTest, FiveFlapsDuringTheDeletionOf100kRoutes) {
  PeerIn* in = MakePeerIn(SliceOf(5000));
  auto* after_in = Cache("after PeerIn");
  auto* sink = Cache("sink");
  stage::Plumber::Plumb<BgpRoute>(in, after_in);
  stage::Plumber::Plumb<BgpRoute>(after_in, sink);
  std::vector<AttrRef> attrs;
  for (uint32_t i = 0; i < 6; ++i) {
    attrs.push_back(Attr().Path({65001, 100 + i}).NextHop("192.0.2.1").In(store_));
  }
  auto prefix = [](uint32_t i) { return net::Prefix(net::IPv4Address(0x0a000000 + (i << 8)), 24); };
  std::map<net::Prefix, AttrRef> expected;
  for (int session = 0; session < 6; ++session) {
    in->SessionUp(sources_.Intern(
        testing::Source(1, "P1", "192.0.2.1", 65001, false, session % 2 ? "1.1.1.1" : "2.2.2.2")));
    expected.clear();
    // Session 0 announces 100,000 routes; later ones re-announce a different, overlapping part
    // with other attributes, interleaved with the running deletions.
    const uint32_t first = session == 0 ? 0 : 7000 * session;
    const uint32_t count = session == 0 ? 100000 : 30000;
    for (uint32_t i = first; i < first + count; ++i) {
      in->Announce(prefix(i), attrs[session]);
      expected[prefix(i)] = attrs[session];
      if (i % 1000 == 0) {
        in->Push();
        Poll(1);  // a deletion slice runs now and then
      }
    }
    in->Push();
    Poll(3);
    if (session < 5) {
      ASSERT_NE(in->SessionDown(), nullptr);
    }
  }
  RunLoop();
  ASSERT_TRUE(violations_.empty())
      << violations_.size() << " violations, first: " << violations_.front();
  EXPECT_EQ(after_in->Verify(), 0u);
  EXPECT_EQ(sink->Verify(), 0u);
  EXPECT_EQ(deletions_done_, 5);
  EXPECT_EQ(sink->route_count(), expected.size());
  for (const auto& [p, a] : expected) {
    const BgpRoute* r = sink->sent(p);
    ASSERT_NE(r, nullptr) << p.ToString();
    EXPECT_EQ(r->attrs, a) << p.ToString();
  }
  EXPECT_EQ(tables_.route_count(), expected.size()) << "deletion tables are gone";
  EXPECT_EQ(plumber_.size(), 3u) << plumber_.Describe();
}

}  // namespace
}  // namespace sluice::bgp
