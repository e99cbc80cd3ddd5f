// The Rib facade as the RPC adapter will use it: batches of routes from several protocols, the
// FIB that results, lookups, admin distances, connected routes from interface events,
// redistribution, interest registration, protocol death, FEA rebirth and profiling points.
#include "rib/rib.h"

#include <gtest/gtest.h>

#include <chrono>

#include "stage/route_arrival.h"
#include "tests/rib/rib_fixture.h"
#include "tests/rib/rib_test_util.h"
#include "tests/testing/golden.h"

namespace sluice::rib {
namespace {

using testing::A;
using testing::FakeFib;
using testing::In;
using testing::P;
using testing::PrefixesOf;
using testing::RibFixture;
using testing::Slash24s;

TEST(Rib, WinnersReachTheFib) {
  RibFixture f;
  f.rib->FeaBorn();
  f.Interfaces();
  const RouteInput statics[] = {In("192.168.0.0/16", "10.0.0.2"), In("0.0.0.0/0", "10.0.1.254")};
  ASSERT_TRUE(f.rib->AddRoutes("static", statics).ok());
  const RouteInput bgp[] = {In("203.0.113.0/24", "192.168.7.7"),  // via static, recursively
                            In("192.168.0.0/16", "10.0.1.9"),     // loses to static (1 < 20)
                            In("2001:db8:99::/48", "2001:db8:1::5")};
  auto result = f.rib->AddRoutes("ebgp", bgp);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->applied, 3u);
  f.Run();
  EXPECT_EQ(f.Fib(),
            "0.0.0.0/0 via 10.0.1.254 metric 0 static/1\n"
            "10.0.0.0/24 dev eth0 metric 0 connected/0\n"
            "10.0.1.0/24 dev eth1 metric 0 connected/0\n"
            "192.168.0.0/16 via 10.0.0.2 metric 0 static/1\n"
            "203.0.113.0/24 via 10.0.0.2 dev eth0 metric 0 ebgp/20\n"
            "2001:db8:1::/64 dev eth0 metric 0 connected/0\n"
            "2001:db8:99::/48 via 2001:db8:1::5 dev eth0 metric 0 ebgp/20\n");
  f.ExpectConsistent();
}

TEST(Rib, BadBatchesAreRefusedWhole) {
  RibFixture f;
  RouteInput bad[] = {In("10.0.0.0/8", "192.0.2.1"), In("10.1.0.0/16", "2001:db8::1")};
  auto r = f.rib->AddRoutes("static", bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "route #1 of the batch: route 10.1.0.0/16: nexthop 2001:db8::1 is not of the "
            "prefix's family; nothing applied");
  EXPECT_FALSE(f.rib->LookupPrefix(P("10.0.0.0/8")).has_value());

  RouteInput nowhere[] = {In("10.0.0.0/8", "", "")};
  EXPECT_EQ(f.rib->AddRoutes("static", nowhere).status().message(),
            "route #0 of the batch: route 10.0.0.0/8: needs a nexthop or an interface; nothing "
            "applied");
  RouteInput zero[] = {In("10.0.0.0/8", "0.0.0.0")};
  EXPECT_FALSE(f.rib->AddRoutes("static", zero).ok());
  RouteInput ok[] = {In("10.0.0.0/8", "192.0.2.1")};
  EXPECT_EQ(f.rib->AddRoutes("Static!", ok).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(f.rib->AddRoutes("connected", ok).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(f.rib->SetAdminDistance("static", 256).code(), absl::StatusCode::kInvalidArgument);

  // Replace and delete of absent routes: listed, the rest applied.
  ASSERT_TRUE(f.rib->AddRoutes("static", ok).ok());
  RouteInput repl[] = {In("10.0.0.0/8", "192.0.2.2"), In("10.9.0.0/16", "192.0.2.2")};
  auto rr = f.rib->ReplaceRoutes("static", repl);
  ASSERT_TRUE(rr.ok());
  EXPECT_EQ(rr->applied, 1u);
  EXPECT_EQ(rr->not_found, std::vector<net::Prefix>{P("10.9.0.0/16")});
  EXPECT_EQ(f.rib->LookupPrefix(P("10.0.0.0/8"))->nexthop, A("192.0.2.2"));
  const net::Prefix del[] = {P("10.0.0.0/8"), P("10.0.0.0/8")};
  auto dr = f.rib->DeleteRoutes("static", del);
  EXPECT_EQ(dr->applied, 1u);
  EXPECT_EQ(dr->not_found.size(), 1u);
  EXPECT_EQ(f.rib->DeleteRoutes("ospf", del)->not_found.size(), 2u);
  f.ExpectConsistent();
}

TEST(Rib, LookupsAndListing) {
  RibFixture f;
  const RouteInput routes[] = {In("10.0.0.0/8", "192.0.2.1"), In("10.1.0.0/16", "192.0.2.2"),
                               In("10.1.2.0/24", "192.0.2.3"), In("2001:db8::/32", "fe80::1", "e")};
  ASSERT_TRUE(f.rib->AddRoutes("static", routes).ok());
  EXPECT_EQ(f.rib->LookupDestination(A("10.1.2.3"))->network, P("10.1.2.0/24"));
  EXPECT_EQ(f.rib->LookupDestination(A("10.1.3.3"))->network, P("10.1.0.0/16"));
  EXPECT_EQ(f.rib->LookupDestination(A("10.200.0.1"))->network, P("10.0.0.0/8"));
  EXPECT_FALSE(f.rib->LookupDestination(A("11.0.0.1")).has_value());
  EXPECT_EQ(f.rib->LookupDestination(A("2001:db8::5"))->network, P("2001:db8::/32"));
  EXPECT_FALSE(f.rib->LookupPrefix(P("10.1.0.0/17")).has_value());

  auto page1 = f.rib->ListRoutes(net::Family::kIPv4, std::nullopt, 2);
  ASSERT_EQ(page1.size(), 2u);
  EXPECT_EQ(page1[1].network, P("10.1.0.0/16"));
  auto page2 = f.rib->ListRoutes(net::Family::kIPv4, page1.back().network, 2);
  ASSERT_EQ(page2.size(), 1u);
  EXPECT_EQ(page2[0].network, P("10.1.2.0/24"));
  EXPECT_EQ(f.rib->ListRoutes(net::Family::kIPv6, std::nullopt, 10).size(), 1u);

  // A losing protocol's routes are listed per protocol, not among the winners.
  const RouteInput rip[] = {In("10.0.0.0/8", "192.0.2.9")};
  ASSERT_TRUE(f.rib->AddRoutes("rip", rip).ok());
  EXPECT_EQ(f.rib->LookupPrefix(P("10.0.0.0/8"))->protocol.name(), "static");
  auto rips = f.rib->ListProtocolRoutes("rip", net::Family::kIPv4, std::nullopt, 10);
  ASSERT_TRUE(rips.ok());
  ASSERT_EQ(rips->size(), 1u);
  EXPECT_EQ((*rips)[0].ToString(), "10.0.0.0/8 rip/120 via 192.0.2.9 metric 0");
}

TEST(Rib, AdminDistances) {
  RibFixture f;
  f.rib->FeaBorn();
  EXPECT_EQ(*f.rib->GetAdminDistance("connected"), 0);
  EXPECT_EQ(*f.rib->GetAdminDistance("static"), 1);
  EXPECT_EQ(*f.rib->GetAdminDistance("ebgp"), 20);
  EXPECT_EQ(*f.rib->GetAdminDistance("ospf"), 110);
  EXPECT_EQ(*f.rib->GetAdminDistance("isis"), 115);
  EXPECT_EQ(*f.rib->GetAdminDistance("rip"), 120);
  EXPECT_EQ(*f.rib->GetAdminDistance("ibgp"), 200);
  EXPECT_EQ(*f.rib->GetAdminDistance("babel"), kUnknownProtocolAdminDistance);

  const RouteInput a[] = {In("10.0.0.0/8", "192.0.2.1", "eth0")};
  const RouteInput b[] = {In("10.0.0.0/8", "192.0.2.2", "eth0")};
  ASSERT_TRUE(f.rib->AddRoutes("ospf", a).ok());
  ASSERT_TRUE(f.rib->AddRoutes("rip", b).ok());
  f.Run();
  EXPECT_EQ(f.fib.fib.at(P("10.0.0.0/8")).protocol.name(), "ospf");
  ASSERT_TRUE(f.rib->SetAdminDistance("rip", 90).ok());
  EXPECT_EQ(*f.rib->GetAdminDistance("rip"), 90);
  f.Run();
  EXPECT_EQ(f.fib.fib.at(P("10.0.0.0/8")).ToString(),
            "10.0.0.0/8 via 192.0.2.2 dev eth0 metric 0 rip/90");
  // A declared protocol: an EGP with its own distance; its nexthops get resolved.
  ASSERT_TRUE(f.rib->DeclareProtocol("bgp-vpn", ProtocolClass::kEgp, 30).ok());
  const RouteInput v[] = {In("198.51.100.0/24", "10.1.1.1")};
  ASSERT_TRUE(f.rib->AddRoutes("bgp-vpn", v).ok());
  f.Run();
  EXPECT_EQ(f.fib.fib.at(P("198.51.100.0/24")).ToString(),
            "198.51.100.0/24 via 192.0.2.2 dev eth0 metric 0 bgp-vpn/30");
  EXPECT_EQ(f.rib->DeclareProtocol("bgp-vpn", ProtocolClass::kIgp).code(),
            absl::StatusCode::kFailedPrecondition);
  auto protocols = f.rib->Protocols();
  ASSERT_EQ(protocols.size(), 3u);
  EXPECT_EQ(protocols[0].name, "bgp-vpn");
  EXPECT_EQ(protocols[0].routes_v4, 1u);
  f.ExpectConsistent();
}

TEST(Rib, ConnectedRoutesFollowInterfaces) {
  RibFixture f;
  f.rib->FeaBorn();
  f.Interfaces();
  InterfaceEvents* ev = f.rib->interface_events();
  ev->OnInterfaceAdded("eth2", false);
  ev->OnAddressAdded("eth2", A("10.0.0.7"), 24);  // same subnet as eth0, interface down
  f.Run();
  EXPECT_EQ(f.fib.fib.at(P("10.0.0.0/24")).ifname.name(), "eth0");
  ev->OnInterfaceUp("eth0", false);  // the subnet moves to eth2 once it is up
  f.Run();
  EXPECT_FALSE(f.fib.fib.contains(P("10.0.0.0/24")));
  EXPECT_FALSE(f.fib.fib.contains(P("2001:db8:1::/64")));
  ev->OnInterfaceUp("eth2", true);
  f.Run();
  EXPECT_EQ(f.fib.fib.at(P("10.0.0.0/24")).ifname.name(), "eth2");
  ev->OnAddressAdded("eth1", A("10.0.1.1"), 23);  // the prefix length changes
  ev->OnAddressAdded("nope", A("10.9.9.9"), 24);  // unknown interface: ignored
  ev->OnAddressAdded("eth1", A("10.9.9.9"), 40);  // bad length: ignored
  f.Run();
  EXPECT_TRUE(f.fib.fib.contains(P("10.0.0.0/23")));
  EXPECT_FALSE(f.fib.fib.contains(P("10.0.1.0/24")));
  // The FEA restarts and reports only eth1: everything else goes.
  ev->OnSyncStart();
  ev->OnInterfaceAdded("eth1", true);
  ev->OnAddressAdded("eth1", A("10.0.1.1"), 23);
  ev->OnSyncDone();
  f.Run();
  EXPECT_EQ(f.Fib(), "10.0.0.0/23 dev eth1 metric 0 connected/0\n");
  f.ExpectConsistent();
}

TEST(Rib, ProtocolDeathWithdrawsItsRoutesAndFeaBirthResendsTheFib) {
  RibFixture f;
  f.rib->FeaBorn();
  f.Interfaces();
  const RouteInput statics[] = {In("192.168.0.0/16", "10.0.0.2"), In("172.16.0.0/12", "10.0.0.3")};
  const RouteInput ospf[] = {In("192.168.0.0/16", "10.0.1.2")};
  ASSERT_TRUE(f.rib->AddRoutes("static", statics).ok());
  ASSERT_TRUE(f.rib->AddRoutes("ospf", ospf).ok());
  f.Run();
  ASSERT_TRUE(f.rib->ProtocolDied("static").ok());
  EXPECT_EQ(f.rib->network(net::Family::kIPv4).deletion_stage_count(), 1u);
  f.Run();
  EXPECT_EQ(f.rib->network(net::Family::kIPv4).deletion_stage_count(), 0u);
  EXPECT_EQ(f.fib.fib.at(P("192.168.0.0/16")).protocol.name(), "ospf");
  EXPECT_FALSE(f.fib.fib.contains(P("172.16.0.0/12")));

  // The FEA dies and comes back empty: the whole FIB is sent again.
  const std::string before = f.Fib();
  f.rib->FeaDied();
  f.fib.Reset();
  f.rib->FeaBorn();
  f.Run();
  EXPECT_EQ(f.Fib(), before);
  EXPECT_EQ(f.rib->network(net::Family::kIPv4).fea_out(Rib::kDefaultFea)->stats().resyncs, 2u);
  f.ExpectConsistent();
}

TEST(Rib, NothingIsSentBeforeTheFeaIsBorn) {
  RibFixture f;
  const RouteInput routes[] = {In("10.0.0.0/8", "192.0.2.1", "eth0")};
  ASSERT_TRUE(f.rib->AddRoutes("static", routes).ok());
  f.Run();
  EXPECT_EQ(f.fib.batches, 0u);
  f.rib->FeaBorn();
  f.Run();
  EXPECT_EQ(f.fib.fib.size(), 1u);
}

TEST(Rib, BatchesArePipelinedInOrder) {
  RibFixture f(FeaOutOptions{.batch_size = 10, .max_in_flight = 3});
  f.fib.hold = true;
  f.rib->FeaBorn();
  f.Run();
  std::vector<RouteInput> routes;
  for (uint32_t i = 0; i < 95; ++i) {
    RouteInput r;
    r.network = net::Prefix(net::IPv4Address(0x0a000000u + (i << 8)), 24);
    r.nexthop = A("192.0.2.1");
    r.ifname = "eth0";
    routes.push_back(r);
  }
  ASSERT_TRUE(f.rib->AddRoutes("static", routes).ok());
  f.Run();
  EXPECT_EQ(f.fib.held.size(), 3u) << "at most max_in_flight batches outstanding";
  FeaOutStage* out = f.rib->network(net::Family::kIPv4).fea_out(Rib::kDefaultFea);
  EXPECT_EQ(out->queued(), 65u);
  while (!f.fib.held.empty()) {
    f.fib.Release();
    f.Run();
  }
  EXPECT_EQ(f.fib.fib.size(), 95u);
  EXPECT_EQ(f.fib.batches, 10u);
  EXPECT_EQ(f.fib.max_batch, 10u);
  EXPECT_EQ(f.fib.max_held, 3u);
  EXPECT_TRUE(out->idle());
  // A refused batch is counted; later ones go on.
  const net::Prefix gone[] = {P("10.0.0.0/24")};
  ASSERT_TRUE(f.rib->DeleteRoutes("static", gone).ok());
  f.Run();
  f.fib.Release(absl::InternalError("kernel says no"));
  f.Run();
  EXPECT_EQ(out->stats().batches_failed, 1u);
}

TEST(Rib, FeaBatchesCarryTheArrivalTheyWereMadeUnderAndFeaOutShowsItsDepth) {
  RibFixture f(FeaOutOptions{.batch_size = 10, .max_in_flight = 3});
  f.fib.hold = true;
  f.rib->FeaBorn();
  f.Run();
  {
    stage::ArrivalScope arrival(500);  // as the RIB service opens it for a batch from BGP
    ASSERT_TRUE(f.rib->AddRoutes("static", Slash24s(0, 15)).ok());
  }
  ASSERT_TRUE(f.rib->AddRoutes("static", Slash24s(15, 3)).ok());  // arrival unknown
  f.Run();
  ASSERT_EQ(f.fib.held.size(), 3u);
  EXPECT_EQ(f.fib.held[0].batch.arrival_ns, 500);
  EXPECT_EQ(f.fib.held[1].batch.arrival_ns, 500);
  EXPECT_EQ(f.fib.held[2].batch.arrival_ns, 0);
  FeaOutStage* out = f.rib->network(net::Family::kIPv4).fea_out(Rib::kDefaultFea);
  EXPECT_EQ(out->queue_depth(), 18u) << "sent and not answered";
  std::vector<stage::Plumber::QueueDepth> depths = f.rib->QueueDepths();
  ASSERT_FALSE(depths.empty());
  EXPECT_EQ(depths[0].kind, "FeaOut");
  while (!f.fib.held.empty()) {
    f.fib.Release();
    f.Run();
  }
  EXPECT_EQ(out->queue_depth(), 0u);
}

TEST(Rib, TheFibClientHearsWhenTheReSendHasHandedOverItsLastBatch) {
  RibFixture f(FeaOutOptions{.batch_size = 10, .max_in_flight = 2});
  const std::vector<RouteInput> routes = Slash24s(0, 45);
  ASSERT_TRUE(f.rib->AddRoutes("static", routes).ok());
  f.fib.hold = true;
  f.rib->FeaBorn();
  f.Run();
  // IPv6 has nothing to send: done at once. IPv4 has 5 batches, 2 in flight at a time.
  ASSERT_EQ(f.fib.full_push_done.size(), 1u);
  EXPECT_EQ(f.fib.full_push_done[0].rfind("ipv6 after", 0), 0u);
  while (!f.fib.held.empty()) {
    f.fib.Release();
    f.Run();
  }
  ASSERT_EQ(f.fib.full_push_done.size(), 2u);
  EXPECT_EQ(f.fib.full_push_done[1], "ipv4 after 5 batches");
  EXPECT_EQ(f.fib.fib.size(), 45u);
  // Live changes later do not repeat it; a new birth does.
  ASSERT_TRUE(f.rib->DeleteRoutes("static", std::vector<net::Prefix>{routes[0].network}).ok());
  f.fib.hold = false;
  f.Run();
  EXPECT_EQ(f.fib.full_push_done.size(), 2u);
  f.rib->FeaDied();
  f.fib.Reset();
  f.rib->FeaBorn();
  f.Run();
  EXPECT_EQ(f.fib.full_push_done.size(), 4u);
  EXPECT_EQ(f.fib.fib.size(), 44u);
}

// 40 static routes sent to a newly born FEA; the FeaOut stage of their family.
FeaOutStage* FibOf40Routes(RibFixture& f) {
  EXPECT_TRUE(f.rib->AddRoutes("static", Slash24s(0, 40)).ok());
  f.rib->FeaBorn();
  f.Run();
  return f.rib->network(net::Family::kIPv4).fea_out(Rib::kDefaultFea);
}

TEST(Rib, ALaggingFeaBoundsTheQueueAndGetsAFullPushOnceItHasCaughtUp) {
  RibFixture f(FeaOutOptions{.batch_size = 10, .max_in_flight = 2, .max_backlog = 50});
  FeaOutStage* out = FibOf40Routes(f);
  ASSERT_EQ(f.fib.fib.size(), 40u);

  // The FEA stops answering. 40 deletes and 100 new routes: 20 changes go out in 2 batches,
  // and the queue passes 50 with the 71st change.
  f.fib.hold = true;
  ASSERT_TRUE(f.rib->DeleteRoutes("static", PrefixesOf(Slash24s(0, 40))).ok());
  ASSERT_TRUE(f.rib->AddRoutes("static", Slash24s(100, 100)).ok());
  f.Run();
  EXPECT_EQ(f.fib.held.size(), 2u);
  EXPECT_TRUE(out->lagging());
  EXPECT_EQ(out->stats().lagged, 1u);
  EXPECT_LE(out->stats().peak_queued, 51u) << "the queue never holds more than the bound + 1";
  EXPECT_EQ(out->queued(), 0u) << "what was queued is dropped";
  EXPECT_FALSE(f.rib->Idle());
  ASSERT_TRUE(f.rib->AddRoutes("static", Slash24s(300, 5)).ok());  // not queued while lagging
  f.Run();
  EXPECT_EQ(out->queued(), 0u);
  EXPECT_EQ(f.fib.full_pushes_begun, 0u) << "not before the FEA has answered what it was sent";

  // It answers: a full push re-sends the 105 winners; the 20 old routes it still holds that
  // were not re-sent are swept.
  f.fib.hold = false;
  while (!f.fib.held.empty()) f.fib.Release();
  f.Run();
  EXPECT_EQ(f.fib.full_pushes_begun, 1u);
  EXPECT_FALSE(out->lagging());
  EXPECT_TRUE(f.rib->Idle());
  EXPECT_EQ(f.fib.fib.size(), 105u);
  EXPECT_FALSE(f.fib.fib.contains(P("10.0.0.0/24")));
  EXPECT_TRUE(f.fib.fib.contains(P("10.0.144.0/24")));
  EXPECT_EQ(f.fib.swept, 20u);
  f.ExpectConsistent();
  // Live changes flow again.
  ASSERT_TRUE(f.rib->DeleteRoutes("static", PrefixesOf(Slash24s(300, 5))).ok());
  f.Run();
  EXPECT_EQ(f.fib.fib.size(), 100u);
}

// A batch lost on the way to an FEA that is still up (the connection failed or timed out) may
// not have been applied: the RIB re-sends the whole FIB once the FEA has answered what was in
// flight, after a backoff, and the FEA removes what was not re-sent.
TEST(Rib, ALostBatchIsRepairedByAFullPushAfterABackoff) {
  RibFixture f(FeaOutOptions{.batch_size = 10, .max_in_flight = 2});
  FeaOutStage* out = FibOf40Routes(f);
  ASSERT_EQ(f.fib.fib.size(), 40u);

  // 20 deletions go out in 2 batches; the first is lost, the second applied.
  f.fib.hold = true;
  ASSERT_TRUE(f.rib->DeleteRoutes("static", PrefixesOf(Slash24s(0, 20))).ok());
  f.Run();
  ASSERT_EQ(f.fib.held.size(), 2u);
  f.fib.Lose();
  f.fib.Release();
  f.fib.hold = false;
  const auto lost_at = std::chrono::steady_clock::now();
  f.Run();  // runs the backoff's timer out
  EXPECT_GE(std::chrono::steady_clock::now() - lost_at, std::chrono::milliseconds(900));
  EXPECT_EQ(out->stats().lost, 1u);
  EXPECT_EQ(f.fib.full_pushes_begun, 1u);
  EXPECT_FALSE(out->lagging());
  EXPECT_EQ(f.fib.fib.size(), 20u) << "the lost deletions are swept by the full push";
  EXPECT_FALSE(f.fib.fib.contains(P("10.0.0.0/24")));
  f.ExpectConsistent();
}

TEST(Rib, WithoutABoundTheQueueFollowsTheChanges) {
  RibFixture f(FeaOutOptions{.batch_size = 10, .max_in_flight = 2, .max_backlog = 0});
  f.rib->FeaBorn();
  f.Run();
  f.fib.hold = true;
  ASSERT_TRUE(f.rib->AddRoutes("static", Slash24s(0, 200)).ok());
  f.Run();
  FeaOutStage* out = f.rib->network(net::Family::kIPv4).fea_out(Rib::kDefaultFea);
  EXPECT_FALSE(out->lagging());
  EXPECT_EQ(out->queued(), 180u);
  EXPECT_EQ(out->stats().peak_queued, 180u);
}

TEST(Rib, RedistributionStreamsOneProtocolsWinners) {
  RibFixture f;
  testing::RecordingSubscriber bgp;
  const RouteInput statics[] = {In("10.0.0.0/8", "192.0.2.1"), In("10.1.0.0/16", "192.0.2.1")};
  ASSERT_TRUE(f.rib->AddRoutes("static", statics).ok());
  const RouteInput ospf[] = {In("10.2.0.0/16", "192.0.2.1")};
  ASSERT_TRUE(f.rib->AddRoutes("ospf", ospf).ok());
  // Policy: routes under 10.1/16 are withheld; the rest get tag 7.
  ASSERT_TRUE(f.rib
                  ->RedistSubscribe(&bgp, net::Family::kIPv4, "static",
                                    [](const RibRoute& r) -> std::optional<RibRoute> {
                                      if (P("10.1.0.0/16").Contains(r.network)) return std::nullopt;
                                      RibRoute out = r;
                                      const uint32_t tag[] = {7};
                                      out.tags = TagSet::Of(tag);
                                      return out;
                                    })
                  .ok());
  EXPECT_EQ(f.rib->RedistSubscribe(&bgp, net::Family::kIPv4, "static").code(),
            absl::StatusCode::kAlreadyExists);
  f.Run();
  EXPECT_EQ(bgp.dumps_done, 1);
  // Changes after the dump: static routes added (10.2/16 now wins over ospf's), then static
  // withdraws 10.2/16 and ospf's route wins again: a delete; ospf's routes never appear.
  const RouteInput more[] = {In("10.3.0.0/16", "192.0.2.1"), In("10.2.0.0/16", "192.0.2.1")};
  ASSERT_TRUE(f.rib->AddRoutes("static", more).ok());
  const net::Prefix gone[] = {P("10.2.0.0/16")};
  ASSERT_TRUE(f.rib->DeleteRoutes("static", gone).ok());
  f.Run();
  EXPECT_EQ(bgp.log, (std::vector<std::string>{
                         "add 10.0.0.0/8 static/1 via 192.0.2.1 metric 0 tags 7", "dump done",
                         "add 10.3.0.0/16 static/1 via 192.0.2.1 metric 0 tags 7",
                         "add 10.2.0.0/16 static/1 via 192.0.2.1 metric 0 tags 7",
                         "delete 10.2.0.0/16 static/1 via 192.0.2.1 metric 0 tags 7"}));
  EXPECT_TRUE(bgp.errors.empty());
  ASSERT_TRUE(f.rib->RedistUnsubscribe(&bgp, net::Family::kIPv4, "static").ok());
  EXPECT_EQ(f.rib->RedistUnsubscribe(&bgp, net::Family::kIPv4, "static").code(),
            absl::StatusCode::kNotFound);
  const RouteInput again[] = {In("10.4.0.0/16", "192.0.2.1")};
  ASSERT_TRUE(f.rib->AddRoutes("static", again).ok());
  f.Run();
  EXPECT_EQ(bgp.log.size(), 5u) << "nothing after unsubscribing";
  f.ExpectConsistent();
}

// A dump long enough to take many slices, with changes arriving between the slices: the
// subscriber's stream stays consistent and ends at the winners.
TEST(Rib, RedistributionDumpInterleavedWithChanges) {
  RibFixture f;
  testing::RecordingSubscriber sub;
  sub.log_changes = false;
  auto route = [](uint32_t i, const char* via) {
    RouteInput r;
    r.network = net::Prefix(net::IPv4Address(0x0a000000u + (i << 8)), 24);
    r.nexthop = A(via);
    r.ifname = "eth0";
    return r;
  };
  std::vector<RouteInput> routes;
  for (uint32_t i = 0; i < 20000; ++i) routes.push_back(route(i, "192.0.2.1"));
  ASSERT_TRUE(f.rib->AddRoutes("static", routes).ok());
  ASSERT_TRUE(f.rib->RedistSubscribe(&sub, net::Family::kIPv4, "static").ok());
  uint32_t i = 0;
  int slices = 0;
  while (sub.dumps_done == 0) {
    // Each round of changes posts two deliveries; run three handlers so the queue drains.
    if (f.io.stopped()) f.io.restart();
    for (int k = 0; k < 3; ++k) f.io.run_one();
    ++slices;
    // Changes all over the table: before and after the dump's position.
    std::vector<RouteInput> change = {route(i % 20000, "192.0.2.2"),
                                      route((i * 7919 + 13) % 20000, "192.0.2.3"),
                                      route(20000 + i, "192.0.2.4")};
    ASSERT_TRUE(f.rib->AddRoutes("static", change).ok());
    const net::Prefix gone[] = {route((i * 104729 + 5) % 20000, "192.0.2.1").network};
    ASSERT_TRUE(f.rib->DeleteRoutes("static", gone).ok());
    i += 97;
  }
  EXPECT_GT(slices, 5);
  f.Run();
  for (const auto& e : sub.errors) ADD_FAILURE() << e;
  std::map<net::Prefix, RibRoute> want;
  for (const RibRoute& r : f.rib->ListRoutes(net::Family::kIPv4, std::nullopt, 1'000'000)) {
    want.emplace(r.network, r);
  }
  EXPECT_EQ(sub.routes.size(), want.size());
  EXPECT_TRUE(sub.routes == want);
  f.ExpectConsistent();
}

TEST(Rib, InterestRegistrationThroughTheFacade) {
  RibFixture f;
  testing::RecordingRegistrant bgp;
  f.Interfaces();
  InterestAnswer a = f.rib->RegisterInterest(&bgp, A("10.0.0.77"));
  EXPECT_TRUE(a.resolvable);
  EXPECT_EQ(a.valid_subnet, P("10.0.0.0/24"));
  EXPECT_FALSE(a.nexthop.has_value()) << "on-link";
  EXPECT_EQ(a.ifname.name(), "eth0");
  f.rib->interface_events()->OnAddressRemoved("eth0", A("10.0.0.1"));
  f.Run();
  EXPECT_EQ(bgp.events, std::vector<std::string>{"invalidated 10.0.0.0/24"});
  a = f.rib->RegisterInterest(&bgp, A("2001:db8:1::9"));
  EXPECT_EQ(a.valid_subnet, P("2001:db8:1::/64"));
  EXPECT_TRUE(f.rib->DeregisterInterest(&bgp, P("2001:db8:1::/64")).ok());
  EXPECT_EQ(f.rib->DeregisterInterest(&bgp, P("2001:db8:1::/64")).code(),
            absl::StatusCode::kNotFound);
}

TEST(Rib, ProfilingPoints) {
  stage::Profiler profiler;
  boost::asio::io_context io;
  FakeFib fib(io);
  RibOptions options;
  options.profiler = &profiler;
  Rib rib(io, &fib, options);
  rib.FeaBorn();
  for (const char* name : {"rib_route_in", "rib_queued_to_fea", "rib_sent_to_fea"}) {
    profiler.Find(name).value()->set_enabled(true);
  }
  const RouteInput routes[] = {In("10.0.0.0/8", "192.0.2.1", "eth0")};
  ASSERT_TRUE(rib.AddRoutes("static", routes).ok());
  io.run();
  EXPECT_EQ(profiler.Find("rib_route_in").value()->Entries().at(0).text, "add 10.0.0.0/8 static");
  EXPECT_EQ(profiler.Find("rib_queued_to_fea").value()->Entries().at(0).text, "add 10.0.0.0/8");
  EXPECT_EQ(profiler.Find("rib_sent_to_fea").value()->Entries().at(0).text, "add 10.0.0.0/8");
}

TEST(Rib, DescribeShowsThePlumbing) {
  boost::asio::io_context io;
  FakeFib fib(io);
  Rib rib(io, &fib);
  testing::RecordingSubscriber sub;
  const RouteInput statics[] = {In("10.0.0.0/8", "192.0.2.1", "eth0")};
  const RouteInput bgp[] = {In("203.0.113.0/24", "10.0.0.1")};
  ASSERT_TRUE(rib.AddRoutes("static", statics).ok());
  ASSERT_TRUE(rib.AddRoutes("ebgp", bgp).ok());
  ASSERT_TRUE(rib.RedistSubscribe(&sub, net::Family::kIPv4, "static").ok());
  ASSERT_TRUE(rib.ProtocolDied("ebgp").ok());  // a deletion stage, until the loop runs
  EXPECT_GOLDEN(rib.Describe(), "tests/rib/golden/describe.txt");
  io.run();
}

}  // namespace
}  // namespace sluice::rib
