// The sharded BGP pipeline against the serial one on a made-up workload that touches
// every path through the shard stage: several eBGP and iBGP peers of both families announcing and
// withdrawing in UPDATEs of mixed sizes, a session going down and up again (background deletion,
// a new output branch with its dump and End-of-RIB), ROUTE-REFRESH, a peer whose session backs up
// (flow control across shards), originated routes, and a RIB born again. The Loc-RIB, every
// peer's Adj-RIB-In and Adj-RIB-Out (read and as received), and the RIB's routes must be
// identical for 1, 2, 3 and 4 threads. Runs under ThreadSanitizer too (label tsan).
#include <gtest/gtest.h>

#include <random>

#include "absl/strings/str_cat.h"
#include "bgp/stages/shard_tail.h"
#include "policy/filter.h"
#include "tests/bgp/shard_test_util.h"
#include "tests/bgp/stages_test_util.h"

namespace sluice::bgp {
namespace {

using testing::A;
using testing::P;
using testing::RouterDigest;
using testing::ShardRouter;

constexpr uint32_t kLocalAs = 65000;

struct Scenario {
  // Peers: address, AS. Two iBGP peers, four eBGP (one over IPv6).
  std::vector<std::pair<const char*, uint32_t>> peers = {
      {"192.0.2.11", 65011}, {"192.0.2.12", 65012},   {"192.0.2.13", kLocalAs},
      {"192.0.2.14", 65014}, {"2001:db8::15", 65015}, {"192.0.2.16", kLocalAs}};
  std::vector<net::Prefix> v4, v6;
  // Spread over many /16 (IPv4) and /32 (IPv6) blocks: ShardOf keeps a block on one shard, and
  // every shard must get a share.
  Scenario() {
    for (uint32_t i = 0; i < 1500; ++i) {
      v4.push_back(net::Prefix(net::IPAddress(net::IPv4Address(0x0a000000 + (i << 12))), 24));
    }
    for (uint32_t i = 0; i < 40; ++i) {
      v4.push_back(net::Prefix(net::IPAddress(net::IPv4Address(0x0b000000 + (i << 16))), 16));
    }
    for (uint32_t i = 0; i < 300; ++i) {
      v6.push_back(P(("2001:" + std::to_string(1000 + i) + ":1::/48").c_str()));
    }
  }
};

PathAttributes MakeAttrs(std::mt19937& rng, uint32_t peer_as, bool v6, bool ibgp, int peer) {
  PathAttributes a;
  a.origin = static_cast<Origin>(rng() % 2);
  std::vector<uint32_t> path;
  if (!ibgp) path.push_back(peer_as);
  const int len = 1 + int(rng() % 3);
  for (int i = 0; i < len; ++i) path.push_back(100 + rng() % 6);
  AsPath as_path;
  as_path.AppendSegment(SegmentType::kSequence, path);
  a.as_path = as_path;
  if (rng() % 3 == 0) a.med = rng() % 3;
  if (ibgp) a.local_pref = 100 + 10 * (rng() % 2);
  if (rng() % 4 == 0) a.communities.push_back(0xfde80000 + rng() % 3);
  if (v6) {
    a.mp_next_hop =
        MpNextHop{*net::IPAddress::Parse("2001:db8:ff::" + std::to_string(peer + 1)), std::nullopt};
  } else {
    a.next_hop = net::IPv4Address(0xc6336400 + uint32_t(peer + 1));
  }
  return a;
}

// Random UPDATEs from the up peers: each withdraws some and announces some with one attribute
// set, within one family.
void Churn(ShardRouter& r, std::mt19937& rng, const Scenario& s, int updates) {
  std::vector<ShardRouter::Peer*> peers;
  for (const auto& [addr, as] : s.peers) peers.push_back(r.peer(A(addr)));
  for (int n = 0; n < updates; ++n) {
    const int i = int(rng() % peers.size());
    ShardRouter::Peer& p = *peers[i];
    const bool v6 = rng() % 5 == 0;
    const std::vector<net::Prefix>& pool = v6 ? s.v6 : s.v4;
    UpdateMessage u;
    const int withdraws = rng() % 3 == 0 ? int(rng() % 8) : 0;
    for (int k = 0; k < withdraws; ++k) {
      u.withdrawn.push_back(Nlri{pool[rng() % pool.size()], 0, Safi::kUnicast});
    }
    const int announces = rng() % 4 == 0 ? 0 : 1 + int(rng() % (rng() % 10 == 0 ? 200 : 12));
    const bool ibgp = p.config.peer_as == kLocalAs;
    PathAttributes a = MakeAttrs(rng, p.config.peer_as, v6, ibgp, i);
    for (int k = 0; k < announces; ++k) {
      u.announced.push_back(Nlri{pool[rng() % pool.size()], 0, Safi::kUnicast});
    }
    if (announces > 0) u.attributes = r.store().Intern(a);
    r.RunWhilePaused();  // a session reads nothing while the shards are full
    if (p.up) p.listener->OnUpdate(u);
    if (rng() % 16 == 0) r.RunLoop();  // the loop runs now and then, as between reads
  }
}

RouterDigest RunScenario(int threads, std::vector<std::string>* log,
                         bool shard_single_thread = false, bool encode_thread = false) {
  Scenario s;
  PipelineOptions po;
  po.shard_batch = 64;  // small batches: many hand-overs
  po.shard_backlog = 512;
  po.rib_out.batch = 50;
  po.rib_out.window = 2;
  po.dump_slice = 100;
  po.deletion_slice = 100;
  ShardRouter r(threads, kLocalAs, po, shard_single_thread, nullptr, encode_thread);
  for (const auto& [addr, as] : s.peers) r.AddPeer(addr, A(addr), as);
  for (const auto& [addr, as] : s.peers) r.Up(*r.peer(A(addr)));
  std::mt19937 rng(20261121);
  Churn(r, rng, s, 400);
  r.Settle();
  // A session goes down with its routes in flight, then comes back.
  ShardRouter::Peer& p1 = *r.peer(A("192.0.2.11"));
  Churn(r, rng, s, 50);
  r.Down(p1);
  Churn(r, rng, s, 100);
  r.Up(p1);
  Churn(r, rng, s, 100);
  r.Settle();
  // A peer's session backs up: its branch stops in every shard, then goes on.
  ShardRouter::Peer& p4 = *r.peer(A("192.0.2.14"));
  p4.session->backlog = size_t{1} << 30;
  Churn(r, rng, s, 200);
  r.Settle();
  p4.session->backlog = 0;
  p4.listener->OnWritable();
  // ROUTE-REFRESH from an iBGP peer; originated routes; the RIB is born again.
  r.peer(A("192.0.2.13"))->listener->OnRouteRefresh(kIPv4Unicast);
  PathAttributes o;
  o.origin = Origin::kIgp;
  o.next_hop = net::IPv4Address(0xc0000201);
  EXPECT_TRUE(r.routing().Originate(P("203.0.113.0/24"), o).ok());
  EXPECT_TRUE(r.routing().Originate(P("10.0.16.0/24"), o).ok());
  Churn(r, rng, s, 100);
  r.rib().Reborn();
  r.routing().OnRibBorn();
  Churn(r, rng, s, 100);
  EXPECT_TRUE(r.routing().WithdrawOriginated(P("203.0.113.0/24")).ok());
  r.Settle();
  // The down peer's routes all go.
  r.Down(*r.peer(A("2001:db8::15")));
  Churn(r, rng, s, 100);
  r.Settle();
  RouterDigest d = RouterDigest::Of(r);
  for (const auto& [addr, n] : d.updates_sent) {
    log->push_back(absl::StrCat(threads, " threads: ", addr, " ", n, " UPDATEs"));
  }
  const auto status = r.routing().Peer(A("192.0.2.12"));
  EXPECT_TRUE(status.ok());
  if (status.ok()) {
    d.parts["status"].Add(absl::StrCat(status->families[0].received, " ",
                                       status->families[0].accepted, " ",
                                       status->families[0].advertised));
  }
  EXPECT_GT(d.parts["loc-rib v4"].lines, 1000u);
  EXPECT_GT(d.parts["loc-rib v6"].lines, 200u);
  EXPECT_GT(d.parts["rib"].lines, 1200u);
  return d;
}

TEST(ShardedRouting, SameRoutesAsTheSerialPipeline) {
  std::vector<std::string> log;
  const RouterDigest serial = RunScenario(1, &log);
  for (int threads : {2, 3, 4}) {
    const RouterDigest sharded = RunScenario(threads, &log);
    testing::ExpectSameRouting(serial, sharded, absl::StrCat(threads, " threads"));
  }
  // The shard stage with a single worker (what bgp_pipeline_bench --shard-stage measures).
  const RouterDigest single = RunScenario(1, &log, /*shard_single_thread=*/true);
  testing::ExpectSameRouting(serial, single, "1 thread, shard stage");
  // PeerOut encoding on a thread of its own (RouterConfig::encode_thread).
  const RouterDigest encoding = RunScenario(4, &log, false, /*encode_thread=*/true);
  testing::ExpectSameRouting(serial, encoding, "4 threads, encoding thread");
  for (const std::string& l : log) std::printf("%s\n", l.c_str());
}

// One UPDATE from AS 65011 announcing `count` /24s, each in its own /16 (10.0.0.0/24, 10.1.0.0/24,
// ...), so that every shard gets some: ShardOf keeps a /16 on one shard.
UpdateMessage SpreadUpdate(ShardRouter& r, uint32_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  UpdateMessage u;
  for (uint32_t i = 0; i < count; ++i) {
    u.announced.push_back(
        Nlri{net::Prefix(net::IPAddress(net::IPv4Address(0x0a000000 + (i << 16))), 24), 0,
             Safi::kUnicast});
  }
  u.attributes = r.store().Intern(MakeAttrs(rng, 65011, false, false, 0));
  return u;
}

// A new filter put into a peer's import slot (no UpdatePeer) is noticed at the peer's next UPDATE
// and every shard re-filters its share of the peer's routes.
// Shards with more routes waiting than PipelineOptions::shard_backlog: every session is told to
// stop reading (the loop goes on), and to read again once they caught up; nothing is lost.
TEST(ShardedRouting, AFullShardPausesEverySessionUntilItCaughtUp) {
  PipelineOptions po;
  po.shard_batch = 64;
  po.shard_backlog = 8;
  ShardRouter r(2, kLocalAs, po);
  ShardRouter::Peer& from = r.AddPeer("from", A("192.0.2.11"), 65011);
  ShardRouter::Peer& to = r.AddPeer("to", A("192.0.2.12"), 65012);
  r.Up(from);
  r.Up(to);
  r.Settle();
  Scenario s;
  UpdateMessage u;
  for (const net::Prefix& p : s.v4) u.announced.push_back(Nlri{p, 0, Safi::kUnicast});
  std::mt19937 rng(1);
  u.attributes = r.store().Intern(MakeAttrs(rng, 65011, false, false, 0));
  from.listener->OnUpdate(u);
  EXPECT_TRUE(r.routing().input_paused());
  EXPECT_TRUE(from.session->paused);
  EXPECT_TRUE(to.session->paused);
  r.RunWhilePaused();
  EXPECT_FALSE(from.session->paused);
  EXPECT_FALSE(to.session->paused);
  r.Settle();
  EXPECT_EQ(to.session->held.size(), s.v4.size());
  EXPECT_TRUE(to.session->errors.empty());
}

TEST(ShardedRouting, ANewImportFilterInTheSlotReachesEveryShard) {
  policy::FilterSlot slot(nullptr);  // no policy: everything accepted
  ShardRouter r(2, kLocalAs);
  ShardRouter::Peer& up = r.AddPeer("up", A("192.0.2.11"), 65011, true, &slot);
  r.Up(up);
  UpdateMessage u = SpreadUpdate(r, 200, 7);
  up.listener->OnUpdate(u);
  r.Settle();
  EXPECT_EQ(r.LocRib(net::Family::kIPv4).lines, 200u);

  policy::FilterSpec spec;
  spec.policies = {"in"};
  auto reject = policy::Filter::FromText("policy-statement in { term t { then { reject; } } }",
                                         policy::SourceLocation{"test", 1, 1}, spec);
  ASSERT_TRUE(reject.ok()) << reject.status();
  slot.Set(*reject);
  r.Settle();
  EXPECT_EQ(r.LocRib(net::Family::kIPv4).lines, 200u) << "nothing noticed before an UPDATE";
  UpdateMessage next;
  next.withdrawn.push_back(Nlri{P("10.0.0.0/24"), 0, Safi::kUnicast});
  up.listener->OnUpdate(next);
  r.Settle();
  EXPECT_EQ(r.LocRib(net::Family::kIPv4).lines, 0u) << "every shard re-filtered";
  EXPECT_EQ(r.AdjRibIn(up, net::Family::kIPv4).lines, 199u) << "the Adj-RIB-In keeps them";
}

// A peer that comes up after the last UPDATE, with no UPDATE following, must still get the whole
// table and End-of-RIB: its dump is not held behind the end of an UPDATE that never comes.
TEST(ShardedRouting, APeerUpAfterTheLastUpdateGetsTheTable) {
  ShardRouter r(2, kLocalAs);
  ShardRouter::Peer& up = r.AddPeer("up", A("192.0.2.11"), 65011);
  ShardRouter::Peer& down = r.AddPeer("down", A("192.0.2.14"), 65014);
  ShardRouter::Peer& late = r.AddPeer("late", A("192.0.2.16"), 65016);
  r.Up(up);
  r.Up(down);
  UpdateMessage u = SpreadUpdate(r, 300, 11);
  up.listener->OnUpdate(u);
  r.Settle();  // down's PeerOut has sent the 300 routes
  ASSERT_EQ(down.session->held.size(), 300u);
  r.Up(late);
  r.Settle();
  EXPECT_EQ(late.session->held.size(), 300u) << "the dump reached the late peer";
  EXPECT_EQ(late.session->end_of_ribs, 2u) << "End-of-RIB for both families";
}

// RPKI: a VRP change reaches every shard's OriginValidation stages, whose re-validation runs on
// the shards' threads while the set they share changes between UPDATEs; the import policy
// rejects the invalid routes and takes them back when they are valid again.
TEST(ShardedRouting, VrpChangesRevalidateInEveryShard) {
  policy::FilterSpec spec;
  spec.policies = {"rov"};
  auto rov = policy::Filter::FromText(
      "policy-statement rov { term invalid { from { rpki invalid; } then { reject; } } "
      "term rest { then { accept; } } }",
      policy::SourceLocation{"test", 1, 1}, spec);
  ASSERT_TRUE(rov.ok()) << rov.status();
  for (int threads : {1, 2}) {
    SCOPED_TRACE(absl::StrCat(threads, " threads"));
    policy::FilterSlot slot(*rov);
    rpki::OriginValidator vrps;
    ShardRouter r(threads, kLocalAs, {}, false, &vrps);
    ShardRouter::Peer& up = r.AddPeer("up", A("192.0.2.11"), 65011, true, &slot);
    ShardRouter::Peer& down = r.AddPeer("down", A("192.0.2.14"), 65014);
    r.Up(up);
    r.Up(down);
    UpdateMessage u = SpreadUpdate(r, 200, 7);
    up.listener->OnUpdate(u);
    r.Settle();
    ASSERT_EQ(down.session->held.size(), 200u);
    // Only AS 1 may originate 10.0.0.0/8 and its /24s: every route is invalid.
    const rpki::VrpDelta add{{rpki::Vrp{P("10.0.0.0/8"), 24, 1}}, {}};
    r.routing().VrpsChanging(add, [&] { vrps.Apply(add); });
    r.Settle();
    ASSERT_EQ(vrps.size(), 1u);
    r.routing().VrpsChanged();
    r.Settle();
    EXPECT_EQ(r.LocRib(net::Family::kIPv4).lines, 0u);
    EXPECT_EQ(down.session->held.size(), 0u);
    EXPECT_EQ(r.AdjRibIn(up, net::Family::kIPv4).lines, 200u) << "the Adj-RIB-In keeps them";
    const rpki::VrpDelta remove{{}, {rpki::Vrp{P("10.0.0.0/8"), 24, 1}}};
    r.routing().VrpsChanging(remove, [&] { vrps.Apply(remove); });
    r.Settle();
    ASSERT_EQ(vrps.size(), 0u);
    r.routing().VrpsChanged();
    r.Settle();
    EXPECT_EQ(down.session->held.size(), 200u);
  }
}

TEST(ShardedRouting, ThreadsAndPlumbing) {
  ShardRouter r(3, kLocalAs);
  EXPECT_EQ(r.routing().threads(), 3);
  ASSERT_NE(r.routing().sharded(), nullptr);
  EXPECT_EQ(r.routing().pipeline(net::Family::kIPv4), nullptr) << "no serial pipeline";
  ShardRouter::Peer& p = r.AddPeer("up", A("192.0.2.11"), 65011);
  r.Up(p);
  r.Settle();
  const std::string plumbing = r.routing().Describe();
  EXPECT_NE(plumbing.find("shard 0:"), std::string::npos) << plumbing;
  EXPECT_NE(plumbing.find("shard 2:"), std::string::npos) << plumbing;
  EXPECT_NE(plumbing.find("PeerOut(up)"), std::string::npos) << plumbing;
  EXPECT_EQ(p.session->end_of_ribs, 2u) << "End-of-RIB once per family, after every shard's dump";
  ShardRouter serial(1, kLocalAs);
  EXPECT_EQ(serial.routing().threads(), 1);
  EXPECT_EQ(serial.routing().sharded(), nullptr);
  ShardRouter single(1, kLocalAs, {}, /*shard_single_thread=*/true);
  EXPECT_EQ(single.routing().threads(), 1);
  EXPECT_NE(single.routing().sharded(), nullptr) << "one worker thread, not the serial pipeline";
  EXPECT_EQ(single.routing().pipeline(net::Family::kIPv4), nullptr);
  EXPECT_GE(RouterConfig::DefaultThreads(), 1);
}

// The parse pool takes only the cores that the event loop and the shards leave.
TEST(ShardTest, ParsePoolTakesTheCoresTheLoopAndShardsLeave) {
  EXPECT_EQ(RouterConfig::DefaultParseThreads(1, 64), 0) << "the serial pipeline decodes itself";
  EXPECT_EQ(RouterConfig::DefaultParseThreads(2, 2), 0);
  EXPECT_EQ(RouterConfig::DefaultParseThreads(4, 2), 0);
  EXPECT_EQ(RouterConfig::DefaultParseThreads(8, 8), 0);
  EXPECT_EQ(RouterConfig::DefaultParseThreads(2, 4), 1);
  EXPECT_EQ(RouterConfig::DefaultParseThreads(4, 8), 3);
  EXPECT_EQ(RouterConfig::DefaultParseThreads(2, 16), 2) << "at most one per shard";
}

// The encoding thread takes a core that the event loop and the shards leave.
TEST(ShardTest, EncodingThreadTakesACoreTheLoopAndShardsLeave) {
  EXPECT_FALSE(RouterConfig::DefaultEncodeThread(1, 64)) << "the serial pipeline encodes itself";
  EXPECT_FALSE(RouterConfig::DefaultEncodeThread(2, 2));
  EXPECT_FALSE(RouterConfig::DefaultEncodeThread(2, 3));
  EXPECT_FALSE(RouterConfig::DefaultEncodeThread(8, 8));
  EXPECT_TRUE(RouterConfig::DefaultEncodeThread(2, 4));
  EXPECT_TRUE(RouterConfig::DefaultEncodeThread(4, 8));
}

// A replace waiting for the loop keeps of the old route what PeerOut (its attribute set) and
// RibOut (its source) read; the loop gets it back with the new route's prefix and path id.
TEST(ShardTest, AReplaceKeepsWhatTheLoopsStagesReadOfTheOldRoute) {
  using Kept = stage::ShardOldRoute<BgpRoute>;
  AttributeStore store;
  PeerSource ibgp_peer;
  ibgp_peer.peer_id = 3;
  ibgp_peer.ibgp = true;
  PeerSource ebgp_peer;
  ebgp_peer.peer_id = 4;
  BgpRoute old_route;
  old_route.net = P("10.1.0.0/16");
  old_route.attrs = testing::Attr().Path({65001}).NextHop("192.0.2.1").In(store);
  old_route.source = &ibgp_peer;
  old_route.path_id = 7;
  BgpRoute new_route = old_route;
  new_route.attrs = testing::Attr().Path({65002}).NextHop("192.0.2.2").In(store);
  new_route.source = &ebgp_peer;
  const AttrRef old_attrs = old_route.attrs;
  stage::ShardOutput<BgpRoute> o;
  o.op = stage::ShardOutput<BgpRoute>::Op::kReplace;
  o.old = Kept::Keep(std::move(old_route));
  o.route = new_route;
  EXPECT_LT(sizeof(o), 2 * sizeof(BgpRoute)) << "an output holds less than two routes";

  const BgpRoute restored = Kept::Restore(std::move(o.old), o.route);
  EXPECT_EQ(restored.net, P("10.1.0.0/16"));
  EXPECT_EQ(restored.path_id, 7u);
  EXPECT_EQ(restored.source, &ibgp_peer) << "RibOut deletes from the old source's origin table";
  EXPECT_EQ(restored.attrs.get(), old_attrs.get()) << "PeerOut compares with the set sent before";
  EXPECT_EQ(old_attrs.use_count(), 2u) << "the kept set was moved, not copied";
}

}  // namespace
}  // namespace sluice::bgp
