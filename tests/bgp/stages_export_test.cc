// Export rules, one row per rule (split horizon, route reflection, eBGP prepend and nexthop,
// third-party nexthop, LOCAL_PREF and MED, NO_EXPORT/NO_ADVERTISE, RFC 8212, the export
// policy), and the ExportFilter stage moving to a new policy in a background walk.
#include <gtest/gtest.h>

#include "bgp/stages/export_filter.h"
#include "bgp/stages/export_rules.h"
#include "bgp/stages/peer_in.h"
#include "policy/filter.h"
#include "tests/bgp/stages_test_util.h"
#include "tests/testing/golden.h"

namespace sluice::bgp {
namespace {

using testing::A;
using testing::A4;
using testing::Attr;
using testing::P;

std::shared_ptr<const policy::Filter> Policy(const char* text) {
  policy::FilterSpec spec;
  spec.policies = {"out"};
  auto f = policy::Filter::FromText(text, policy::SourceLocation{"test", 1, 1}, spec);
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *f : nullptr;
}

class ExportTest : public testing::StagesTest {
 protected:
  ExportConfig To(uint32_t id, bool ibgp, bool rr_client = false) {
    ExportConfig c;
    c.peer_id = id;
    c.ibgp = ibgp;
    c.rr_client = rr_client;
    c.local_as = 65000;
    c.router_id = A4("10.255.0.1");
    c.cluster_id = 77;
    c.peer_address = A(ibgp ? "10.0.0.9" : "192.0.2.9");
    c.self_v4 = A(ibgp ? "10.0.0.1" : "192.0.2.1");
    c.ebgp_requires_policy = false;
    return c;
  }
  std::string Export(const BgpRoute& r, const ExportConfig& c) {
    BgpVarRW rw;
    ExportMemo memo;
    std::optional<BgpRoute> out = ExportRoute(r, c, &store_, rw, &memo);
    if (!out) return "not sent";
    // The memo gives the same answer.
    std::optional<BgpRoute> again = ExportRoute(r, c, &store_, rw, &memo);
    EXPECT_EQ(again->attrs, out->attrs);
    EXPECT_EQ(memo.hits, 1u);
    return out->attrs->ToString();
  }
  BgpRoute From(const PeerSource& s, const Attr& a) {
    BgpRoute r;
    r.net = P("203.0.113.0/24");
    r.attrs = a.In(store_);
    r.source = sources_.Intern(s);
    r.flags = BgpRoute::kResolved;
    return r;
  }
};

TEST_F(ExportTest, Rules) {
  const PeerSource ebgp = testing::Source(1, "e", "192.0.2.7", 65001, false, "7.7.7.7");
  const PeerSource ibgp = testing::Source(2, "i", "10.0.0.7", 65000, true, "8.8.8.8");
  const PeerSource client = testing::Source(3, "c", "10.0.0.8", 65000, true, "9.9.9.9", true);
  PeerSource local;
  local.name = "local";
  local.local = true;
  auto from_e = [&] { return Attr().Path({65001, 7}).NextHop("192.0.2.7").Med(50); };
  auto from_i = [&] { return Attr().Path({65001, 7}).NextHop("192.0.2.7").LocalPref(120); };
  struct Row {
    const char* what;
    BgpRoute route;
    ExportConfig to;
    const char* expected;
  };
  ExportConfig third_party = To(10, false);
  third_party.shared_subnet = P("192.0.2.0/24");
  ExportConfig nhs = To(11, true);
  nhs.next_hop_self = true;
  ExportConfig rfc8212 = To(12, false);
  rfc8212.ebgp_requires_policy = true;
  const std::vector<Row> rows = {
      {"never back to the peer it came from", From(ebgp, from_e()), To(1, false), "not sent"},
      {"eBGP to eBGP: prepend, nexthop self, MED from another AS dropped", From(ebgp, from_e()),
       To(10, false), "origin IGP as_path [65000 65001 7] next_hop 192.0.2.1"},
      {"third-party nexthop kept on a shared subnet", From(ebgp, from_e()), third_party,
       "origin IGP as_path [65000 65001 7] next_hop 192.0.2.7"},
      {"eBGP to iBGP: nexthop kept, LOCAL_PREF added, MED kept", From(ebgp, from_e()), To(11, true),
       "origin IGP as_path [65001 7] next_hop 192.0.2.7 med 50 local_pref 100"},
      {"next-hop-self towards iBGP", From(ebgp, from_e()), nhs,
       "origin IGP as_path [65001 7] next_hop 10.0.0.1 med 50 local_pref 100"},
      {"iBGP to iBGP (no client): split horizon", From(ibgp, from_i()), To(11, true), "not sent"},
      {"iBGP to a client: reflected with ORIGINATOR_ID and CLUSTER_LIST", From(ibgp, from_i()),
       To(13, true, true),
       "origin IGP as_path [65001 7] next_hop 192.0.2.7 local_pref 120 originator_id 8.8.8.8 "
       "cluster_list 0.0.0.77"},
      {"client to non-client: reflected, ORIGINATOR_ID kept, cluster prepended",
       From(client, from_i().OriginatorId("1.2.3.4").ClusterList({5})), To(11, true),
       "origin IGP as_path [65001 7] next_hop 192.0.2.7 local_pref 120 originator_id 1.2.3.4 "
       "cluster_list 0.0.0.77,0.0.0.5"},
      {"iBGP to eBGP: LOCAL_PREF, ORIGINATOR_ID, CLUSTER_LIST stripped",
       From(ibgp, from_i().OriginatorId("1.2.3.4").ClusterList({5}).Med(3)), To(10, false),
       "origin IGP as_path [65000 65001 7] next_hop 192.0.2.1 med 3"},
      {"NO_EXPORT: not to eBGP", From(ebgp, from_e().Community(kCommunityNoExport)), To(10, false),
       "not sent"},
      {"NO_EXPORT: to iBGP", From(ebgp, from_e().Community(kCommunityNoExport)), To(11, true),
       "origin IGP as_path [65001 7] next_hop 192.0.2.7 med 50 local_pref 100 communities "
       "no-export"},
      {"NO_ADVERTISE: to nobody", From(ebgp, from_e().Community(kCommunityNoAdvertise)),
       To(11, true), "not sent"},
      {"RFC 8212: nothing to eBGP without a policy", From(ibgp, from_i()), rfc8212, "not sent"},
      {"originated route to eBGP", From(local, Attr().NextHop("10.9.9.9").Med(5)), To(10, false),
       "origin IGP as_path [65000] next_hop 192.0.2.1 med 5"},
      {"originated route to iBGP", From(local, Attr().NextHop("10.9.9.9")), To(11, true),
       "origin IGP as_path [] next_hop 10.9.9.9 local_pref 100"},
      {"originated from this router (nexthop 0.0.0.0) to iBGP: our address",
       From(local, Attr().NextHop("0.0.0.0")), To(11, true),
       "origin IGP as_path [] next_hop 10.0.0.1 local_pref 100"},
  };
  for (const Row& row : rows) EXPECT_EQ(Export(row.route, row.to), row.expected) << row.what;
}

TEST_F(ExportTest, PolicyRunsBeforeTheRulesAndKeepsWhatItWrote) {
  ExportConfig c = To(10, false);
  c.filter = Policy(R"(
      policy-statement out {
        term t { from { network4 203.0.113.0/24; } then { med 7; nexthop 192.0.2.99; as-path prepend 65000 2; community add [ 65000:9 ]; accept; } }
        term rest { then { reject; } }
      })");
  const PeerSource ebgp = testing::Source(1, "e", "192.0.2.7", 65001, false);
  EXPECT_EQ(Export(From(ebgp, Attr().Path({65001}).NextHop("192.0.2.7").Med(50)), c),
            "origin IGP as_path [65000 65000 65000 65001] next_hop 192.0.2.99 med 7 communities "
            "65000:9");
  BgpRoute other = From(ebgp, Attr().Path({65001}).NextHop("192.0.2.7"));
  other.net = P("198.51.100.0/24");
  EXPECT_EQ(Export(other, c), "not sent");
}

// Only the attribute set changes on the way out: the rest of the route (path id, IGP metric,
// flags, origin validation state) is the route's, whether the memo knows the set or not.
TEST_F(ExportTest, KeepsEverythingButTheAttributes) {
  const PeerSource ebgp = testing::Source(1, "e", "192.0.2.7", 65001, false);
  BgpRoute r = From(ebgp, Attr().Path({65001}).NextHop("192.0.2.7"));
  r.path_id = 7;
  r.igp_metric = 30;
  r.flags = BgpRoute::kResolved | BgpRoute::kUnresolvable;
  r.rpki = rpki::RpkiState::kInvalid;
  BgpVarRW rw;
  ExportMemo memo;
  for (int pass = 0; pass < 2; ++pass) {  // a miss, then a hit
    std::optional<BgpRoute> out = ExportRoute(r, To(10, false), &store_, rw, &memo);
    ASSERT_TRUE(out);
    EXPECT_NE(out->attrs, r.attrs);
    BgpRoute expected = r;
    expected.attrs = out->attrs;
    EXPECT_EQ(*out, expected) << out->ToString();
  }
  EXPECT_EQ(memo.hits, 1u);
  EXPECT_EQ(r.WithAttributes(r.attrs), r);
}

// Peers whose configurations make the same set of a route share a memo (the first peer's
// miss is the others' hit); a peer that would get another set (its own nexthop, iBGP) has its
// own, and gets its own set.
TEST_F(ExportTest, PeersWithTheSameTransformShareAMemo) {
  const PeerSource ebgp = testing::Source(1, "e", "192.0.2.7", 65001, false);
  const BgpRoute r = From(ebgp, Attr().Path({65001}).NextHop("192.0.2.7"));
  ExportMemoPool pool;
  ExportConfig a = To(10, false);
  ExportConfig b = To(11, false);
  b.peer_address = A("192.0.2.11");
  b.filter = Policy("policy-statement out { term t { then { accept; } } }");
  ExportConfig own_nexthop = To(12, false);
  own_nexthop.self_v4 = A("192.0.2.2");
  const ExportConfig internal = To(13, true);
  std::shared_ptr<ExportMemo> memo_a = pool.For(a), memo_b = pool.For(b);
  std::shared_ptr<ExportMemo> memo_own = pool.For(own_nexthop), memo_int = pool.For(internal);
  EXPECT_EQ(memo_a, memo_b);
  EXPECT_NE(memo_a, memo_own);
  EXPECT_NE(memo_a, memo_int);
  EXPECT_EQ(pool.size(), 3u);

  BgpVarRW rw;
  std::optional<BgpRoute> to_a = ExportRoute(r, a, &store_, rw, memo_a.get());
  std::optional<BgpRoute> to_b = ExportRoute(r, b, &store_, rw, memo_b.get());
  std::optional<BgpRoute> to_own = ExportRoute(r, own_nexthop, &store_, rw, memo_own.get());
  ASSERT_TRUE(to_a && to_b && to_own);
  EXPECT_EQ(memo_a->misses, 1u);
  EXPECT_EQ(memo_a->hits, 1u);
  EXPECT_EQ(to_b->attrs, to_a->attrs);
  EXPECT_EQ(to_a->attrs->next_hop, A4("192.0.2.1"));
  EXPECT_EQ(to_own->attrs->next_hop, A4("192.0.2.2"));
  // A memo no branch holds any more is forgotten.
  memo_own.reset();
  memo_int.reset();
  EXPECT_NE(pool.For(internal), nullptr);
  EXPECT_EQ(pool.size(), 2u);
}

TEST_F(ExportTest, StageMovesToANewPolicyInTheBackground) {
  RouteTableSet tables;
  PeerIn::Options resolved;
  resolved.mark_resolved = true;
  auto* in = plumber_.Make<PeerIn>("PeerIn", &plumber_, &tables, resolved);
  policy::FilterSlot slot(nullptr);
  auto* exp = plumber_.Make<ExportFilter>("ExportFilter", io_, &tables, nullptr, &store_,
                                          To(10, false), &slot);
  auto* cache = Cache("check");
  auto* cap = Capture("out", false);
  stage::Plumber::Plumb<BgpRoute>(in, exp);
  stage::Plumber::Plumb<BgpRoute>(exp, cache);
  stage::Plumber::Plumb<BgpRoute>(cache, cap);
  in->SessionUp(sources_.Intern(testing::Source(1, "e", "192.0.2.7", 65001, false)));
  AttrRef a = Attr().Path({65001}).NextHop("192.0.2.7").In(store_);
  for (const char* p : {"198.51.100.0/24", "203.0.113.0/24"}) in->Announce(P(p), a);
  in->Push();
  cap->Note("an export policy that only lets 203.0.113.0/24 out, with a community");
  slot.Set(Policy(R"(
      policy-statement out {
        term t { from { network4 203.0.113.0/24; } then { community add [ 65000:9 ]; accept; } }
        term rest { then { reject; } }
      })"));
  in->Push();
  EXPECT_TRUE(exp->refiltering());
  RunLoop();
  EXPECT_FALSE(exp->refiltering());
  EXPECT_EQ(cache->route_count(), 1u);
  EXPECT_EQ(cache->Verify(), 0u);
  EXPECT_TRUE(violations_.empty()) << violations_.front();
  EXPECT_GOLDEN(cap->Text(), "tests/bgp/golden/export_refilter.trace");
}

}  // namespace
}  // namespace sluice::bgp
