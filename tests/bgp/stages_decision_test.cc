// The decision process (RFC 4271 §9.1.2, RFC 4456 §9): one table row per tie-break step, each
// with the candidates in both orders, and the Decision stage's output as a golden trace.
#include <gtest/gtest.h>

#include <random>

#include "absl/strings/str_cat.h"
#include "bgp/stages/decision.h"
#include "bgp/stages/decision_process.h"
#include "bgp/stages/peer_in.h"
#include "tests/bgp/stages_test_util.h"
#include "tests/testing/golden.h"

namespace sluice::bgp {
namespace {

using testing::Attr;
using testing::P;

class DecisionProcessTest : public testing::StagesTest {
 protected:
  const PeerSource* Ebgp(uint32_t id, const char* addr, uint32_t as, const char* bgp_id) {
    return sources_.Intern(testing::Source(id, addr, addr, as, false, bgp_id));
  }
  const PeerSource* Ibgp(uint32_t id, const char* addr, const char* bgp_id) {
    return sources_.Intern(testing::Source(id, addr, addr, 65000, true, bgp_id));
  }
  BgpRoute Route(const PeerSource* s, const Attr& a, uint32_t igp = 0, bool resolved = true) {
    BgpRoute r;
    r.net = P("192.0.2.0/24");
    r.attrs = a.In(store_);
    r.source = s;
    r.igp_metric = igp;
    r.flags = resolved ? BgpRoute::kResolved : BgpRoute::kUnresolvable;
    return r;
  }
  // Peer `i` (address 10.0.x.y, from i + 1) of AS `as`, in session, plumbed into `decision`;
  // its PeerIn marks routes resolved or unresolvable.
  PeerIn* AddPeer(RouteTableSet* tables, Decision* decision, int i, uint32_t as, bool resolved) {
    PeerIn::Options options;
    options.mark_resolved = resolved;
    auto* p = plumber_.Make<PeerIn>(absl::StrCat("PeerIn(", i, ")"), &plumber_, tables, options);
    stage::Plumber::Plumb<BgpStage::RouteType>(p, decision);
    const std::string addr = absl::StrCat("10.0.", i / 256, ".", i % 256 + 1);
    p->SessionUp(sources_.Intern(testing::Source(i + 1, addr.c_str(), addr.c_str(), as, false)));
    return p;
  }
};

struct Row {
  const char* what;
  std::vector<BgpRoute> candidates;
  int winner;
  DecisionStep step;
  bool always_compare_med = false;
};

TEST_F(DecisionProcessTest, EveryTieBreakStep) {
  const PeerSource* e1 = Ebgp(1, "10.0.0.1", 65001, "1.1.1.1");
  const PeerSource* e2 = Ebgp(2, "10.0.0.2", 65002, "2.2.2.2");
  const PeerSource* e3 = Ebgp(3, "10.0.0.3", 65001, "3.3.3.3");
  const PeerSource* i4 = Ibgp(4, "10.0.0.4", "4.4.4.4");
  const PeerSource* i5 = Ibgp(5, "10.0.0.5", "5.5.5.5");
  // Two sessions with the same BGP id (through ORIGINATOR_ID) and different addresses.
  const PeerSource* i6 = Ibgp(6, "10.0.0.6", "6.6.6.6");
  const PeerSource* i7 = Ibgp(7, "10.0.0.7", "7.7.7.7");
  PeerSource local;
  local.name = "local";
  local.local = true;
  const PeerSource* lo = sources_.Intern(local);
  auto base = [] { return Attr().Path({65001, 7}).NextHop("10.0.0.1"); };

  std::vector<Row> rows = {
      {"unresolvable nexthop is out",
       {Route(e1, base(), 0, false), Route(e3, base().Path({65001, 7, 8, 9}))},
       1,
       DecisionStep::kResolvable},
      {"nothing resolvable", {Route(e1, base(), 0, false)}, -1, DecisionStep::kResolvable},
      {"originated beats learnt",
       {Route(e1, base()), Route(lo, Attr().NextHop("10.9.9.9"))},
       1,
       DecisionStep::kLocal},
      {"higher LOCAL_PREF",
       {Route(i4, base().LocalPref(100)), Route(i5, base().LocalPref(200))},
       1,
       DecisionStep::kLocalPref},
      {"absent LOCAL_PREF counts 100",
       {Route(i4, base().LocalPref(99)), Route(i5, base())},
       1,
       DecisionStep::kLocalPref},
      {"shorter AS_PATH",
       {Route(e1, base().Path({65001, 2, 3})), Route(e2, base().Path({65002}))},
       1,
       DecisionStep::kAsPath},
      {"an AS_SET counts one",
       {Route(e1, base().PathWithSet({65001}, {2, 3, 4})), Route(e2, base().Path({65002, 5, 6}))},
       0,
       DecisionStep::kAsPath},
      {"lower ORIGIN",
       {Route(e1, base().Origin(Origin::kEgp)), Route(e3, base())},
       1,
       DecisionStep::kOrigin},
      {"EGP before INCOMPLETE",
       {Route(e1, base().Origin(Origin::kIncomplete)), Route(e3, base().Origin(Origin::kEgp))},
       1,
       DecisionStep::kOrigin},
      {"lower MED from the same neighbour AS",
       {Route(e1, base().Med(10)), Route(e3, base().Med(5))},
       1,
       DecisionStep::kMed},
      {"absent MED counts 0", {Route(e1, base().Med(1)), Route(e3, base())}, 1, DecisionStep::kMed},
      {"MED not compared across neighbour ASes",
       {Route(e1, base().Med(10)), Route(e2, base().Path({65002, 7}).Med(5))},
       0,
       DecisionStep::kBgpId},
      {"always-compare-med",
       {Route(e1, base().Med(10)), Route(e2, base().Path({65002, 7}).Med(5))},
       1,
       DecisionStep::kMed,
       true},
      // RFC 4271 §9.1.2.2 c over the set: e3's route loses to e1's within AS 65001 and is
      // removed before the BGP identifier step, although it would win that step.
      {"MED eliminates per neighbour AS, then the rest compete",
       {Route(e3, base().Med(0)), Route(e2, base().Path({65002, 7}).Med(50)),
        Route(e1, base().Med(20))},
       1,
       DecisionStep::kBgpId},
      {"eBGP over iBGP", {Route(i4, base()), Route(e3, base())}, 1, DecisionStep::kEbgp},
      {"lower IGP metric",
       {Route(i4, base(), 20), Route(i5, base(), 10)},
       1,
       DecisionStep::kIgpMetric},
      {"lower BGP identifier", {Route(i5, base()), Route(i4, base())}, 1, DecisionStep::kBgpId},
      {"ORIGINATOR_ID stands for the BGP identifier",
       {Route(i4, base().OriginatorId("9.9.9.9")), Route(i5, base())},
       1,
       DecisionStep::kBgpId},
      {"shorter CLUSTER_LIST",
       {Route(i6, base().OriginatorId("1.1.1.1").ClusterList({1, 2})),
        Route(i7, base().OriginatorId("1.1.1.1").ClusterList({3}))},
       1,
       DecisionStep::kClusterList},
      {"lower peer address",
       {Route(i7, base().OriginatorId("1.1.1.1")), Route(i6, base().OriginatorId("1.1.1.1"))},
       1,
       DecisionStep::kPeerAddress},
  };
  for (const Row& row : rows) {
    DecisionOptions options;
    options.always_compare_med = row.always_compare_med;
    std::vector<const BgpRoute*> c;
    for (const BgpRoute& r : row.candidates) c.push_back(&r);
    Selection s = SelectBest(c, options);
    EXPECT_EQ(s.best, row.winner) << row.what;
    EXPECT_EQ(DecisionStepName(s.decided_by), DecisionStepName(row.step)) << row.what;
    // The order of the candidates does not matter.
    std::vector<const BgpRoute*> reversed(c.rbegin(), c.rend());
    Selection r = SelectBest(reversed, options);
    const int expected = row.winner < 0 ? -1 : static_cast<int>(c.size()) - 1 - row.winner;
    EXPECT_EQ(r.best, expected) << row.what << " (reversed)";
  }
}

TEST_F(DecisionProcessTest, PeerIdAndPathIdBreakTheLastTies) {
  PeerSource a = testing::Source(1, "a", "10.0.0.1", 65000, true, "1.1.1.1");
  PeerSource b = a;
  b.peer_id = 2;
  b.name = "b";
  BgpRoute ra = Route(sources_.Intern(a), Attr().NextHop("10.0.0.1"));
  BgpRoute rb = Route(sources_.Intern(b), Attr().NextHop("10.0.0.1"));
  std::vector<const BgpRoute*> c = {&rb, &ra};
  Selection s = SelectBest(c, {});
  EXPECT_EQ(s.best, 1);
  EXPECT_EQ(s.decided_by, DecisionStep::kPeerId);
}

// The Decision stage: three peers' branches (PeerIns marking routes resolved), the winner's
// changes as a trace, and the consistency checks of a CacheStage.
TEST_F(DecisionProcessTest, StageSendsWinnerChanges) {
  RouteTableSet tables;
  PeerIn::Options resolved;
  resolved.mark_resolved = true;
  auto* p1 = plumber_.Make<PeerIn>("PeerIn(e1)", &plumber_, &tables, resolved);
  auto* p2 = plumber_.Make<PeerIn>("PeerIn(i2)", &plumber_, &tables, resolved);
  auto* p3 = plumber_.Make<PeerIn>("PeerIn(i3)", &plumber_, &tables, resolved);
  auto* decision = plumber_.Make<Decision>("Decision", DecisionOptions{});
  auto* cache = Cache("check");
  auto* cap = Capture("out", false);
  for (PeerIn* p : {p1, p2, p3}) stage::Plumber::Plumb<BgpStage::RouteType>(p, decision);
  stage::Plumber::Plumb<BgpRoute>(decision, cache);
  stage::Plumber::Plumb<BgpRoute>(cache, cap);
  p1->SessionUp(sources_.Intern(testing::Source(1, "e1", "10.0.0.1", 65001, false)));
  p2->SessionUp(sources_.Intern(testing::Source(2, "i2", "10.0.0.2", 65000, true)));
  p3->SessionUp(sources_.Intern(testing::Source(3, "i3", "10.0.0.3", 65000, true)));
  const net::Prefix n = P("192.0.2.0/24");
  AttrRef ebgp = Attr().Path({65001, 7}).NextHop("10.0.0.1").In(store_);
  AttrRef lp200 = Attr().Path({65005, 7}).NextHop("10.0.0.2").LocalPref(200).In(store_);
  AttrRef lp50 = Attr().Path({65005, 7}).NextHop("10.0.0.3").LocalPref(50).In(store_);

  cap->Note("e1 announces: the only route wins");
  p1->Announce(n, ebgp);
  cap->Note("i3 announces LOCAL_PREF 50: e1 stays");
  p3->Announce(n, lp50);
  cap->Note("i2 announces LOCAL_PREF 200: i2 wins");
  p2->Announce(n, lp200);
  EXPECT_EQ(decision->lookup_route(n)->source->name, "i2");
  EXPECT_EQ(decision->Candidates(n).size(), 3u);
  cap->Note("e1 withdraws: i2 stays");
  p1->Withdraw(n);
  cap->Note("i2 withdraws: i3 wins");
  p2->Withdraw(n);
  cap->Note("i3 withdraws: nothing left");
  p3->Withdraw(n);
  EXPECT_FALSE(decision->lookup_route(n));
  EXPECT_TRUE(violations_.empty()) << violations_.front();
  EXPECT_EQ(decision->loc_rib_size(), 0u);
  EXPECT_GOLDEN(cap->Text(), "tests/bgp/golden/decision.trace");
}

// RFC 4271 §9.1.2.2 (c) compares MEDs only within a neighbouring AS, so a route that lost can
// still decide the winner: O (AS 65100, MED 0) eliminates X (AS 65100, MED 5), leaving W (AS
// 65106) to win on the lower BGP Identifier. When O leaves, X is back and beats W. Decision,
// indexing with kIndexFromParents parents, must not take O's withdrawal for one that changes
// nothing, although O ranks with the winner and is not it.
TEST_F(DecisionProcessTest, ALoserLeavingCanChangeTheWinnerThroughMed) {
  RouteTableSet tables;
  auto* decision = plumber_.Make<Decision>("Decision", DecisionOptions{});
  auto* cache = Cache("check");
  stage::Plumber::Plumb<BgpRoute>(decision, cache);
  std::vector<PeerIn*> peers;
  for (int i = 0; i < static_cast<int>(Decision::kIndexFromParents); ++i) {
    peers.push_back(AddPeer(&tables, decision, i, 65001, true));
  }
  const net::Prefix n = P("192.0.2.0/24");
  peers[0]->Announce(n, Attr().Path({65100}).NextHop("10.0.0.1").Med(5).In(store_));  // X
  peers[1]->Announce(n, Attr().Path({65106}).NextHop("10.0.0.2").Med(0).In(store_));  // W
  peers[2]->Announce(n, Attr().Path({65100}).NextHop("10.0.0.3").Med(0).In(store_));  // O
  ASSERT_TRUE(cache->lookup_route(n));
  EXPECT_EQ(cache->lookup_route(n)->source->name, "10.0.0.2");
  EXPECT_EQ(decision->lookup_route(n)->source->name, "10.0.0.2");
  peers[2]->Withdraw(n);
  ASSERT_TRUE(cache->lookup_route(n));
  EXPECT_EQ(cache->lookup_route(n)->source->name, "10.0.0.1");
  EXPECT_EQ(decision->lookup_route(n)->source->name, "10.0.0.1");
  EXPECT_TRUE(violations_.empty()) << violations_.front();
}

// With many peers, Decision indexes which parents hold each prefix and asks only those, and
// decides from the recorded winner the changes that cannot tie with it. A random sequence of
// announcements and withdrawals from 12 peers (every fourth with unresolvable nexthops; the
// attribute sets differ in LOCAL_PREF, AS_PATH length, ORIGIN and MED), with peers leaving (below
// the indexing threshold) and new ones taking their slots while routes are held (an index that
// is not complete), then everything withdrawn (complete again): after every change, the
// Loc-RIB's answer and what went downstream equal the decision process over every peer's route.
TEST_F(DecisionProcessTest, ManyPeersAskOnlyTheHoldersAndAgreeWithEveryPeer) {
  RouteTableSet tables;
  auto* decision = plumber_.Make<Decision>("Decision", DecisionOptions{});
  auto* cache = Cache("check");
  stage::Plumber::Plumb<BgpRoute>(decision, cache);
  constexpr int kPeers = 12;
  std::vector<PeerIn*> peers;
  auto add_peer = [&](int i) { return AddPeer(&tables, decision, i, 65001 + i % 5, i % 4 != 3); };
  for (int i = 0; i < kPeers; ++i) peers.push_back(add_peer(i));
  EXPECT_TRUE(decision->index_complete());  // indexing began before any route
  std::vector<net::Prefix> prefixes;
  for (int i = 0; i < 40; ++i) prefixes.push_back(P(absl::StrCat("198.51.", i, ".0/24").c_str()));
  std::vector<AttrRef> attrs;
  for (uint32_t i = 0; i < 24; ++i) {
    const uint32_t k = i % 12;  // each path twice, with two MEDs
    Attr a;
    if (k % 3 == 0) a.Path({65100 + k});
    if (k % 3 == 1) a.Path({65100 + k % 2, 7});
    if (k % 3 == 2) a.Path({65100 + k % 2, 7, 8});
    a.Origin(k % 5 == 4 ? Origin::kIncomplete : Origin::kIgp);
    a.Med(k % 4 + 5 * (i / 12));
    attrs.push_back(a.NextHop("10.0.0.1").LocalPref(100 + 10 * (k % 2)).In(store_));
  }
  auto check = [&](const net::Prefix& n, const std::string& when) {
    std::vector<BgpRoute> all;
    for (PeerIn* p : peers) {
      if (std::optional<BgpRoute> r = p->lookup_route(n)) all.push_back(*r);
    }
    std::vector<const BgpRoute*> candidates;
    for (const BgpRoute& r : all) candidates.push_back(&r);
    const Selection best = SelectBest(candidates, {});
    std::optional<BgpRoute> got = decision->lookup_route(n);
    ASSERT_EQ(got.has_value(), best.best >= 0) << when;
    if (got) {
      EXPECT_TRUE(*got == all[best.best]) << when;
    }
    std::optional<BgpRoute> sent = cache->lookup_route(n);
    ASSERT_EQ(sent.has_value(), got.has_value()) << when;
    if (sent) {
      EXPECT_TRUE(*sent == *got) << when;
    }
  };
  std::mt19937 rng(7);
  auto step = [&](int round) {
    PeerIn* p = peers[rng() % peers.size()];
    const net::Prefix& n = prefixes[rng() % prefixes.size()];
    if (rng() % 3 == 0) {
      p->Withdraw(n);
    } else {
      p->Announce(n, attrs[rng() % attrs.size()]);
    }
    check(n, absl::StrCat("round ", round, " ", n.ToString()));
  };
  for (int round = 0; round < 3000; ++round) step(round);
  EXPECT_GT(decision->indexed_prefixes(), 0u);
  EXPECT_GT(decision->decided_from_winner(), 1000u);
  EXPECT_GT(decision->looked_up_from_winner(), 1000u);  // check's lookups, mostly
  // Peers withdraw everything and leave until one fewer than kIndexFromParents: no index.
  constexpr int kLeave = kPeers - static_cast<int>(Decision::kIndexFromParents) + 1;
  for (int k = 0; k < kLeave; ++k) {
    PeerIn* p = peers.back();
    for (const net::Prefix& n : prefixes) p->Withdraw(n);
    stage::Plumber::Unplumb<BgpRoute>(p, decision);
    peers.pop_back();
  }
  EXPECT_EQ(decision->indexed_prefixes(), 0u);
  for (const net::Prefix& n : prefixes) check(n, "after peers left");
  for (int round = 3000; round < 4000; ++round) step(round);
  // New peers take the free slots: indexing again.
  for (int i = kPeers; i < kPeers + kLeave - 2; ++i) peers.push_back(add_peer(i));
  EXPECT_FALSE(decision->index_complete());  // routes held before indexing began again
  for (int round = 4000; round < 7000; ++round) step(round);
  EXPECT_GT(decision->indexed_prefixes(), 0u);
  for (const net::Prefix& n : prefixes) check(n, "at the end");
  for (PeerIn* p : peers) {
    for (const net::Prefix& n : prefixes) p->Withdraw(n);
  }
  EXPECT_TRUE(decision->index_complete());  // nothing held: complete again
  for (int round = 7000; round < 8000; ++round) step(round);
  EXPECT_TRUE(violations_.empty()) << violations_.front();
}

}  // namespace
}  // namespace sluice::bgp
