// ImportFilter: AS_PATH and route-reflection loops, RFC 8212 default deny, the import policy,
// and a policy change applied by a background re-filter walk (golden trace).
#include <gtest/gtest.h>

#include "bgp/stages/import_filter.h"
#include "bgp/stages/peer_in.h"
#include "policy/filter.h"
#include "tests/bgp/stages_test_util.h"
#include "tests/testing/golden.h"

namespace sluice::bgp {
namespace {

using testing::A4;
using testing::Attr;
using testing::P;

std::shared_ptr<const policy::Filter> Policy(const char* text, const char* name) {
  policy::FilterSpec spec;
  spec.policies = {name};
  auto f = policy::Filter::FromText(text, policy::SourceLocation{"test", 1, 1}, spec);
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *f : nullptr;
}

class ImportTest : public testing::StagesTest {
 protected:
  ImportConfig Config(bool rfc8212) {
    ImportConfig c;
    c.local_as = 65000;
    c.router_id = A4("10.0.0.254");
    c.cluster_id = 99;
    c.ebgp_requires_policy = rfc8212;
    c.context.local_as = 65000;
    return c;
  }
  void Build(const PeerSource& source, ImportConfig config, policy::FilterSlot* slot = nullptr) {
    in_ = plumber_.Make<PeerIn>("PeerIn", &plumber_, &tables_, PeerIn::Options{});
    filter_ = plumber_.Make<ImportFilter>("ImportFilter", io_, &tables_, &store_, config, slot);
    cache_ = Cache("check");
    cap_ = Capture("out", false);
    stage::Plumber::Plumb<BgpRoute>(in_, filter_);
    stage::Plumber::Plumb<BgpRoute>(filter_, cache_);
    stage::Plumber::Plumb<BgpRoute>(cache_, cap_);
    in_->SessionUp(sources_.Intern(source));
  }
  RouteTableSet tables_;
  PeerIn* in_ = nullptr;
  ImportFilter* filter_ = nullptr;
  stage::CacheStage<BgpRoute>* cache_ = nullptr;
  stage::CaptureStage<BgpRoute>* cap_ = nullptr;
};

TEST_F(ImportTest, LoopsAndRouteReflectionLoopsAreDropped) {
  Build(testing::Source(1, "rr", "10.0.0.2", 65000, true), Config(true));
  in_->Announce(P("10.1.0.0/16"), Attr().Path({65001}).NextHop("10.0.0.9").In(store_));
  in_->Announce(P("10.2.0.0/16"), Attr().Path({65001, 65000, 7}).NextHop("10.0.0.9").In(store_));
  in_->Announce(P("10.3.0.0/16"),
                Attr().PathWithSet({65001}, {7, 65000}).NextHop("10.0.0.9").In(store_));
  in_->Announce(P("10.4.0.0/16"),
                Attr().Path({65001}).NextHop("10.0.0.9").OriginatorId("10.0.0.254").In(store_));
  in_->Announce(P("10.5.0.0/16"),
                Attr().Path({65001}).NextHop("10.0.0.9").ClusterList({5, 99}).In(store_));
  in_->Announce(P("10.6.0.0/16"),
                Attr().Path({65001}).NextHop("10.0.0.9").ClusterList({5}).In(store_));
  EXPECT_EQ(cache_->route_count(), 2u);
  EXPECT_TRUE(cache_->sent(P("10.1.0.0/16")));
  EXPECT_TRUE(cache_->sent(P("10.6.0.0/16")));
  EXPECT_EQ(filter_->counters().loop_dropped, 4u);
  EXPECT_EQ(filter_->counters().accepted, 2u);
  EXPECT_FALSE(filter_->lookup_route(P("10.2.0.0/16")));
  EXPECT_TRUE(filter_->lookup_route(P("10.6.0.0/16")));
  // An internal peer needs no policy (RFC 8212 is for external peers).
  in_->Withdraw(P("10.1.0.0/16"));
  in_->Withdraw(P("10.2.0.0/16"));
  EXPECT_EQ(cache_->route_count(), 1u);
  EXPECT_TRUE(violations_.empty()) << violations_.front();
}

TEST_F(ImportTest, Rfc8212DeniesExternalRoutesWithoutPolicy) {
  Build(testing::Source(1, "e", "10.0.0.1", 65001, false), Config(true));
  in_->Announce(P("10.1.0.0/16"), Attr().Path({65001}).NextHop("10.0.0.1").In(store_));
  EXPECT_EQ(cache_->route_count(), 0u);
  EXPECT_EQ(filter_->counters().policy_dropped, 1u);
  // Switched off: the same route passes (after a re-filter walk).
  filter_->SetConfig(Config(false));
  RunLoop();
  EXPECT_EQ(cache_->route_count(), 1u);
  EXPECT_TRUE(violations_.empty()) << violations_.front();
}

TEST_F(ImportTest, PolicyChangeRefiltersInTheBackground) {
  const char* text = R"(
      prefix-list bogons { 192.168.0.0/16 orlonger; }
      prefix-list preferred { 10.0.0.0/8 orlonger; }
      policy-statement in {
        term bogons { from { prefix-list bogons; } then { reject; } }
        term pref { from { prefix-list preferred; } then { local-pref 200; community add [ 65000:1 ]; accept; } }
        term rest { then { accept; } }
      }
      policy-statement none { term all { then { reject; } } })";
  policy::FilterSlot slot(nullptr);
  Build(testing::Source(1, "e", "10.0.0.1", 65001, false), Config(false), &slot);
  AttrRef a = Attr().Path({65001, 7}).NextHop("10.0.0.1").In(store_);
  for (const char* p : {"10.1.0.0/16", "172.16.0.0/12", "192.168.1.0/24"}) in_->Announce(P(p), a);
  in_->Push();
  cap_->Note("the import policy arrives in the slot; the next push starts a re-filter walk");
  slot.Set(Policy(text, "in"));
  in_->Push();
  EXPECT_TRUE(filter_->refiltering());
  cap_->Note("a route announced during the walk follows the policy its prefix is under");
  in_->Announce(P("10.9.0.0/16"), a);
  RunLoop();
  EXPECT_FALSE(filter_->refiltering());
  EXPECT_EQ(cache_->route_count(), 3u);
  EXPECT_EQ(cache_->sent(P("10.1.0.0/16"))->attrs->local_pref, 200u);
  cap_->Note("a policy that rejects everything");
  slot.Set(Policy(text, "none"));
  in_->Push();
  RunLoop();
  EXPECT_EQ(cache_->route_count(), 0u);
  EXPECT_EQ(filter_->counters().accepted, 0u);
  EXPECT_TRUE(violations_.empty()) << violations_.front();
  EXPECT_EQ(cache_->Verify(), 0u);
  EXPECT_GOLDEN(cap_->Text(), "tests/bgp/golden/import_refilter.trace");
}

}  // namespace
}  // namespace sluice::bgp
