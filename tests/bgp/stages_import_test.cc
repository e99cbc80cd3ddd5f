// ImportFilter: AS_PATH and route-reflection loops, RFC 8212 default deny, the import policy,
// a policy change applied by a background re-filter walk (golden trace), and the policy's view of
// a route's RPKI state.
#include <gtest/gtest.h>

#include "bgp/rpki/rpki_state.h"
#include "bgp/stages/bgp_var_rw.h"
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

// Route origin validation in the import policy (RFC 6811 §2): the state the validation stage
// set on the route decides; a route no validation stage has seen reads not-found.
TEST_F(ImportTest, RpkiInvalidRoutesAreRejectedByPolicy) {
  const char* text = R"(
      policy-statement rov {
        term invalid { from { rpki invalid; } then { reject; } }
        term rest { then { accept; } }
      }
      policy-statement only-not-found {
        term nf { from { rpki not-found; } then { accept; } }
        term rest { then { reject; } }
      })";
  ImportConfig config = Config(true);
  config.filter = Policy(text, "rov");
  ASSERT_NE(config.filter, nullptr);
  Build(testing::Source(1, "e", "10.0.0.1", 65001, false), config);
  BgpRoute route;
  route.net = P("192.0.2.0/24");
  route.attrs = Attr().Path({65001, 64500}).NextHop("10.0.0.1").In(store_);
  route.source = sources_.Intern(testing::Source(1, "e", "10.0.0.1", 65001, false));
  auto passes = [&](std::optional<rpki::RpkiState> state, const ImportConfig& c) {
    route.rpki = state;
    std::optional<BgpRoute> out = filter_->Apply(route, c);
    if (out) {
      EXPECT_EQ(out->rpki, state) << "the state travels on with the route";
    }
    return out.has_value();
  };
  EXPECT_FALSE(passes(rpki::RpkiState::kInvalid, config));
  EXPECT_TRUE(passes(rpki::RpkiState::kValid, config));
  EXPECT_TRUE(passes(rpki::RpkiState::kNotFound, config));
  EXPECT_TRUE(passes(std::nullopt, config));
  ImportConfig nf = Config(true);
  nf.filter = Policy(text, "only-not-found");
  EXPECT_TRUE(passes(rpki::RpkiState::kNotFound, nf));
  EXPECT_TRUE(passes(std::nullopt, nf)) << "sluice-bgp without RPKI: every route is not-found";
  EXPECT_FALSE(passes(rpki::RpkiState::kValid, nf));
  EXPECT_FALSE(passes(rpki::RpkiState::kInvalid, nf));
}

TEST(BgpVarRW, RpkiIsReadOnly) {
  AttributeStore store;
  PeerSourceRegistry sources;
  BgpRoute route;
  route.net = P("2001:db8::/32");
  route.attrs = Attr().Path({65001}).In(store);
  route.source = sources.Local();
  PolicyContext context;
  BgpVarRW rw;
  const std::pair<std::optional<rpki::RpkiState>, policy::RpkiValidation> cases[] = {
      {std::nullopt, policy::RpkiValidation::kNotFound},
      {rpki::RpkiState::kNotFound, policy::RpkiValidation::kNotFound},
      {rpki::RpkiState::kValid, policy::RpkiValidation::kValid},
      {rpki::RpkiState::kInvalid, policy::RpkiValidation::kInvalid},
  };
  for (const auto& [state, want] : cases) {
    route.rpki = state;
    rw.Reset(route, context);
    const policy::Value v = rw.Read(policy::VarId::kRpki);
    ASSERT_EQ(v.kind(), policy::ValueKind::kU32);
    EXPECT_EQ(policy::RpkiValidationName(v.u32()),
              policy::RpkiValidationName(static_cast<uint32_t>(want)));
    rw.Write(policy::VarId::kRpki,
             policy::Value::U32(static_cast<uint32_t>(policy::RpkiValidation::kValid)));
    EXPECT_FALSE(rw.modified());
    EXPECT_FALSE(rw.Wrote(policy::VarId::kRpki));
  }
}

}  // namespace
}  // namespace sluice::bgp
