#include "tests/interop/session_daemon_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace sluice::bgp::interop {

using testing::Addr;

SluiceSide::SluiceSide() : manager(io) {
  manager.set_routing_side(&routing);
  EXPECT_TRUE(manager.SetLocalAs(kSluiceAs).ok());
  EXPECT_TRUE(manager.SetBgpIdentifier(net::IPv4Address(0x0aff0001)).ok());  // 10.255.0.1
  auto p4 = manager.Listen(Addr("127.0.0.1"), 0);
  auto p6 = manager.Listen(Addr("::1"), 0);
  EXPECT_TRUE(p4.ok()) << p4.status();
  EXPECT_TRUE(p6.ok()) << p6.status();
  port4 = p4.ok() ? *p4 : 0;
  port6 = p6.ok() ? *p6 : 0;
}

void SluiceSide::AddDaemon(const Endpoints& e, bool ipv6) {
  for (const bool v6 : {false, true}) {
    if (v6 && !ipv6) continue;
    PeerConfig c;
    c.address = Addr(v6 ? "::1" : e.daemon_v4);
    c.port = v6 ? e.daemon_port6 : e.daemon_port4;
    c.remote_as = e.daemon_as;
    c.local_address = Addr(v6 ? "::1" : "127.0.0.1");
    c.hold_time_s = 9;
    c.connect_retry_s = 1;
    c.idle_hold_s = 0.5;
    c.idle_hold_max_s = 4;
    const absl::Status st = manager.AddPeer(c);
    EXPECT_TRUE(st.ok()) << st;
  }
}

PeerStatus SluiceSide::Status(const std::string& address) {
  auto s = manager.GetPeer(Addr(address));
  return s.ok() ? *s : PeerStatus();
}

bool SluiceSide::Holds(const std::string& address, const std::vector<std::string>& prefixes) {
  testing::AdjRibIn* r = rib(address);
  if (r == nullptr || !r->established) return false;
  std::vector<std::string> want = prefixes, have = r->Prefixes();
  std::sort(want.begin(), want.end());
  std::sort(have.begin(), have.end());
  return want == have;
}

std::string SluiceSide::Describe(const std::string& address) {
  testing::AdjRibIn* r = rib(address);
  return absl::StrCat("\n  peer ", Status(address).ToString(),
                      "\n  Adj-RIB-In: ", r ? absl::StrJoin(r->Prefixes(), " ") : "?", "\n");
}

namespace {

double Since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

void RunScenario(Daemon& daemon, const std::string& daemon_v4, uint32_t daemon_as, bool ipv6,
                 int n) {
  SluiceSide s;
  ASSERT_GT(s.port4, 0);
  Endpoints e;
  e.daemon_v4 = daemon_v4;
  e.daemon_port4 = uint16_t(sluice::testing::FreeTcpPort());
  do {
    e.daemon_port6 = uint16_t(sluice::testing::FreeTcpPort());
  } while (e.daemon_port6 == e.daemon_port4);
  if (daemon.OnePort()) e.daemon_port6 = e.daemon_port4;
  e.daemon_as = daemon_as;
  e.sluice_port4 = s.port4;
  e.sluice_port6 = s.port6;
  auto v4 = [&](int i) { return absl::StrCat("10.", n, ".", i, ".0/24"); };
  auto v6 = [&](int i) { return absl::StrCat("2001:db8:", n, ":", i, "::/64"); };
  const std::string name = daemon.name();
  auto describe = [&] {
    return absl::StrCat(s.Describe(daemon_v4), ipv6 ? s.Describe("::1") : "", name, " logs:\n",
                        daemon.Logs());
  };
  auto holds = [&](const RouteSet& r) {
    return s.Holds(daemon_v4, r.v4) && (!ipv6 || s.Holds("::1", r.v6));
  };

  // 1. Established over IPv4 and IPv6 with 4-octet ASes; the daemon's routes arrive.
  const RouteSet r1{{v4(1), v4(2), v4(3)}, {v6(1), v6(2), v6(3)}};
  auto start = std::chrono::steady_clock::now();
  const absl::Status started = daemon.Start(e, r1);
  ASSERT_TRUE(started.ok()) << started << "\n" << daemon.Logs();
  s.AddDaemon(e, ipv6);
  ASSERT_TRUE(s.RunUntil([&] { return holds(r1); }, 40))
      << name << ": sessions or routes missing" << describe();
  std::printf("%s: Established over IPv4%s, %zu+%zu routes in the Adj-RIB-In after %.1f s\n",
              name.c_str(), ipv6 ? " and IPv6" : "", r1.v4.size(), ipv6 ? r1.v6.size() : 0,
              Since(start));
  for (const std::string& peer : {daemon_v4, std::string("::1")}) {
    if (peer == "::1" && !ipv6) continue;
    SCOPED_TRACE(peer);
    const PeerStatus st = s.Status(peer);
    EXPECT_EQ(st.state, FsmState::kEstablished);
    EXPECT_EQ(st.remote_as, daemon_as);
    EXPECT_TRUE(st.four_octet_as);
    EXPECT_EQ(s.rib(peer)->info().remote_as, daemon_as);
    EXPECT_EQ(s.rib(peer)->info().remote_address, Addr(peer));
    EXPECT_GT(st.counters.updates_in, 0u);
    EXPECT_EQ(st.counters.prefixes_accepted, 3u);
    for (const std::string& p : s.rib(peer)->Prefixes()) {
      const PathAttributes* a = s.rib(peer)->Attributes(p);
      ASSERT_NE(a, nullptr);
      ASSERT_TRUE(a->as_path.has_value()) << p;
      EXPECT_EQ(a->as_path->FirstAs(), daemon_as) << p << ": " << a->ToString();
    }
  }

  // 2. A withdrawal per family removes the route.
  const RouteSet r2{{v4(1), v4(3)}, {v6(1), v6(3)}};
  start = std::chrono::steady_clock::now();
  absl::Status st = daemon.Withdraw(e, r2, v4(2));
  ASSERT_TRUE(st.ok()) << st;
  if (ipv6) {
    st = daemon.Withdraw(e, r2, v6(2));
    ASSERT_TRUE(st.ok()) << st;
  }
  ASSERT_TRUE(s.RunUntil([&] { return holds(r2); }, 20))
      << name << ": the withdrawals did not arrive" << describe();
  std::printf("%s: withdrawals arrived after %.2f s\n", name.c_str(), Since(start));

  // 3. The daemon restarts with another route set: the sessions come back, stale routes are gone.
  start = std::chrono::steady_clock::now();
  daemon.StopForRestart();
  ASSERT_TRUE(s.RunUntil(
      [&] {
        return !s.rib(daemon_v4)->established && s.rib(daemon_v4)->routes.empty() &&
               (!ipv6 || (!s.rib("::1")->established && s.rib("::1")->routes.empty()));
      },
      30))
      << name << ": the sessions did not go down" << describe();
  const std::string down_reason = s.rib(daemon_v4)->last_down_reason;
  const RouteSet r3{{v4(1), v4(4)}, {v6(1), v6(4)}};
  const absl::Status restarted = daemon.Start(e, r3);
  ASSERT_TRUE(restarted.ok()) << restarted << "\n" << daemon.Logs();
  ASSERT_TRUE(s.RunUntil([&] { return holds(r3); }, 40))
      << name << ": not back after the restart" << describe();
  std::printf("%s: restart (down: %s) handled, back with the new routes after %.1f s\n",
              name.c_str(), down_reason.c_str(), Since(start));
  std::printf("%s: connection collisions resolved: IPv4 %llu, IPv6 %llu\n", name.c_str(),
              (unsigned long long)s.Status(daemon_v4).counters.collisions,
              (unsigned long long)(ipv6 ? s.Status("::1").counters.collisions : 0));
  EXPECT_EQ(s.rib(daemon_v4)->established_count, 2);
  if (ipv6) {
    EXPECT_EQ(s.rib("::1")->established_count, 2);
  }
}

}  // namespace sluice::bgp::interop
