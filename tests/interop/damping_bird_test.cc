// Route flap damping with real processes, between a flapping upstream and BIRD.
//
//   sluice-replay 127.0.0.3 AS4200000002 ──► sluice-bgp 127.0.0.1 AS4200000001 ──► BIRD 127.0.0.4
//   100 synthetic prefixes, one flap every 10 s   damping on the upstream peer      AS4200000004
//
// Damping is configured through `sluice call` as the router manager would (bgp/1.0 set_damping,
// set_peer_damping) with a short half-life (20 s; reuse 750, suppress 2000, max-suppress 60 s) so
// the test takes about a minute. Each withdrawal adds 1000: the third, 20 s after the first,
// takes the penalty to about 2200 and suppresses every prefix. What BIRD sees: the 100 prefixes,
// then (after the suppress threshold) none while the upstream still announces them and Sluice
// lists them in `show bgp damping` (list_damped), then all 100 again once the penalty decays
// below reuse. Skips with a message when BIRD is not installed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "ipc/types_convert.h"
#include "tests/interop/pipeline_util.h"

namespace sluice::bgp::interop {
namespace {

namespace v1 = ::sluice::bgp::v1;
using sluice::testing::ChildProcess;
using sluice::testing::WaitFor;

constexpr uint32_t kSluiceAs = 4200000001u;
constexpr uint32_t kReplayAs = 4200000002u;
constexpr uint32_t kBirdAs = 4200000004u;
constexpr int kPrefixes = 100;

double Since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

v1::AddPeerRequest Peer(const std::string& address, uint32_t as, uint16_t port) {
  v1::AddPeerRequest r;
  sluice::ipc::ToProto(*net::IPAddress::Parse(address), r.mutable_address());
  r.set_remote_as(as);
  r.set_port(port);
  r.set_hold_time(9);
  r.set_connect_retry_s(1);
  r.set_idle_hold_s(0.5);
  r.set_ebgp_requires_policy(false);
  return r;
}

// The number of suppressed prefixes in `sluice call .../list_damped` output.
int CountSuppressed(const std::string& out) {
  int n = 0;
  for (size_t at = out.find("suppressed:bool=true"); at != std::string::npos;
       at = out.find("suppressed:bool=true", at + 1)) {
    ++n;
  }
  return n;
}

TEST(DampingBirdTest, FlappingPrefixesLeaveBirdAfterTheSuppressThresholdAndReturnAfterReuse) {
  for (const char* p : {"bird", "birdc"}) {
    if (!sluice::testing::HaveProgram(p)) {
      GTEST_SKIP() << p << " is not installed (Debian package bird2)";
    }
  }
  const int port = sluice::testing::FreeTcpPort();
  SluiceRouter sluice({"--listen", absl::StrCat("127.0.0.1:", port), "--local-as",
                       absl::StrCat(kSluiceAs), "--bgp-id", "10.255.0.1", "--ipv4-only"},
                      /*with_rib=*/false);
  ASSERT_TRUE(sluice.ok()) << sluice.error();
  BgpClient& bgp = sluice.client();
  const PeerEndpoint bird_end{"127.0.0.4", uint16_t(sluice::testing::FreeTcpPort()), kBirdAs,
                              uint16_t(port), kSluiceAs};
  v1::AddPeerRequest up = Peer("127.0.0.3", kReplayAs, 0);
  up.set_passive(true);
  ASSERT_TRUE(bgp.AddPeer(up).ok());
  ASSERT_TRUE(bgp.AddPeer(Peer(bird_end.address, kBirdAs, bird_end.port)).ok());

  // `bgp { damping { half-life 20s; reuse 750; suppress 2000; max-suppress 1m; } }` and
  // `peer 127.0.0.3 { damping; }`, as the router manager sends them.
  for (const std::string xrl :
       {"finder://bgp/bgp/1.0/set_damping?half_life_s:u32=20&reuse:u32=750&suppress:u32=2000&"
        "max_suppress_s:u32=60",
        "finder://bgp/bgp/1.0/set_peer_damping?address:ipvx=127.0.0.3&enabled:bool=true"}) {
    auto r = sluice.Cli({"call", xrl});
    ASSERT_TRUE(r.ok()) << xrl << ": " << r.status();
  }
  auto bad =
      sluice.Cli({"call", "finder://bgp/bgp/1.0/set_damping?reuse:u32=3000&suppress:u32=2000"});
  EXPECT_FALSE(bad.ok()) << "suppress below reuse must be refused";
  auto plumbing = sluice.Cli({"call", "finder://bgp/profile/1.0/describe_plumbing"});
  ASSERT_TRUE(plumbing.ok()) << plumbing.status();
  EXPECT_NE(plumbing->find("Damping"), std::string::npos) << *plumbing;

  std::string error;
  std::unique_ptr<DaemonPeer> bird = StartBird(bird_end, &error);
  ASSERT_NE(bird, nullptr) << error;
  ASSERT_TRUE(WaitFor(
      [&] {
        auto info = bgp.Peer(bird_end.address);
        return info.ok() && info->state() == "Established" && bird->Established();
      },
      60))
      << bird->Logs() << sluice.Logs();

  // The upstream: 100 prefixes, withdrawn 5 s after they were sent and announced again 5 s
  // later, three times; it ends with them announced.
  const auto start = std::chrono::steady_clock::now();
  ChildProcess replay({BuildPath("bgp/replay/sluice-replay"),
                       "--connect",
                       absl::StrCat("127.0.0.1:", port),
                       "--local-address",
                       "127.0.0.3",
                       "--local-as",
                       absl::StrCat(kReplayAs),
                       "--peer-as",
                       absl::StrCat(kSluiceAs),
                       "--synthetic",
                       absl::StrCat(kPrefixes),
                       "--prepend-own-as",
                       "--next-hop-self",
                       "--hold-time",
                       "9",
                       "--flap-every",
                       "10",
                       "--flaps",
                       "3",
                       "--linger",
                       "--json",
                       "--quiet"},
                      sluice.rundir() + "/replay.out");
  ASSERT_TRUE(WaitFor([&] { return bird->RouteCount() == kPrefixes; }, 30))
      << "BIRD never saw the first announcement: " << bird->RouteCount() << "\n"
      << bird->Logs() << sluice.Logs();
  std::printf("BIRD holds %d prefixes after %.1f s\n", kPrefixes, Since(start));

  // The flaps end with the prefixes announced upstream...
  ASSERT_TRUE(
      WaitFor([&] { return replay.Output().find("\"event\":\"sent\"") != std::string::npos; }, 60))
      << replay.Output();
  const double flaps_done = Since(start);
  auto adj_in = bgp.Prefixes(v1::ADJ_RIB_IN, "127.0.0.3");
  ASSERT_TRUE(WaitFor(
      [&] {
        adj_in = bgp.Prefixes(v1::ADJ_RIB_IN, "127.0.0.3");
        return adj_in.ok() && adj_in->size() == size_t(kPrefixes);
      },
      10));
  // ... but Sluice suppresses them: BIRD holds none, and show bgp damping lists all 100.
  std::string damped;
  ASSERT_TRUE(WaitFor(
      [&] {
        auto r = sluice.Cli({"call", "finder://bgp/bgp/1.0/list_damped?suppressed_only:bool=true"});
        damped = r.ok() ? *r : "";
        return CountSuppressed(damped) == kPrefixes;
      },
      10))
      << damped;
  EXPECT_EQ(bird->RouteCount(), 0) << "suppressed prefixes must not reach BIRD";
  auto loc = bgp.Prefixes(v1::LOC_RIB);
  ASSERT_TRUE(loc.ok());
  EXPECT_TRUE(loc->empty()) << loc->size() << " prefixes in the Loc-RIB while suppressed";
  std::printf("after the 3rd flap (%.1f s): Adj-RIB-In %zu, suppressed %d, BIRD %lld\n", flaps_done,
              adj_in->size(), CountSuppressed(damped), (long long)bird->RouteCount());
  std::printf("list_damped (first entry): %s\n", damped.substr(0, damped.find(")") + 1).c_str());

  // Released by the timer when the penalty decays below reuse (about 30 s after the last flap).
  ASSERT_TRUE(WaitFor([&] { return bird->RouteCount() == kPrefixes; }, 90))
      << "BIRD holds " << bird->RouteCount() << "\n"
      << bird->Logs() << sluice.Logs();
  std::printf("BIRD holds all %d again %.1f s after the flaps ended\n", kPrefixes,
              Since(start) - flaps_done);
  auto after = sluice.Cli({"call", "finder://bgp/bgp/1.0/list_damped?suppressed_only:bool=true"});
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(CountSuppressed(*after), 0);
  replay.Stop();
}

}  // namespace
}  // namespace sluice::bgp::interop
