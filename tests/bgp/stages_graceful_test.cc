// Graceful restart, receiving speaker (RFC 4724 §4.2, RFC 8538 §4), through the BgpRouting facade
// with fake sessions and a fake RIB, serial and sharded: an upstream peer that restarts keeps its
// routes in the Loc-RIB, in the RIB and towards a downstream peer — nothing withdrawn — until its
// End-of-RIB, which withdraws only what it did not send again; F = 0, no capability, a hard end
// of the session, removal and the two timers flush.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>

#include "bgp/stages/bgp_routing.h"
#include "tests/bgp/stages_fakes.h"
#include "tests/bgp/stages_test_util.h"

namespace sluice::bgp {
namespace {

using testing::A;
using testing::A4;
using testing::Attr;
using testing::P;

class GracefulTest : public testing::StagesTest, public ::testing::WithParamInterface<int> {
 protected:
  void SetUp() override {
    rib_ = std::make_unique<testing::FakeRib>(io_);
    RouterConfig rc;
    rc.local_as = 65000;
    rc.router_id = A4("10.255.0.1");
    rc.threads = GetParam();
    rc.stale_routes_time_s = 1;
    PipelineOptions po;
    po.consistency_checks = GetParam() == 1;
    po.deletion_slice = 2;
    po.peer_out.end_of_rib_gate = &gate_;
    po.rib_out.gate = &gate_;
    routing_ =
        std::make_unique<BgpRouting>(io_, rc, RoutingServices{nullptr, rib_.get(), &store_}, po);
    SessionParams params;
    params.families.Add(kIPv6Unicast);
    up_ = std::make_unique<testing::FakeSession>(&store_, params);
    down_ = std::make_unique<testing::FakeSession>(&store_, params);
    RoutingPeerConfig u;
    u.name = "up";
    u.address = A("192.0.2.2");
    u.peer_as = 65001;
    u.ebgp_requires_policy = false;
    up_l_ = *routing_->AddPeer(u, up_.get());
    RoutingPeerConfig d = u;
    d.name = "down";
    d.address = A("198.51.100.2");
    d.peer_as = 65002;
    down_l_ = *routing_->AddPeer(d, down_.get());
    Establish(down_l_, "198.51.100.2", 65002, "198.51.100.1", std::nullopt);
  }
  void TearDown() override {
    if (routing_->pipeline(net::Family::kIPv4) != nullptr) {
      EXPECT_TRUE(routing_->pipeline(net::Family::kIPv4)->violations().empty());
    }
    EXPECT_TRUE(rib_->errors.empty()) << rib_->errors[0];
    EXPECT_TRUE(down_->errors.empty()) << down_->errors[0];
    routing_.reset();
    RunLoop();
  }

  static GracefulRestart Gr(bool f4, bool f6, uint16_t restart_time = 120) {
    GracefulRestart gr;
    gr.notification = true;
    gr.restart_time = restart_time;
    gr.families.push_back({kIPv4Unicast, f4});
    gr.families.push_back({kIPv6Unicast, f6});
    return gr;
  }
  void Establish(SessionListener* l, const char* addr, uint32_t as, const char* local,
                 std::optional<GracefulRestart> gr) {
    EstablishedInfo info;
    info.params.families.Add(kIPv6Unicast);
    info.remote_address = A(addr);
    info.remote_as = as;
    info.remote_bgp_id = A4(addr);
    info.local_address = A(local);
    info.route_refresh = true;
    info.graceful_restart = gr;
    l->OnEstablished(info);
  }
  void UpEstablished(std::optional<GracefulRestart> gr) {
    up_->up = true;
    Establish(up_l_, "192.0.2.2", 65001, "192.0.2.1", gr);
  }
  void Announce(std::vector<const char*> prefixes, const AttrRef& attrs) {
    UpdateMessage u;
    for (const char* p : prefixes) u.announced.push_back(Nlri{P(p), 0, Safi::kUnicast});
    u.attributes = attrs;
    up_l_->OnUpdate(u);
  }
  void EndOfRib(AfiSafi f) {
    UpdateMessage u;
    u.end_of_rib = f;
    up_l_->OnUpdate(u);
  }
  // The upstream's table: three IPv4 routes and one IPv6 route, then End-of-RIB.
  void Load() {
    UpEstablished(Gr(true, true));
    Announce({"203.0.113.0/24", "203.0.114.0/24", "203.0.115.0/24"}, a4_);
    Announce({"2001:db8:100::/48"}, a6_);
    EndOfRib(kIPv4Unicast);
    EndOfRib(kIPv6Unicast);
    routing_->Settle();
    ASSERT_EQ(rib_->routes.size(), 4u);
    ASSERT_EQ(down_->held.size(), 4u);
  }
  void GracefulDown() {
    up_->Reset();
    up_l_->OnSessionDownGraceful("connection lost");
    routing_->Settle();
  }
  size_t Stale(net::Family f) {
    auto s = routing_->Peer(A("192.0.2.2"));
    size_t n = 0;
    for (const auto& fam : s->families) {
      if ((fam.family == kIPv6Unicast) == (f == net::Family::kIPv6)) n += fam.stale;
    }
    return n;
  }
  size_t LocRib(net::Family f) {
    RouteQuery q;
    q.family = f;
    auto r = routing_->ReadRoutes(q);
    return r.ok() ? r->size() : 0;
  }
  // Runs the loop (timers included) until `done`, at most 30 s.
  void RunUntil(const std::function<bool()>& done) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!done() && std::chrono::steady_clock::now() < give_up) {
      io_.restart();
      io_.run_for(std::chrono::milliseconds(50));
      routing_->Settle();
    }
  }

  EndOfRibGate gate_;  // outlives the routing side's PeerOut stages
  std::unique_ptr<testing::FakeRib> rib_;
  std::unique_ptr<BgpRouting> routing_;
  std::unique_ptr<testing::FakeSession> up_, down_;
  SessionListener* up_l_ = nullptr;
  SessionListener* down_l_ = nullptr;
  AttrRef a4_ = Attr().Path({65001}).NextHop("192.0.2.2").In(store_);
  AttrRef a4b_ = Attr().Path({65001, 9}).NextHop("192.0.2.2").In(store_);
  AttrRef a6_ = Attr().Path({65001}).NextHop("2001:db8::2").In(store_);
};

// The peer goes away and comes back with F set, re-sends two of its three IPv4 routes (one with
// new attributes) and ends with End-of-RIB: only the third is withdrawn, once, and only then; the
// IPv6 route waits for the IPv6 End-of-RIB.
TEST_P(GracefulTest, StaleRoutesStayUntilEndOfRib) {
  Load();
  GracefulDown();
  EXPECT_EQ(rib_->routes.size(), 4u);
  EXPECT_TRUE(rib_->deleted.empty());
  EXPECT_EQ(down_->withdrawn, 0u);
  EXPECT_EQ(LocRib(net::Family::kIPv4), 3u);
  EXPECT_EQ(Stale(net::Family::kIPv4), 3u);
  EXPECT_EQ(Stale(net::Family::kIPv6), 1u);
  EXPECT_TRUE(routing_->peer(A("192.0.2.2"))->graceful().waiting_for_peer());

  UpEstablished(Gr(true, true));
  Announce({"203.0.113.0/24"}, a4_);
  Announce({"203.0.114.0/24"}, a4b_);
  routing_->Settle();
  EXPECT_TRUE(rib_->deleted.empty());
  EXPECT_EQ(down_->withdrawn, 0u);
  EXPECT_EQ(rib_->routes.size(), 4u);
  EXPECT_EQ(Stale(net::Family::kIPv4), 1u);
  // The new attributes reached the downstream peer (our AS prepended: 65000 65001 9).
  EXPECT_EQ(down_->held[P("203.0.114.0/24")]->as_path->PathLength(), 3u);

  EndOfRib(kIPv4Unicast);
  routing_->Settle();
  EXPECT_EQ(rib_->deleted, std::vector<net::Prefix>{P("203.0.115.0/24")});
  EXPECT_EQ(down_->withdrawn, 1u);
  EXPECT_FALSE(down_->held.contains(P("203.0.115.0/24")));
  EXPECT_EQ(rib_->routes.size(), 3u);
  EXPECT_EQ(Stale(net::Family::kIPv4), 0u);
  EXPECT_EQ(Stale(net::Family::kIPv6), 1u);

  EndOfRib(kIPv6Unicast);
  routing_->Settle();
  EXPECT_EQ(rib_->routes.size(), 2u);
  EXPECT_FALSE(rib_->routes.contains(P("2001:db8:100::/48")));
  EXPECT_FALSE(routing_->peer(A("192.0.2.2"))->graceful().helping());
}

// RFC 4724 §4.2: back with F = 0 for IPv4: its IPv4 routes go at once; IPv6 (F = 1) stays.
TEST_P(GracefulTest, ForwardingNotPreservedFlushesTheFamily) {
  Load();
  GracefulDown();
  UpEstablished(Gr(false, true));
  routing_->Settle();
  EXPECT_EQ(rib_->routes.size(), 1u);
  EXPECT_TRUE(rib_->routes.contains(P("2001:db8:100::/48")));
  EXPECT_EQ(down_->withdrawn, 3u);
  EXPECT_EQ(Stale(net::Family::kIPv6), 1u);
}

// Back without the capability at all: everything stale goes at once.
TEST_P(GracefulTest, NoCapabilityOnReturnFlushesEverything) {
  Load();
  GracefulDown();
  UpEstablished(std::nullopt);
  routing_->Settle();
  EXPECT_TRUE(rib_->routes.empty());
  EXPECT_EQ(down_->withdrawn, 4u);
}

// A session end that is not graceful (Hard Reset, no capability) withdraws at once.
TEST_P(GracefulTest, HardEndWithdrawsAtOnce) {
  Load();
  up_->Reset();
  up_l_->OnSessionDown("Hard Reset");
  routing_->Settle();
  EXPECT_TRUE(rib_->routes.empty());
  EXPECT_EQ(down_->withdrawn, 4u);
}

// Stale routes, then the next session ends without graceful restart: they go too.
TEST_P(GracefulTest, HardEndWhileStaleFlushes) {
  Load();
  GracefulDown();
  UpEstablished(Gr(true, true));
  Announce({"203.0.113.0/24"}, a4_);
  up_->Reset();
  up_l_->OnSessionDown("Hard Reset");
  routing_->Settle();
  EXPECT_TRUE(rib_->routes.empty());
  EXPECT_FALSE(routing_->peer(A("192.0.2.2"))->graceful().helping());
}

// Removing a peer that holds stale routes withdraws them (and does not wait for a timer).
TEST_P(GracefulTest, RemovedPeerLosesItsStaleRoutes) {
  Load();
  GracefulDown();
  ASSERT_TRUE(routing_->RemovePeer(A("192.0.2.2")).ok());
  routing_->Settle();
  EXPECT_TRUE(rib_->routes.empty());
  EXPECT_EQ(down_->withdrawn, 4u);
}

// The peer does not come back within its restart time: everything is withdrawn.
TEST_P(GracefulTest, RestartTimeExpires) {
  UpEstablished(Gr(true, true, 1));
  Announce({"203.0.113.0/24", "203.0.114.0/24"}, a4_);
  routing_->Settle();
  GracefulDown();
  EXPECT_EQ(rib_->routes.size(), 2u);
  RunUntil([&] { return rib_->routes.empty(); });
  EXPECT_TRUE(rib_->routes.empty());
  EXPECT_EQ(down_->withdrawn, 2u);
}

// Back with F = 1 but no End-of-RIB within stale-routes-time (1 s here): the stale routes go, the
// ones sent again stay.
TEST_P(GracefulTest, StaleRoutesTimeExpires) {
  Load();
  GracefulDown();
  UpEstablished(Gr(true, true));
  Announce({"203.0.113.0/24"}, a4_);
  routing_->Settle();
  RunUntil([&] { return rib_->routes.size() == 1; });
  EXPECT_EQ(rib_->routes.size(), 1u);
  EXPECT_TRUE(rib_->routes.contains(P("203.0.113.0/24")));
  EXPECT_EQ(down_->withdrawn, 3u);
}

// A family the peer's capability does not list is not kept.
TEST_P(GracefulTest, FamilyOutsideTheCapabilityIsNotKept) {
  GracefulRestart v4only = Gr(true, true);
  v4only.families.pop_back();
  UpEstablished(v4only);
  Announce({"203.0.113.0/24"}, a4_);
  Announce({"2001:db8:100::/48"}, a6_);
  routing_->Settle();
  GracefulDown();
  EXPECT_EQ(rib_->routes.size(), 1u);
  EXPECT_TRUE(rib_->routes.contains(P("203.0.113.0/24")));
}

// Restarting speaker (RFC 4724 §4.1): while the gate is closed, selection is deferred — no
// change leaves the Loc-RIB, neither to the RIB nor to any peer, and no End-of-RIB goes out; a
// peer that restarts itself (R bit) is no exception: an early End-of-RIB would make it sweep the
// routes it keeps for us (FRR sets the R bit for its first restart time after it starts). When
// the gate opens, every peer and the RIB get the final routes, then End-of-RIB.
TEST_P(GracefulTest, SelectionWaitsForTheRestartGate) {
  UpEstablished(Gr(true, true));
  Announce({"203.0.113.0/24"}, a4_);
  routing_->Settle();
  ASSERT_TRUE(rib_->routes.contains(P("203.0.113.0/24")));
  gate_.Close();
  Announce({"192.0.2.0/24"}, a4_);
  SessionParams params;
  params.families.Add(kIPv6Unicast);
  auto late = std::make_unique<testing::FakeSession>(&store_, params);
  auto restarting = std::make_unique<testing::FakeSession>(&store_, params);
  RoutingPeerConfig c;
  c.name = "late";
  c.address = A("198.51.100.3");
  c.peer_as = 65003;
  c.ebgp_requires_policy = false;
  SessionListener* late_l = *routing_->AddPeer(c, late.get());
  c.name = "restarting";
  c.address = A("198.51.100.4");
  c.peer_as = 65004;
  SessionListener* restarting_l = *routing_->AddPeer(c, restarting.get());
  Establish(late_l, "198.51.100.3", 65003, "198.51.100.1", Gr(true, true));
  GracefulRestart r = Gr(true, true);
  r.restart_state = true;
  Establish(restarting_l, "198.51.100.4", 65004, "198.51.100.1", r);
  routing_->Settle();
  EXPECT_FALSE(rib_->routes.contains(P("192.0.2.0/24")));  // the RIB waits
  EXPECT_EQ(late->held.size(), 0u);                        // so do the peers
  EXPECT_EQ(late->end_of_ribs, 0u);
  EXPECT_EQ(restarting->held.size(), 0u);
  EXPECT_EQ(restarting->end_of_ribs, 0u);
  gate_.Open();
  routing_->Settle();
  EXPECT_TRUE(rib_->routes.contains(P("192.0.2.0/24")));
  EXPECT_EQ(late->held.size(), 2u);
  EXPECT_EQ(late->end_of_ribs, 2u);
  EXPECT_EQ(restarting->held.size(), 2u);
  EXPECT_EQ(restarting->end_of_ribs, 2u);
  ASSERT_TRUE(routing_->RemovePeer(A("198.51.100.3")).ok());
  ASSERT_TRUE(routing_->RemovePeer(A("198.51.100.4")).ok());
  routing_->Settle();
}

INSTANTIATE_TEST_SUITE_P(Threads, GracefulTest, ::testing::Values(1, 2),
                         [](const auto& info) { return "threads" + std::to_string(info.param); });

}  // namespace
}  // namespace sluice::bgp
