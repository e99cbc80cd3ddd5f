// Keepalives never starve (bgp/session/connection.h): sluice-replay sends the PCH full table
// (577,703 final prefixes) over a session with hold time 9 s to a PeerManager whose routing side is
// deliberately slow — busy for 40 µs per prefix, so that processing the table takes far longer
// than the hold time. The session must stay Established throughout: our KEEPALIVEs go out every
// 3 s while the table is being read and processed in slices, and every UPDATE processed restarts
// our hold timer. At the end the Adj-RIB-In holds the capture's final table (minus the 4 routes
// with AS 0 in their path, treat-as-withdraw by RFC 7607).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "bgp/replay/replay_feed.h"
#include "bgp/session/peer_manager.h"
#include "tests/bgp/session_test_util.h"
#include "tests/bgp/test_data.h"
#include "tests/interop/interop_util.h"

namespace sluice::bgp {
namespace {

using Clock = std::chrono::steady_clock;
using sluice::testing::ChildProcess;
using sluice::testing::TempDir;
using testing::Addr;

constexpr uint32_t kOurAs = 4200000001u;
constexpr uint32_t kReplayAs = 4200000002u;
// 577,703 x 40 us = 23 s of busy time at least, whatever the CPU: more than twice the hold time.
constexpr auto kCostPerPrefix = std::chrono::microseconds(40);

TEST(SessionKeepaliveTest, FullTableThroughASlowListenerKeepsAHoldTime9SessionUp) {
  SLUICE_SKIP_WITHOUT_MRT_DATA();
  const char* build = std::getenv("SLUICE_BUILD_DIR");
  ASSERT_NE(build, nullptr) << "SLUICE_BUILD_DIR is set by ctest";
  const std::string replay = std::string(build) + "/bgp/replay/sluice-replay";
  const std::string capture =
      sluice::testing::MrtDir() + "/pch-2015-10-23-fulltable-updates.mrt.gz";

  // What must arrive: the final table without the routes carrying AS 0 (RFC 7607).
  size_t expected = 0, as0 = 0;
  {
    AttributeStore store;
    auto c = replay::LoadCapture(capture, &store);
    ASSERT_TRUE(c.ok()) << c.status();
    ASSERT_EQ(c->peers.size(), 1u);
    for (const replay::Route& r : c->peers[0].Table()) {
      (r.attributes->as_path && r.attributes->as_path->Contains(0) ? as0 : expected) += 1;
    }
  }
  EXPECT_EQ(expected + as0, 577703u);

  boost::asio::io_context io;
  testing::TestRouting routing;
  PeerManager manager(io);
  manager.set_routing_side(&routing);
  ASSERT_TRUE(manager.SetLocalAs(kOurAs).ok());
  ASSERT_TRUE(manager.SetBgpIdentifier(net::IPv4Address(0x0a000001)).ok());
  auto port = manager.Listen(Addr("127.0.0.1"), 0);
  ASSERT_TRUE(port.ok()) << port.status();
  PeerConfig peer;
  peer.address = Addr("127.0.0.31");
  peer.remote_as = kReplayAs;
  peer.passive = true;
  peer.hold_time_s = 9;
  ASSERT_TRUE(manager.AddPeer(peer).ok());
  testing::AdjRibIn* rib = routing.rib("127.0.0.31");
  rib->set_cost_per_prefix(kCostPerPrefix);

  TempDir dir("session-keepalive");
  ChildProcess sender(
      {replay, "--connect", absl::StrCat("127.0.0.1:", *port), "--local-address", "127.0.0.31",
       "--local-as", absl::StrCat(kReplayAs), "--peer-as", absl::StrCat(kOurAs), "--mrt", capture,
       "--prepend-own-as", "--next-hop-self", "--hold-time", "9", "--linger", "--json", "--quiet"},
      dir.Path("replay.out"));

  // Run the loop, watching our KEEPALIVEs go out, until End-of-RIB has been processed.
  Clock::time_point established_at, last_keepalive, done_at;
  double max_gap = 0;
  uint64_t keepalives = 0;
  bool up = false;
  const auto deadline = Clock::now() + std::chrono::seconds(600);
  while (Clock::now() < deadline && !rib->end_of_rib.Has(kIPv4Unicast) && rib->downs == 0) {
    io.restart();
    io.run_for(std::chrono::milliseconds(10));
    const PeerStatus s = *manager.GetPeer(peer.address);
    if (!up && rib->established) {
      up = true;
      established_at = last_keepalive = Clock::now();
      keepalives = s.counters.keepalives_out;
    }
    if (up && s.counters.keepalives_out > keepalives) {
      max_gap =
          std::max(max_gap, std::chrono::duration<double>(Clock::now() - last_keepalive).count());
      last_keepalive = Clock::now();
      keepalives = s.counters.keepalives_out;
    }
    if (!sender.Running()) break;
  }
  done_at = Clock::now();
  ASSERT_TRUE(up) << "never Established; sluice-replay said: " << sender.Output();
  const double seconds = std::chrono::duration<double>(done_at - established_at).count();
  const PeerStatus s = *manager.GetPeer(peer.address);
  std::printf(
      "PCH table through a listener busy %lld us per prefix: %zu prefixes in the Adj-RIB-In after "
      "%.1f s, hold time %d s; %llu UPDATEs and %llu KEEPALIVEs in, %llu KEEPALIVEs out, longest "
      "gap between our KEEPALIVEs %.2f s; session flaps: %d\n",
      (long long)kCostPerPrefix.count(), rib->routes.size(), seconds, rib->info().hold_time_s,
      (unsigned long long)s.counters.updates_in, (unsigned long long)s.counters.keepalives_in,
      (unsigned long long)s.counters.keepalives_out, max_gap, rib->downs);

  EXPECT_EQ(rib->downs, 0) << "the session went down: " << rib->last_down_reason;
  EXPECT_EQ(rib->established_count, 1);
  EXPECT_EQ(rib->info().hold_time_s, 9);
  ASSERT_TRUE(rib->end_of_rib.Has(kIPv4Unicast)) << "the table did not arrive";
  EXPECT_EQ(rib->routes.size(), expected);
  // The test means something only if processing outlasted the hold time, twice at least.
  EXPECT_GT(seconds, 2 * 9.0) << "the listener was not slow enough to test anything";
  EXPECT_LT(max_gap, 9.0);
  EXPECT_GE(s.counters.keepalives_out, uint64_t(seconds / 3) - 1);

  // sluice-replay saw no error either: stop it; it ends the session with a Cease.
  sender.Stop();
  const std::string out = sender.Output();
  EXPECT_NE(out.find("\"ok\":true"), std::string::npos) << out;
  EXPECT_NE(out.find("\"notification_received\":\"\""), std::string::npos) << out;
}

}  // namespace
}  // namespace sluice::bgp
