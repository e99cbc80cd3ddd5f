// NexthopResolver and NexthopCache: routes held until the RIB answers, released with their IGP
// metric; a changed answer (invalidation, then a new answer) re-annotates routes in a
// background walk; interest is registered once per nexthop and deregistered when unused.
#include <gtest/gtest.h>

#include "bgp/stages/nexthop_cache.h"
#include "bgp/stages/nexthop_resolver.h"
#include "bgp/stages/peer_in.h"
#include "tests/bgp/stages_fakes.h"
#include "tests/bgp/stages_test_util.h"
#include "tests/testing/golden.h"

namespace sluice::bgp {
namespace {

using testing::A;
using testing::Attr;
using testing::P;

class NexthopTest : public testing::StagesTest {
 protected:
  void SetUp() override {
    interest_ = std::make_unique<testing::FakeInterest>(io_);
    cache_ = std::make_unique<NexthopCache>(io_, interest_.get());
    in_ = plumber_.Make<PeerIn>("PeerIn", &plumber_, &tables_, PeerIn::Options{});
    resolver_ = plumber_.Make<NexthopResolver>("NexthopResolver", io_, cache_.get(), &tables_);
    check_ = Cache("check");
    cap_ = Capture("out", false);
    stage::Plumber::Plumb<BgpRoute>(in_, resolver_);
    stage::Plumber::Plumb<BgpRoute>(resolver_, check_);
    stage::Plumber::Plumb<BgpRoute>(check_, cap_);
    in_->SessionUp(sources_.Intern(testing::Source(1, "i", "10.0.0.2", 65000, true)));
  }
  void TearDown() override {
    plumber_.Retire(resolver_);  // before the cache goes
    RunLoop();
  }
  RouteTableSet tables_;
  std::unique_ptr<testing::FakeInterest> interest_;
  std::unique_ptr<NexthopCache> cache_;
  PeerIn* in_ = nullptr;
  NexthopResolver* resolver_ = nullptr;
  stage::CacheStage<BgpRoute>* check_ = nullptr;
  stage::CaptureStage<BgpRoute>* cap_ = nullptr;
};

TEST_F(NexthopTest, HoldReleaseAndReresolve) {
  interest_->routes[P("10.0.0.0/8")] = 10;
  interest_->hold = true;
  AttrRef via_10 = Attr().Path({65001}).NextHop("10.1.1.1").In(store_);
  AttrRef via_192 = Attr().Path({65002}).NextHop("192.0.2.1").In(store_);
  cap_->Note("three routes before the RIB has answered: all held");
  in_->Announce(P("172.16.1.0/24"), via_10);
  in_->Announce(P("172.16.2.0/24"), via_10);
  in_->Announce(P("172.16.3.0/24"), via_192);
  in_->Push();
  RunLoop();
  EXPECT_EQ(resolver_->held(), 3u);
  EXPECT_FALSE(resolver_->lookup_route(P("172.16.1.0/24")));
  EXPECT_EQ(interest_->registrations, 2) << "one registration per nexthop";
  cap_->Note("the RIB answers: 10.1.1.1 via 10/8 metric 10, 192.0.2.1 unresolvable");
  interest_->hold = false;
  interest_->Release();
  RunLoop();
  EXPECT_EQ(resolver_->held(), 0u);
  EXPECT_EQ(resolver_->lookup_route(P("172.16.1.0/24"))->igp_metric, 10u);
  cap_->Note("a new route via a known nexthop goes on at once");
  in_->Announce(P("172.16.4.0/24"), via_10);
  cap_->Note("the IGP metric of 10/8 changes to 20: the RIB invalidates, BGP asks again");
  interest_->routes[P("10.0.0.0/8")] = 20;
  cache_->OnInvalid(P("10.0.0.0/8"));
  RunLoop();
  EXPECT_FALSE(resolver_->walking());
  EXPECT_EQ(resolver_->lookup_route(P("172.16.2.0/24"))->igp_metric, 20u);
  cap_->Note("192.0.2.0/24 appears in the RIB; the host route's answer is invalidated");
  interest_->routes[P("192.0.2.0/24")] = 5;
  cache_->OnInvalid(P("192.0.2.1/32"));
  RunLoop();
  EXPECT_TRUE(resolver_->lookup_route(P("172.16.3.0/24"))->resolved());
  cap_->Note("every route via 192.0.2.1 goes: interest in its subnet is deregistered");
  in_->Withdraw(P("172.16.3.0/24"));
  in_->Push();
  RunLoop();
  EXPECT_EQ(interest_->deregistered.size(), 1u);
  EXPECT_EQ(resolver_->nexthops(), 1u);
  EXPECT_TRUE(violations_.empty()) << violations_.front();
  EXPECT_EQ(check_->Verify(), 0u);
  EXPECT_GOLDEN(cap_->Text(), "tests/bgp/golden/nexthop.trace");
}

TEST_F(NexthopTest, ChangesDuringAWalkStayConsistent) {
  interest_->routes[P("10.0.0.0/8")] = 1;
  std::vector<AttrRef> attrs;
  for (uint32_t i = 0; i < 4; ++i) {
    attrs.push_back(Attr().Path({65001, i}).NextHop(i % 2 ? "10.1.1.1" : "10.2.2.2").In(store_));
  }
  for (uint32_t i = 0; i < 5000; ++i) {
    in_->Announce(net::Prefix(net::IPv4Address(0xac100000 + (i << 8)), 24), attrs[i % 4]);
  }
  in_->Push();
  RunLoop();
  EXPECT_EQ(check_->route_count(), 5000u);
  // Metric changes while routes change and the walk runs in slices.
  for (uint32_t round = 2; round < 6; ++round) {
    interest_->routes[P("10.0.0.0/8")] = round;
    cache_->OnInvalid(P("10.0.0.0/8"));
    Poll(3);
    for (uint32_t i = round; i < 5000; i += 7) {
      const net::Prefix p(net::IPv4Address(0xac100000 + (i << 8)), 24);
      if (i % 3 == 0) {
        in_->Withdraw(p);
      } else {
        in_->Announce(p, attrs[(i + round) % 4]);
      }
    }
    in_->Push();
    EXPECT_EQ(check_->Verify(), 0u);
    Poll(2);
  }
  RunLoop();
  EXPECT_TRUE(violations_.empty()) << violations_.size() << ": " << violations_.front();
  EXPECT_EQ(check_->Verify(), 0u);
  for (uint32_t i = 0; i < 5000; ++i) {
    const net::Prefix p(net::IPv4Address(0xac100000 + (i << 8)), 24);
    if (const BgpRoute* r = check_->sent(p)) {
      EXPECT_EQ(r->igp_metric, 5u) << p.ToString();
    }
  }
}

}  // namespace
}  // namespace sluice::bgp
