// Stale routes (DESIGN.md § Restarts): a protocol whose component died with a restart time keeps
// its routes in the RIB and the FIB until the next owner's end-of-RIB or the restart time; a
// route re-sent unchanged changes nothing downstream, a route not re-sent is withdrawn at the
// sweep, and a deliberate stop (ProtocolDied) withdraws at once, stale routes included.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "rib/rib.h"
#include "tests/rib/rib_test_util.h"

namespace sluice::rib {
namespace {

using testing::A;
using testing::P;

class StaleRoutesTest : public ::testing::Test {
 protected:
  StaleRoutesTest() : fib(io), rib(io, &fib, Options()) {
    rib.FeaBorn();
    rib.interface_events()->OnSyncStart();
    rib.interface_events()->OnInterfaceAdded("eth0", true);
    rib.interface_events()->OnAddressAdded("eth0", A("10.0.0.1"), 16);
    rib.interface_events()->OnSyncDone();
    fib.log_changes = true;
  }
  RibOptions Options() {
    RibOptions options;
    options.insert_cache_stages = true;
    options.on_violation = [this](const std::string& v) { violations.push_back(v); };
    options.on_end_of_rib = [this](std::string_view p) { end_of_ribs.emplace_back(p); };
    return options;
  }
  // Runs what is ready (background slices, FEA answers) but does not wait for timers.
  void Run() {
    while (io.poll() > 0) {
    }
    io.restart();
  }
  // Routes 100.0.i.0/24 via `via` for i in [from, to).
  void Send(int from, int to, const char* via) {
    std::vector<RouteInput> batch;
    for (int i = from; i < to; ++i) {
      RouteInput r;
      r.network = net::Prefix(net::IPv4Address(0x64000000u + (uint32_t(i) << 8)), 24);
      r.nexthop = A(via);
      batch.push_back(r);
    }
    ASSERT_TRUE(rib.AddRoutes("ebgp", batch).ok());
  }
  size_t FibRoutesOf(const std::string& protocol) const {
    size_t n = 0;
    for (const auto& [p, r] : fib.fib) n += r.protocol.name() == protocol;
    return n;
  }
  size_t Deletes() const {
    size_t n = 0;
    for (const std::string& line : fib.log) n += line.rfind("delete", 0) == 0;
    return n;
  }
  void TearDown() override {
    EXPECT_EQ(rib.network(net::Family::kIPv4).VerifyCaches(), 0u);
    for (const auto& v : violations) ADD_FAILURE() << v;
    EXPECT_EQ(fib.errors, 0u);
  }

  boost::asio::io_context io;
  testing::FakeFib fib;
  std::vector<std::string> violations;
  std::vector<std::string> end_of_ribs;
  Rib rib;
};

TEST_F(StaleRoutesTest, ReSentRoutesStayAndTheRestLeaveAtEndOfRib) {
  Send(0, 100, "10.0.0.2");
  Run();
  ASSERT_EQ(FibRoutesOf("ebgp"), 100u);
  fib.log.clear();

  ASSERT_TRUE(rib.ProtocolStale("ebgp", std::chrono::seconds(60)).ok());
  Run();
  EXPECT_EQ(rib.StaleRoutes("ebgp"), 100u);
  EXPECT_EQ(FibRoutesOf("ebgp"), 100u) << "stale routes stay in the FIB";
  EXPECT_TRUE(fib.log.empty()) << "going stale sends nothing to the FEA";
  EXPECT_TRUE(rib.Idle()) << "held stale routes are not work under way";

  // The successor re-sends 90 unchanged, 5 with a new nexthop, and 10 new ones; 5 are gone.
  Send(0, 90, "10.0.0.2");
  Send(90, 95, "10.0.0.3");
  Send(100, 110, "10.0.0.2");
  Run();
  EXPECT_EQ(rib.StaleRoutes("ebgp"), 5u);
  EXPECT_EQ(FibRoutesOf("ebgp"), 110u);
  EXPECT_EQ(Deletes(), 0u);
  EXPECT_EQ(fib.log.size(), 15u) << "only the 5 changed and 10 new routes reach the FEA";

  absl::StatusOr<size_t> swept = rib.EndOfRib("ebgp");
  ASSERT_TRUE(swept.ok());
  EXPECT_EQ(*swept, 5u);
  Run();
  EXPECT_EQ(rib.StaleRoutes("ebgp"), 0u);
  EXPECT_EQ(FibRoutesOf("ebgp"), 105u);
  EXPECT_EQ(Deletes(), 5u);
  EXPECT_FALSE(fib.fib.contains(P("100.0.95.0/24")));
  EXPECT_TRUE(fib.fib.contains(P("100.0.94.0/24")));
  EXPECT_EQ(end_of_ribs, std::vector<std::string>({"connected", "ebgp"}));
  EXPECT_EQ(rib.network(net::Family::kIPv4).deletion_stage_count(), 0u);
}

TEST_F(StaleRoutesTest, RestartTimeEndsTheWait) {
  Send(0, 10, "10.0.0.2");
  Run();
  ASSERT_TRUE(rib.ProtocolStale("ebgp", std::chrono::seconds(1)).ok());
  Send(0, 4, "10.0.0.2");
  io.run_for(std::chrono::milliseconds(300));
  io.restart();
  EXPECT_EQ(FibRoutesOf("ebgp"), 10u) << "before the restart time: all stay";
  io.run();  // the timer fires: the 6 not re-sent leave
  io.restart();
  EXPECT_EQ(FibRoutesOf("ebgp"), 4u);
  EXPECT_EQ(rib.StaleRoutes("ebgp"), 0u);
}

TEST_F(StaleRoutesTest, DeliberateStopWithdrawsStaleRoutesToo) {
  Send(0, 10, "10.0.0.2");
  Run();
  ASSERT_TRUE(rib.ProtocolStale("ebgp", std::chrono::seconds(60)).ok());
  Send(0, 3, "10.0.0.2");
  Send(20, 22, "10.0.0.2");
  Run();
  ASSERT_EQ(FibRoutesOf("ebgp"), 12u);
  ASSERT_TRUE(rib.ProtocolDied("ebgp").ok());
  Run();
  EXPECT_EQ(FibRoutesOf("ebgp"), 0u);
  EXPECT_EQ(rib.StaleRoutes("ebgp"), 0u);
}

TEST_F(StaleRoutesTest, DyingTwiceKeepsBothGenerationsStale) {
  Send(0, 10, "10.0.0.2");
  Run();
  ASSERT_TRUE(rib.ProtocolStale("ebgp", std::chrono::seconds(60)).ok());
  Send(0, 5, "10.0.0.2");
  Send(50, 52, "10.0.0.2");
  Run();
  // The successor dies before its end-of-RIB: everything is stale again, in two stages.
  ASSERT_TRUE(rib.ProtocolStale("ebgp", std::chrono::seconds(60)).ok());
  Run();
  EXPECT_EQ(rib.StaleRoutes("ebgp"), 12u);
  EXPECT_EQ(FibRoutesOf("ebgp"), 12u);
  Send(0, 2, "10.0.0.2");
  Send(51, 52, "10.0.0.2");
  ASSERT_EQ(*rib.EndOfRib("ebgp"), 9u);
  Run();
  EXPECT_EQ(FibRoutesOf("ebgp"), 3u);
  EXPECT_EQ(Deletes(), 9u);
}

}  // namespace
}  // namespace sluice::rib
