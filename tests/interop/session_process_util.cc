#include "tests/interop/session_process_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ipc/types_convert.h"
#include "tests/interop/pipeline_util.h"

namespace sluice::bgp::interop {
namespace {

namespace v1 = ::sluice::bgp::v1;

double Since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

void RunProcessScenario(Daemon& daemon, const std::string& daemon_v4, uint32_t daemon_as, bool ipv6,
                        int n) {
  const uint16_t port4 = uint16_t(sluice::testing::FreeTcpPort());
  const uint16_t port6 = uint16_t(sluice::testing::FreeTcpPort());
  std::vector<std::string> flags = {"--listen",   absl::StrCat("127.0.0.1:", port4),
                                    "--local-as", absl::StrCat(kSluiceAs),
                                    "--bgp-id",   "10.255.0.1"};
  if (ipv6) {
    flags.push_back("--listen");
    flags.push_back(absl::StrCat("[::1]:", port6));
  }
  SluiceRouter sluice(flags, /*with_rib=*/false);
  ASSERT_TRUE(sluice.ok()) << sluice.error();
  BgpClient& bgp = sluice.client();

  Endpoints e;
  e.daemon_v4 = daemon_v4;
  e.daemon_port4 = uint16_t(sluice::testing::FreeTcpPort());
  do {
    e.daemon_port6 = uint16_t(sluice::testing::FreeTcpPort());
  } while (e.daemon_port6 == e.daemon_port4);
  if (daemon.OnePort()) e.daemon_port6 = e.daemon_port4;
  e.daemon_as = daemon_as;
  e.sluice_port4 = port4;
  e.sluice_port6 = port6;
  std::vector<std::string> peers = {daemon_v4};
  if (ipv6) peers.push_back("::1");
  auto v4 = [&](int i) { return absl::StrCat("10.", n, ".", i, ".0/24"); };
  auto v6 = [&](int i) { return absl::StrCat("2001:db8:", n, ":", i, "::/64"); };
  const std::string name = daemon.name() + " with sluice-bgp";

  // The peer's Adj-RIB-In through bgp/1.0 list_routes, as text prefixes; nullopt when the
  // session is not Established.
  auto adj_rib_in = [&](const std::string& peer) -> std::optional<std::vector<std::string>> {
    auto info = bgp.Peer(peer);
    if (!info.ok() || info->state() != "Established") return std::nullopt;
    auto routes = bgp.Routes(v1::ADJ_RIB_IN, peer, peer == "::1" ? "ipv6" : "ipv4");
    if (!routes.ok()) return std::nullopt;
    std::vector<std::string> out;
    for (const v1::Route& r : *routes) {
      auto p = ipc::FromProto(r.network());
      if (p.ok()) out.push_back(p->ToString());
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  auto holds = [&](const RouteSet& r) {
    for (const std::string& peer : peers) {
      std::vector<std::string> want = peer == "::1" ? r.v6 : r.v4;
      std::sort(want.begin(), want.end());
      if (adj_rib_in(peer) != want) return false;
    }
    return true;
  };
  auto describe = [&] {
    std::string out;
    for (const std::string& peer : peers) {
      auto info = bgp.Peer(peer);
      absl::StrAppend(&out, "\npeer ", peer, ": ",
                      info.ok() ? info->ShortDebugString() : info.status().ToString());
    }
    return absl::StrCat(out, "\n", sluice.Logs(), name, " logs:\n", daemon.Logs());
  };

  // 1. Established over IPv4 and IPv6 with 4-octet ASes; the daemon's routes arrive.
  const RouteSet r1{{v4(1), v4(2), v4(3)}, {v6(1), v6(2), v6(3)}};
  auto start = std::chrono::steady_clock::now();
  const absl::Status started = daemon.Start(e, r1);
  ASSERT_TRUE(started.ok()) << started << "\n" << daemon.Logs();
  for (const std::string& peer : peers) {
    v1::AddPeerRequest r;
    const bool v6 = peer == "::1";
    ipc::ToProto(*net::IPAddress::Parse(peer), r.mutable_address());
    ipc::ToProto(*net::IPAddress::Parse(v6 ? "::1" : "127.0.0.1"), r.mutable_local_address());
    r.set_port(v6 ? e.daemon_port6 : e.daemon_port4);
    r.set_remote_as(daemon_as);
    r.set_hold_time(9);
    r.set_connect_retry_s(1);
    r.set_idle_hold_s(0.5);
    r.set_idle_hold_max_s(4);
    r.add_families(v6 ? "ipv6" : "ipv4");
    const absl::Status st = bgp.AddPeer(r);
    ASSERT_TRUE(st.ok()) << st;
  }
  ASSERT_TRUE(sluice::testing::WaitFor([&] { return holds(r1); }, 40))
      << name << ": sessions or routes missing" << describe();
  std::printf(
      "%s: Established over IPv4%s, %zu+%zu routes in the Adj-RIB-In (bgp/1.0) after "
      "%.1f s\n",
      name.c_str(), ipv6 ? " and IPv6" : "", r1.v4.size(), ipv6 ? r1.v6.size() : 0, Since(start));
  for (const std::string& peer : peers) {
    SCOPED_TRACE(peer);
    auto info = bgp.Peer(peer);
    ASSERT_TRUE(info.ok()) << info.status();
    EXPECT_EQ(info->state(), "Established");
    EXPECT_EQ(info->remote_as(), daemon_as);
    EXPECT_TRUE(info->four_octet_as());
    EXPECT_EQ(info->hold_time(), 9u);
    EXPECT_GT(info->updates_in(), 0u);
    EXPECT_EQ(info->prefixes_received(), 3u);
    auto routes = bgp.Routes(v1::ADJ_RIB_IN, peer, peer == "::1" ? "ipv6" : "ipv4");
    ASSERT_TRUE(routes.ok()) << routes.status();
    for (const v1::Route& r : *routes) {
      EXPECT_EQ(r.as_path().substr(0, r.as_path().find(' ')), absl::StrCat(daemon_as))
          << r.ShortDebugString();
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
  ASSERT_TRUE(sluice::testing::WaitFor([&] { return holds(r2); }, 20))
      << name << ": the withdrawals did not arrive" << describe();
  std::printf("%s: withdrawals arrived after %.2f s\n", name.c_str(), Since(start));

  // 3. The daemon restarts with another route set: the sessions come back, stale routes gone.
  start = std::chrono::steady_clock::now();
  daemon.StopForRestart();
  ASSERT_TRUE(sluice::testing::WaitFor(
      [&] {
        for (const std::string& peer : peers) {
          auto info = bgp.Peer(peer);
          if (!info.ok() || info->state() == "Established") return false;
        }
        return true;
      },
      30))
      << name << ": the sessions did not go down" << describe();
  const std::string down_reason = bgp.Peer(daemon_v4).value_or(v1::PeerInfo()).last_error();
  const RouteSet r3{{v4(1), v4(4)}, {v6(1), v6(4)}};
  const absl::Status restarted = daemon.Start(e, r3);
  ASSERT_TRUE(restarted.ok()) << restarted << "\n" << daemon.Logs();
  ASSERT_TRUE(sluice::testing::WaitFor([&] { return holds(r3); }, 40))
      << name << ": not back after the restart" << describe();
  std::printf("%s: restart (down: %s) handled, back with the new routes after %.1f s\n",
              name.c_str(), down_reason.c_str(), Since(start));
  for (const std::string& peer : peers) {
    auto info = bgp.Peer(peer);
    ASSERT_TRUE(info.ok());
    EXPECT_EQ(info->established_transitions(), 2u) << peer;
  }
}

}  // namespace sluice::bgp::interop
