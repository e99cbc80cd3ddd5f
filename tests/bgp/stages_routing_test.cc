// The BgpRouting facade: `show plumbing` (golden), peers and their counters, route reads by
// prefix, subtree and page for the Adj-RIB-In, the Loc-RIB and the Adj-RIB-Out, originated
// routes, RibOut's batches and window, a RIB that dies and is born again, peer removal, and the
// profiling points.
#include <gtest/gtest.h>

#include <set>

#include "bgp/stages/bgp_routing.h"
#include "stage/route_arrival.h"
#include "tests/bgp/stages_fakes.h"
#include "tests/bgp/stages_test_util.h"
#include "tests/testing/golden.h"

namespace sluice::bgp {
namespace {

using testing::A;
using testing::A4;
using testing::Attr;
using testing::P;

class RoutingTest : public testing::StagesTest {
 protected:
  void SetUp() override {
    rib_ = std::make_unique<testing::FakeRib>(io_);
    RouterConfig rc;
    rc.local_as = 65000;
    rc.router_id = A4("10.255.0.1");
    PipelineOptions po;
    po.rib_out.batch = 4;
    po.rib_out.window = 2;
    routing_ = std::make_unique<BgpRouting>(
        io_, rc, RoutingServices{nullptr, rib_.get(), &store_, &profiler_}, po);
    SessionParams params;
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
    d.families = AfiSafiSet();
    d.families.Add(kIPv4Unicast);
    down_l_ = *routing_->AddPeer(d, down_.get());
    Establish(up_l_, "192.0.2.2", 65001, "192.0.2.1");
    Establish(down_l_, "198.51.100.2", 65002, "198.51.100.1");
  }
  void TearDown() override {
    routing_.reset();
    RunLoop();
  }
  void Establish(SessionListener* l, const char* addr, uint32_t as, const char* local) {
    EstablishedInfo info;
    info.remote_address = A(addr);
    info.remote_as = as;
    info.remote_bgp_id = A4(addr);
    info.local_address = A(local);
    info.route_refresh = true;
    l->OnEstablished(info);
  }
  void Announce(std::vector<const char*> prefixes, const AttrRef& attrs) {
    UpdateMessage u;
    for (const char* p : prefixes) u.announced.push_back(Nlri{P(p), 0, Safi::kUnicast});
    u.attributes = attrs;
    up_l_->OnUpdate(u);
  }
  std::vector<std::string> Read(RouteQuery q) {
    auto r = routing_->ReadRoutes(q);
    EXPECT_TRUE(r.ok()) << r.status();
    std::vector<std::string> out;
    if (r.ok()) {
      for (const BgpRoute& route : *r) out.push_back(route.net.ToString());
    }
    return out;
  }

  stage::Profiler profiler_;
  std::unique_ptr<testing::FakeRib> rib_;
  std::unique_ptr<BgpRouting> routing_;
  std::unique_ptr<testing::FakeSession> up_, down_;
  SessionListener* up_l_ = nullptr;
  SessionListener* down_l_ = nullptr;
};

TEST_F(RoutingTest, ShowPlumbing) {
  RunLoop();  // the dumps finish and unplumb themselves
  EXPECT_GOLDEN(routing_->Describe(), "tests/bgp/golden/plumbing.txt");
}

// The UPDATEs of one read (BeginUpdates .. EndUpdates, as the session brackets what it decodes
// on the loop) are pushed once: the downstream peer gets nothing before EndUpdates, then their
// prefixes of one attribute set in one UPDATE. Without the brackets, one UPDATE each.
TEST_F(RoutingTest, TheUpdatesOfOneReadArePushedTogether) {
  RunLoop();
  const uint64_t before = down_->updates;
  AttrRef a = Attr().Path({65001, 7}).NextHop("192.0.2.2").In(store_);
  up_l_->BeginUpdates();
  Announce({"10.0.0.0/8"}, a);
  Announce({"10.1.0.0/16"}, a);
  Announce({"10.2.0.0/16"}, a);
  RunLoop();
  EXPECT_EQ(down_->updates, before) << "sent before the read ended";
  up_l_->EndUpdates();
  RunLoop();
  EXPECT_EQ(down_->updates, before + 1);
  EXPECT_EQ(down_->held.size(), 3u);
  Announce({"10.3.0.0/16"}, a);
  Announce({"10.4.0.0/16"}, a);
  RunLoop();
  EXPECT_EQ(down_->updates, before + 3);
  EXPECT_EQ(down_->held.size(), 5u);
  EXPECT_TRUE(down_->errors.empty());
}

TEST_F(RoutingTest, PeersRoutesAndTheRib) {
  AttrRef a = Attr().Path({65001, 7}).NextHop("192.0.2.2").In(store_);
  Announce({"10.0.0.0/8", "10.1.0.0/16", "10.1.2.0/24", "172.16.0.0/12", "192.0.2.0/24"}, a);
  UpdateMessage eor;
  eor.end_of_rib = kIPv4Unicast;
  up_l_->OnUpdate(eor);
  RunLoop();
  EXPECT_EQ(up_->last_prefix_count, 5u) << "accepted prefixes reported to the session";
  // Peers.
  auto up = routing_->Peer(A("192.0.2.2"));
  ASSERT_TRUE(up.ok());
  EXPECT_TRUE(up->established);
  ASSERT_EQ(up->families.size(), 2u);
  EXPECT_EQ(up->families[0].received, 5u);
  EXPECT_EQ(up->families[0].accepted, 5u);
  EXPECT_TRUE(up->families[0].end_of_rib_received);
  auto down = routing_->Peer(A("198.51.100.2"));
  ASSERT_TRUE(down.ok());
  ASSERT_EQ(down->families.size(), 1u);
  EXPECT_EQ(down->families[0].advertised, 5u);
  EXPECT_TRUE(down->families[0].end_of_rib_sent);
  EXPECT_EQ(routing_->Peers().size(), 2u);
  EXPECT_EQ(routing_->Peer(A("10.9.9.9")).status().code(), absl::StatusCode::kNotFound);
  // Reads.
  RouteQuery q;
  EXPECT_EQ(Read(q), (std::vector<std::string>{"10.0.0.0/8", "10.1.0.0/16", "10.1.2.0/24",
                                               "172.16.0.0/12", "192.0.2.0/24"}));
  q.within = P("10.0.0.0/8");
  EXPECT_EQ(Read(q), (std::vector<std::string>{"10.0.0.0/8", "10.1.0.0/16", "10.1.2.0/24"}));
  q.within.reset();
  q.max = 2;
  EXPECT_EQ(Read(q), (std::vector<std::string>{"10.0.0.0/8", "10.1.0.0/16"}));
  q.after = P("10.1.0.0/16");
  EXPECT_EQ(Read(q), (std::vector<std::string>{"10.1.2.0/24", "172.16.0.0/12"}));
  RouteQuery out;
  out.view = RibView::kAdjRibOut;
  out.peer = A("198.51.100.2");
  out.prefix = P("172.16.0.0/12");
  auto adv = routing_->ReadRoutes(out);
  ASSERT_TRUE(adv.ok());
  ASSERT_EQ(adv->size(), 1u);
  EXPECT_EQ((*adv)[0].attrs->as_path->ToString(), "65000 65001 7");
  RouteQuery in;
  in.view = RibView::kAdjRibIn;
  in.peer = A("192.0.2.2");
  EXPECT_EQ(Read(in).size(), 5u);
  in.peer.reset();
  EXPECT_EQ(routing_->ReadRoutes(in).status().code(), absl::StatusCode::kInvalidArgument);
  // The RIB: 5 routes in batches of at most 4, at most 2 in flight per family.
  EXPECT_EQ(rib_->routes.size(), 5u);
  EXPECT_LE(rib_->max_batch, 4u);
  // Originated routes reach the peers but not the RIB.
  PathAttributes o;
  o.next_hop = A4("192.0.2.1");
  ASSERT_TRUE(routing_->Originate(P("203.0.113.0/24"), o).ok());
  EXPECT_EQ(routing_->Originate(P("2001:db8::/32"), o).code(), absl::StatusCode::kInvalidArgument);
  RunLoop();
  EXPECT_EQ(down_->held.size(), 6u);
  EXPECT_EQ(down_->held[P("203.0.113.0/24")]->as_path->ToString(), "65000");
  EXPECT_EQ(rib_->routes.size(), 5u);
  ASSERT_TRUE(routing_->WithdrawOriginated(P("203.0.113.0/24")).ok());
  EXPECT_EQ(routing_->WithdrawOriginated(P("203.0.113.0/24")).code(), absl::StatusCode::kNotFound);
  // Route refresh towards the peer.
  EXPECT_TRUE(routing_->RequestRouteRefresh(A("192.0.2.2"), kIPv4Unicast).ok());
  EXPECT_EQ(up_->refresh_requests.size(), 1u);
  RunLoop();
  EXPECT_EQ(down_->held.size(), 5u);
  EXPECT_TRUE(rib_->errors.empty()) << rib_->errors.front();
  EXPECT_TRUE(down_->errors.empty()) << down_->errors.front();
}

TEST_F(RoutingTest, RibBornAgainGetsEveryRoute) {
  AttrRef a = Attr().Path({65001}).NextHop("192.0.2.2").In(store_);
  for (int i = 0; i < 10; ++i) {
    Announce({net::Prefix(net::IPv4Address(0x0a000000 + (i << 8)), 24).ToString().c_str()}, a);
  }
  RunLoop();
  EXPECT_EQ(rib_->routes.size(), 10u);
  // The RIB dies: the next batch fails, RibOut stops.
  rib_->fail = true;
  Announce({"10.0.100.0/24"}, a);
  RunLoop();
  FamilyPipeline* v4 = routing_->pipeline(net::Family::kIPv4);
  EXPECT_TRUE(v4->rib_out()->counters().failed);
  // A new RIB: empty, then it receives everything again.
  rib_->fail = false;
  rib_->routes.clear();
  routing_->OnRibBorn();
  RunLoop();
  EXPECT_EQ(rib_->routes.size(), 11u);
  EXPECT_FALSE(v4->rib_out()->counters().failed);
}

TEST_F(RoutingTest, RemovedPeerTakesItsRoutesAndStagesAway) {
  AttrRef a = Attr().Path({65001}).NextHop("192.0.2.2").In(store_);
  for (int i = 0; i < 2500; ++i) {
    Announce({net::Prefix(net::IPv4Address(0x0a000000 + (i << 8)), 24).ToString().c_str()}, a);
  }
  RunLoop();
  EXPECT_EQ(down_->held.size(), 2500u);
  const size_t stages = routing_->plumber().size();
  ASSERT_TRUE(routing_->RemovePeer(A("192.0.2.2")).ok());
  EXPECT_EQ(routing_->RemovePeer(A("192.0.2.2")).code(), absl::StatusCode::kNotFound);
  RunLoop();
  EXPECT_EQ(down_->held.size(), 0u);
  EXPECT_EQ(rib_->routes.size(), 0u);
  // Its input branches (PeerIn, ImportFilter, NexthopResolver per family) and its IPv4 output
  // branch (FanoutReader, ExportFilter, PeerOut; IPv6 was not negotiated) are gone.
  EXPECT_EQ(routing_->plumber().size(), stages - 9) << routing_->Describe();
}

// A stage such as the DampingStage plumbs in between ImportFilter and NexthopResolver without
// touching other stages: a stand-in linear stage plumbed there sees every route, and goes away
// with the peer.
TEST_F(RoutingTest, AStageCanBePlumbedAfterTheImportFilter) {
  FamilyPipeline* v4 = routing_->pipeline(net::Family::kIPv4);
  const uint32_t id = routing_->peer(A("192.0.2.2"))->settings().peer_id;
  auto* damping = routing_->plumber().Make<stage::CaptureStage<BgpRoute>>("v4 Damping(up)", false);
  stage::Plumber::InsertAfter<BgpRoute>(v4->import_filter(id), damping);
  Announce({"10.0.0.0/8"}, Attr().Path({65001}).NextHop("192.0.2.2").In(store_));
  RunLoop();
  EXPECT_EQ(damping->trace().size(), 1u);
  EXPECT_EQ(down_->held.size(), 1u);
  EXPECT_NE(routing_->Describe().find("v4 Damping(up) [Capture]"), std::string::npos);
  ASSERT_TRUE(routing_->RemovePeer(A("192.0.2.2")).ok());
  RunLoop();
  EXPECT_EQ(down_->held.size(), 0u);
  EXPECT_EQ(routing_->Describe().find("Damping"), std::string::npos);
}

TEST_F(RoutingTest, ProfilingPoints) {
  for (const char* name : {"bgp_route_in", "bgp_queued_to_rib", "bgp_sent_to_rib"}) {
    profiler_.Point(name)->set_enabled(true);
  }
  Announce({"10.0.0.0/8"}, Attr().Path({65001}).NextHop("192.0.2.2").In(store_));
  RunLoop();
  for (const char* name : {"bgp_route_in", "bgp_queued_to_rib", "bgp_sent_to_rib"}) {
    auto entries = profiler_.Point(name)->Entries();
    ASSERT_EQ(entries.size(), 1u) << name;
    EXPECT_NE(entries[0].text.find("10.0.0.0/8"), std::string::npos) << name;
  }
}

TEST_F(RoutingTest, TheRibGetsEachRoutesArrivalAndTheQueuesTheirDepth) {
  RunLoop();  // the RIB branch's initial dump is done (what a dump sends has no arrival)
  {
    stage::ArrivalScope arrival(12345);  // as the session opens it for an UPDATE
    Announce({"10.0.0.0/8", "10.1.0.0/16"}, Attr().Path({65001}).NextHop("192.0.2.2").In(store_));
  }
  Announce({"10.2.0.0/16"}, Attr().Path({65001, 9}).NextHop("192.0.2.2").In(store_));
  RunLoop();
  ASSERT_EQ(rib_->routes.count(P("10.1.0.0/16")), 1u);
  EXPECT_EQ(rib_->routes[P("10.0.0.0/8")].arrival_ns, 12345);
  EXPECT_EQ(rib_->routes[P("10.1.0.0/16")].arrival_ns, 12345);
  EXPECT_EQ(rib_->routes[P("10.2.0.0/16")].arrival_ns, 0) << "outside a scope: unknown";
  std::set<std::string> kinds;
  for (const stage::Plumber::QueueDepth& q : routing_->QueueDepths()) {
    kinds.insert(q.kind);
    EXPECT_EQ(q.queued, 0u) << q.stage << " once everything is sent";
  }
  for (const char* kind : {"Fanout", "FanoutReader", "RibOut", "PeerOut"}) {
    EXPECT_TRUE(kinds.contains(kind)) << kind;
  }
}

}  // namespace
}  // namespace sluice::bgp
