// DeletionStage: a dead protocol's routes withdrawn in background slices while the protocol
// comes back and re-sends some of them (XORP NSDI'05 §5.1.2).
#include "rib/deletion_stage.h"

#include <gtest/gtest.h>

#include <map>

#include "rib/rib.h"
#include "tests/rib/stage_fixture.h"
#include "tests/testing/golden.h"

namespace sluice::rib {
namespace {

using testing::A;
using testing::In;
using testing::P;
using testing::StageFixture;

TEST(DeletionStage, WithdrawsInSlicesAndHandsPrefixesBackOnReAdd) {
  StageFixture f;
  auto* ospf = f.Origin("ospf", ProtocolClass::kIgp, 110);
  auto* cache = f.Cache("cache");
  auto* capture = f.plumber.Make<stage::CaptureStage<RibRoute>>("capture", false);
  stage::Plumber::Plumb<RibRoute>(ospf, cache);
  stage::Plumber::Plumb<RibRoute>(cache, capture);
  for (const char* p : {"10.0.0.0/8", "10.1.0.0/16", "10.2.0.0/16", "192.0.2.0/24"}) {
    StageFixture::Add(ospf, p, "10.255.0.1", "eth0");
  }
  capture->Note("ospf dies: its table goes to a deletion stage");
  bool done = false;
  auto* deletion = f.plumber.Make<DeletionStage>("deletion", ospf->HandOver(), ospf->protocol(),
                                                 ospf->protocol_class(), ospf->admin_distance(),
                                                 &f.nexthops, f.io, [&](DeletionStage* d) {
                                                   done = true;
                                                   f.plumber.SpliceOut<RibRoute>(d);
                                                 });
  stage::Plumber::InsertAfter<RibRoute>(ospf, deletion);
  deletion->Start();
  EXPECT_EQ(ospf->route_count(), 0u);
  EXPECT_EQ(capture->lookup_route(P("10.1.0.0/16"))->nexthop, A("10.255.0.1"));
  capture->Note("ospf comes back and re-sends 10.1.0.0/16 with another nexthop");
  StageFixture::Add(ospf, "10.1.0.0/16", "10.255.0.2", "eth0");
  EXPECT_EQ(deletion->remaining(), 3u);
  capture->Note("and sends a new route");
  StageFixture::Add(ospf, "10.3.0.0/16", "10.255.0.2", "eth0");
  capture->Note("the background slices run");
  f.Run();
  EXPECT_TRUE(done);
  EXPECT_EQ(ospf->downstream(), cache) << "spliced out";
  f.ExpectConsistent();
  EXPECT_GOLDEN(capture->Text(), "tests/rib/golden/deletion.trace");
}

// 100,000 ebgp routes; the protocol dies, comes back and re-sends every third route while the
// deletion runs, dies again mid-way (two deletion stages) and re-sends some more. A CacheStage
// after every stage checks consistency throughout; the final FIB is exactly the routes last
// sent since the second death, plus the ospf routes they no longer hide.
TEST(DeletionStage, HundredThousandRoutesDieWhileTheProtocolComesBack) {
  boost::asio::io_context io;
  testing::FakeFib fib(io);
  std::vector<std::string> violations;
  RibOptions options;
  options.insert_cache_stages = true;
  options.on_violation = [&](const std::string& v) {
    if (violations.size() < 10) violations.push_back(v);
  };
  Rib rib(io, &fib, options);
  rib.FeaBorn();
  rib.interface_events()->OnInterfaceAdded("eth0", true);
  rib.interface_events()->OnAddressAdded("eth0", A("10.0.0.1"), 16);
  auto run = [&] {
    io.run();
    io.restart();
  };

  constexpr uint32_t kRoutes = 100'000;
  auto prefix = [](uint32_t i) {
    return net::Prefix(net::IPv4Address(0x64000000u + (i << 8)), 24);
  };
  auto route = [&](uint32_t i, const char* via) {
    RouteInput r;
    r.network = prefix(i);
    r.nexthop = A(via);
    return r;
  };
  auto send = [&](uint32_t from, uint32_t to, uint32_t step, const char* via) {
    std::vector<RouteInput> batch;
    for (uint32_t i = from; i < to; i += step) {
      batch.push_back(route(i, via));
      if (batch.size() == 1000) {
        ASSERT_TRUE(rib.AddRoutes("ebgp", batch).ok());
        batch.clear();
      }
    }
    ASSERT_TRUE(rib.AddRoutes("ebgp", batch).ok());
  };
  send(0, kRoutes, 1, "10.0.0.2");
  // ospf routes (AD 110) that ebgp's hide, and that win again when ebgp's go.
  std::vector<RouteInput> ospf;
  for (uint32_t i = 5; i < kRoutes; i += 10) {
    RouteInput r;
    r.network = prefix(i);
    r.nexthop = A("10.0.0.3");
    ospf.push_back(r);
  }
  ASSERT_TRUE(rib.AddRoutes("ospf", ospf).ok());
  run();
  ASSERT_EQ(fib.fib.size(), kRoutes + 1);

  ASSERT_TRUE(rib.ProtocolDied("ebgp").ok());
  RibNetwork& net = rib.network(net::Family::kIPv4);
  ASSERT_EQ(net.deletion_stage_count(), 1u);
  // Re-send every third route, a slice of the loop at a time.
  uint32_t next = 0;
  int slices = 0;
  bool died_again = false;
  while (net.deletion_stage_count() > 0) {
    io.run_one();
    ++slices;
    if (next < kRoutes) {
      send(next, std::min(kRoutes, next + 3000), 3, "10.0.0.4");
      next += 3000;
    }
    if (!died_again && next >= kRoutes / 2) {
      died_again = true;
      ASSERT_TRUE(rib.ProtocolDied("ebgp").ok());
      EXPECT_EQ(net.deletion_stage_count(), 2u);
      // What was re-sent so far goes too; the re-sending starts again from 0.
      next = 0;
    }
  }
  EXPECT_TRUE(died_again);
  EXPECT_GT(slices, 10);
  run();
  ASSERT_TRUE(rib.Idle());

  // The protocol finishes re-sending (the deletions may have ended before it did). Expected:
  // ebgp for i % 3 == 0, else ospf where it has a route, and the connected subnet.
  send(next, kRoutes, 3, "10.0.0.4");
  run();
  std::map<net::Prefix, std::string> want;
  for (uint32_t i = 0; i < kRoutes; ++i) {
    if (i % 3 == 0) {
      want[prefix(i)] = "ebgp/20 via 10.0.0.4";
    } else if (i % 10 == 5) {
      want[prefix(i)] = "ospf/110 via 10.0.0.3";
    }
  }
  want[P("10.0.0.0/16")] = "connected/0";
  size_t wrong = 0;
  for (const auto& [p, r] : fib.fib) {
    auto it = want.find(p);
    const std::string got =
        r.protocol.name() + "/" + std::to_string(r.admin_distance) +
        (r.protocol.name() == "connected" ? "" : " via " + r.nexthop->ToString());
    if (it == want.end() || it->second != got) {
      if (++wrong < 5) ADD_FAILURE() << p.ToString() << " " << got;
    }
  }
  EXPECT_EQ(fib.fib.size(), want.size());
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(fib.errors, 0u);
  EXPECT_EQ(net.VerifyCaches(), 0u);
  for (const auto& v : violations) ADD_FAILURE() << v;
}

}  // namespace
}  // namespace sluice::rib
