// The whole pipeline through the BgpRouting facade with fake sessions: two upstream eBGP peers
// that are also downstream for each other, one downstream eBGP peer and one iBGP route-reflector
// client, a fake RIB; a CacheStage after every stage; randomized announcements, withdrawals,
// session flaps and blocked sessions; then a final-state oracle written independently of the
// pipeline's code: what each peer and the RIB must hold.
#include <gtest/gtest.h>

#include <random>

#include "bgp/stages/bgp_routing.h"
#include "tests/bgp/stages_fakes.h"
#include "tests/bgp/stages_test_util.h"
#include "tests/testing/golden.h"

namespace sluice::bgp {
namespace {

using testing::A;
using testing::A4;
using testing::Attr;
using testing::FakeRib;
using testing::FakeSession;
using testing::P;

constexpr uint32_t kLocalAs = 65000;

struct Peer {
  const char* name;
  const char* address;
  uint32_t as;
  const char* bgp_id;
  const char* local_v4;  // our address on the session
  const char* self_v6;   // our IPv6 nexthop towards it
  bool rr_client;
  std::unique_ptr<FakeSession> session = {};
  SessionListener* listener = nullptr;
  bool up = false;
  // The model of its Adj-RIB-In (what it announced to us on the current session).
  std::map<net::Prefix, AttrRef> adj_in = {};
  bool ibgp() const { return as == kLocalAs; }
};

class PipelineTest : public testing::StagesTest, public ::testing::WithParamInterface<uint32_t> {
 protected:
  void SetUp() override {
    RouterConfig rc;
    rc.local_as = kLocalAs;
    rc.router_id = A4("10.255.255.1");
    PipelineOptions po;
    po.consistency_checks = true;
    po.deletion_slice = 7;  // small slices: work interleaves with events
    po.dump_slice = 5;
    po.rib_out.batch = 16;
    po.rib_out.window = 2;
    rib_ = std::make_unique<FakeRib>(io_);
    routing_ =
        std::make_unique<BgpRouting>(io_, rc, RoutingServices{nullptr, rib_.get(), &store_}, po);
    peers_.push_back(
        Peer{"U1", "10.0.0.1", 65001, "1.1.1.1", "10.0.0.254", "2001:db8:1::fe", false});
    peers_.push_back(
        Peer{"U2", "10.0.0.2", 65002, "2.2.2.2", "10.0.0.253", "2001:db8:2::fe", false});
    peers_.push_back(
        Peer{"D1", "10.0.1.1", 65010, "3.3.3.3", "10.0.1.254", "2001:db8:3::fe", false});
    peers_.push_back(
        Peer{"D2", "10.0.2.1", kLocalAs, "4.4.4.4", "10.0.2.254", "2001:db8:4::fe", true});
    for (Peer& p : peers_) {
      SessionParams params;
      params.external = !p.ibgp();
      params.families.Add(kIPv6Unicast);
      p.session = std::make_unique<FakeSession>(&store_, params);
      p.session->up = false;
      RoutingPeerConfig c;
      c.name = p.name;
      c.address = A(p.address);
      c.peer_as = p.as;
      c.rr_client = p.rr_client;
      c.ebgp_requires_policy = false;
      c.nexthop_v6 = A(p.self_v6);
      auto l = routing_->AddPeer(c, p.session.get());
      ASSERT_TRUE(l.ok()) << l.status();
      p.listener = *l;
    }
  }
  void TearDown() override {
    routing_.reset();
    rib_.reset();
  }

  void Up(Peer& p) {
    EstablishedInfo info;
    info.params.external = !p.ibgp();
    info.params.families.Add(kIPv6Unicast);
    info.remote_as = p.as;
    info.remote_bgp_id = A4(p.bgp_id);
    info.remote_address = A(p.address);
    info.local_address = A(p.local_v4);
    info.route_refresh = true;
    p.session->up = true;
    p.up = true;
    p.listener->OnEstablished(info);
  }
  void Down(Peer& p) {
    p.session->Reset();
    p.up = false;
    p.adj_in.clear();
    p.listener->OnSessionDown("test");
  }
  void Announce(Peer& p, const std::vector<net::Prefix>& prefixes, const AttrRef& attrs) {
    UpdateMessage u;
    for (const net::Prefix& n : prefixes) {
      u.announced.push_back(Nlri{n, 0, Safi::kUnicast});
      p.adj_in[n] = attrs;
    }
    u.attributes = attrs;
    p.listener->OnUpdate(u);
  }
  void Withdraw(Peer& p, const net::Prefix& n) {
    UpdateMessage u;
    u.withdrawn.push_back(Nlri{n, 0, Safi::kUnicast});
    p.adj_in.erase(n);
    p.listener->OnUpdate(u);
  }

  // --- The oracle ------------------------------------------------------------------------------
  // The winner for `n` among the up peers' Adj-RIB-Ins: loops (our AS in the path) are dropped;
  // every candidate is eBGP from a different neighbour AS, so MED is never compared: shortest
  // path, then lowest origin, then lowest BGP identifier.
  const Peer* Winner(const net::Prefix& n, AttrRef* attrs) {
    const Peer* best = nullptr;
    for (const Peer& p : peers_) {
      auto it = p.adj_in.find(n);
      if (!p.up || it == p.adj_in.end() || it->second->as_path->Contains(kLocalAs)) continue;
      const PathAttributes& a = *it->second;
      if (best != nullptr) {
        const PathAttributes& b = **attrs;
        auto key = [](const PathAttributes& x, const Peer& q) {
          return std::make_tuple(x.as_path->PathLength(), static_cast<int>(*x.origin),
                                 A4(q.bgp_id));
        };
        if (!(key(a, p) < key(b, *best))) continue;
      }
      best = &p;
      *attrs = it->second;
    }
    return best;
  }
  std::optional<PathAttributes> Expected(const Peer& to, const net::Prefix& n) {
    AttrRef w;
    const Peer* from = Winner(n, &w);
    if (from == nullptr || from == &to) return std::nullopt;
    PathAttributes a = *w;
    if (to.ibgp()) {
      a.local_pref = 100;  // learnt from eBGP, sent to iBGP: LOCAL_PREF added
    } else {
      a.as_path = a.as_path->Prepended(kLocalAs);
      a.med.reset();  // learnt from another AS
      if (n.is_v4()) {
        a.next_hop = A4(to.local_v4);
      } else {
        a.mp_next_hop = MpNextHop{A(to.self_v6), std::nullopt};
      }
    }
    return a;
  }

  std::unique_ptr<FakeRib> rib_;
  std::unique_ptr<BgpRouting> routing_;
  std::vector<Peer> peers_;
};

TEST_P(PipelineTest, RandomizedAnnouncementsWithdrawalsAndFlapsEndInTheRightState) {
  std::mt19937 rng(GetParam());
  std::vector<net::Prefix> prefixes;
  for (uint32_t i = 0; i < 240; ++i)
    prefixes.push_back(net::Prefix(net::IPv4Address(0x0a000000 + (i << 8)), 24));
  for (uint32_t i = 0; i < 40; ++i) {
    prefixes.push_back(
        net::Prefix(net::IPv6Address(0x20010db800000000ull + (uint64_t{i} << 16), 0), 48));
  }
  // Attribute pools per upstream peer: path lengths 1-3, a loop through our AS, MED, origin.
  std::vector<std::vector<AttrRef>> pool4(2), pool6(2);
  for (int u = 0; u < 2; ++u) {
    const uint32_t as = peers_[u].as;
    std::vector<std::vector<uint32_t>> paths = {{as}, {as, 100}, {as, 100, 200}, {as, kLocalAs, 7}};
    for (const auto& path : paths) {
      for (int med = 0; med < 2; ++med) {
        for (Origin o : {Origin::kIgp, Origin::kIncomplete}) {
          PathAttributes a;
          a.origin = o;
          AsPath ap;
          ap.AppendSegment(SegmentType::kSequence, path);
          a.as_path = ap;
          if (med) a.med = 10;
          a.next_hop = A4(peers_[u].address);
          pool4[u].push_back(store_.Intern(a));
          a.next_hop.reset();
          a.mp_next_hop = MpNextHop{A(u == 0 ? "2001:db8:a::1" : "2001:db8:b::2"), std::nullopt};
          pool6[u].push_back(store_.Intern(a));
        }
      }
    }
  }
  for (Peer& p : peers_) Up(p);
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  int flaps = 0, blocks = 0, verifies = 0;
  for (int step = 0; step < 20000; ++step) {
    const int dice = static_cast<int>(pick(100));
    if (dice < 50) {
      Peer& p = peers_[pick(2)];
      if (!p.up) continue;
      const net::Prefix first = prefixes[pick(prefixes.size())];
      std::vector<net::Prefix> batch = {first};
      // Sometimes several prefixes of the family share the UPDATE.
      for (size_t k = pick(4); k > 0; --k) {
        const net::Prefix& n = prefixes[pick(prefixes.size())];
        if (n.family() == first.family()) batch.push_back(n);
      }
      const auto& pool = first.is_v4() ? pool4[&p - &peers_[0]] : pool6[&p - &peers_[0]];
      Announce(p, batch, pool[pick(pool.size())]);
    } else if (dice < 75) {
      Peer& p = peers_[pick(2)];
      if (p.up) Withdraw(p, prefixes[pick(prefixes.size())]);
    } else if (dice < 79) {
      Peer& p = peers_[pick(4)];
      if (p.up) {
        Down(p);
        ++flaps;
      } else {
        Up(p);
      }
    } else if (dice < 84) {
      Peer& p = peers_[pick(4)];
      if (p.session->backlog == 0) {
        p.session->backlog = 10 << 20;
        ++blocks;
      } else {
        p.session->backlog = 0;
        p.listener->OnWritable();
      }
    } else if (dice < 86) {
      // Every cache checks what it sent against a lookup upstream now, while readers lag,
      // dumps and deletions run.
      routing_->pipeline(net::Family::kIPv4)->VerifyCaches();
      routing_->pipeline(net::Family::kIPv6)->VerifyCaches();
      ++verifies;
    } else if (dice < 87) {
      Peer& p = peers_[pick(4)];
      if (p.up) p.listener->OnRouteRefresh(pick(2) ? kIPv4Unicast : kIPv6Unicast);
    } else {
      Poll(static_cast<int>(pick(6)));
    }
  }
  // A last burst with every peer up and two sessions blocked, then a downstream flap while the
  // fanout queue holds changes for it.
  for (Peer& p : peers_) {
    if (!p.up) Up(p);
  }
  peers_[2].session->backlog = 10 << 20;
  peers_[3].session->backlog = 10 << 20;
  for (int i = 0; i < 400; ++i) {
    Peer& p = peers_[pick(2)];
    const net::Prefix& n = prefixes[pick(prefixes.size())];
    const auto& pool = n.is_v4() ? pool4[&p - &peers_[0]] : pool6[&p - &peers_[0]];
    Announce(p, {n}, pool[pick(pool.size())]);
    if (i % 50 == 0) Poll(3);
  }
  Down(peers_[3]);
  Up(peers_[3]);
  Poll(10);
  for (Peer& p : peers_) {
    p.session->backlog = 0;
    p.listener->OnWritable();
  }
  RunLoop();
  EXPECT_GT(flaps, 20);
  EXPECT_GT(blocks, 20);
  EXPECT_GT(verifies, 20);

  for (net::Family f : {net::Family::kIPv4, net::Family::kIPv6}) {
    FamilyPipeline* pipe = routing_->pipeline(f);
    ASSERT_TRUE(pipe->violations().empty())
        << pipe->violations().size() << " violations, first: " << pipe->violations().front();
    EXPECT_EQ(pipe->VerifyCaches(), 0u);
  }
  size_t loc_rib = 0;
  for (const net::Prefix& n : prefixes) {
    AttrRef w;
    const Peer* winner = Winner(n, &w);
    // The Loc-RIB.
    std::optional<BgpRoute> got = routing_->pipeline(n.family())->decision()->lookup_route(n);
    ASSERT_EQ(got.has_value(), winner != nullptr) << n.ToString();
    if (winner != nullptr) {
      ++loc_rib;
      EXPECT_EQ(got->source->name, winner->name) << n.ToString();
      EXPECT_EQ(got->attrs, w) << n.ToString();
    }
    // Every peer's view.
    for (Peer& p : peers_) {
      std::optional<PathAttributes> want = Expected(p, n);
      auto it = p.session->held.find(n);
      ASSERT_EQ(it != p.session->held.end(), want.has_value())
          << p.name << " " << n.ToString() << (want ? " missing" : " should not be there");
      if (want) {
        EXPECT_EQ(it->second->ToString(), want->ToString()) << p.name << " " << n.ToString();
      }
    }
    // The RIB.
    auto r = rib_->routes.find(n);
    ASSERT_EQ(r != rib_->routes.end(), winner != nullptr) << "RIB " << n.ToString();
    if (winner != nullptr) {
      EXPECT_EQ(r->second.nexthop, *w->NextHopFor(n.family()));
    }
  }
  EXPECT_GT(loc_rib, 150u);
  for (Peer& p : peers_) {
    EXPECT_TRUE(p.session->errors.empty()) << p.name << ": " << p.session->errors.front();
    EXPECT_GE(p.session->end_of_ribs, 2u) << p.name << ": End-of-RIB per family";
  }
  EXPECT_TRUE(rib_->errors.empty()) << rib_->errors.front();
  EXPECT_LE(rib_->max_batch, 16u);
  EXPECT_LE(rib_->max_in_flight, 4u);  // two families, a window of 2 each
  // Only the permanent stages remain: dynamic ones are gone.
  for (const stage::StageBase* s : routing_->plumber().stages()) {
    EXPECT_FALSE(s->dynamic()) << s->name();
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, PipelineTest, ::testing::Values(1u, 2u, 20240607u));

}  // namespace
}  // namespace sluice::bgp
