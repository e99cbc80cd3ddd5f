// With real processes: sluice-bgp re-feeds a RIB that is born again.
//
//   sluice-replay 127.0.0.3 (20,000 synthetic prefixes) ──► sluice-bgp ──► sluice-rib ──►
//   sluice-fea
//
// sluice-rib is killed (SIGKILL: no goodbye) once it holds BGP's routes and a new one is
// started: the Finder tells sluice-bgp of the death and the birth, and sluice-bgp sends its whole
// Loc-RIB again; the new RIB re-sends its FIB to the FEA. The RIB ends up with exactly the
// Loc-RIB, the FIB with every one of those prefixes, and the BGP session never went down.
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
constexpr int kPrefixes = 20000;

double Since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

TEST(ProcessRibRestartTest, BgpRefeedsARibBornAgainAndTheFibFollows) {
#ifndef SLUICE_HAVE_RIB_PROCESS
  GTEST_SKIP() << "sluice-rib and sluice-fea are not built on this branch";
#else
  const int port = sluice::testing::FreeTcpPort();
  SluiceRouter sluice({"--listen", absl::StrCat("127.0.0.1:", port), "--local-as",
                       absl::StrCat(kSluiceAs), "--bgp-id", "10.255.0.1", "--ipv4-only"});
  ASSERT_TRUE(sluice.ok()) << sluice.error();
  ASSERT_TRUE(sluice.real_rib());
  BgpClient& bgp = sluice.client();

  v1::AddPeerRequest up;
  ipc::ToProto(*net::IPAddress::Parse("127.0.0.3"), up.mutable_address());
  up.set_remote_as(kReplayAs);
  up.set_passive(true);
  up.set_hold_time(9);
  up.set_ebgp_requires_policy(false);
  ASSERT_TRUE(bgp.AddPeer(up).ok());
  ChildProcess replay(
      {BuildPath("bgp/replay/sluice-replay"), "--connect", absl::StrCat("127.0.0.1:", port),
       "--local-address", "127.0.0.3", "--local-as", absl::StrCat(kReplayAs), "--peer-as",
       absl::StrCat(kSluiceAs), "--synthetic", absl::StrCat(kPrefixes), "--prepend-own-as",
       "--next-hop-self", "--hold-time", "9", "--linger", "--json", "--quiet"},
      sluice.rundir() + "/replay.out");

  std::set<net::Prefix> loc;
  ASSERT_TRUE(WaitFor(
      [&] {
        auto l = bgp.Prefixes(v1::LOC_RIB);
        if (l.ok()) loc = *l;
        return loc.size() == size_t(kPrefixes);
      },
      120))
      << "the Loc-RIB holds " << loc.size() << "\n"
      << replay.Output() << sluice.Logs();
  auto rib_holds_loc = [&](double seconds) {
    return WaitFor(
        [&] {
          auto n = sluice.RibRouteCount();
          return n.ok() && *n == loc.size();
        },
        seconds);
  };
  auto fib_holds_loc = [&](double seconds) {
    return WaitFor(
        [&] {
          auto fib = sluice.FibPrefixes();
          if (!fib.ok() || !*fib) return false;
          size_t in = 0;
          for (const net::Prefix& p : loc) in += (*fib)->contains(p) ? 1 : 0;
          return in == loc.size();
        },
        seconds);
  };
  ASSERT_TRUE(rib_holds_loc(120)) << sluice.Logs();
  ASSERT_TRUE(fib_holds_loc(120)) << sluice.Logs();

  // The RIB dies and a new one is born.
  const auto start = std::chrono::steady_clock::now();
  const absl::Status restarted = sluice.RestartRib();
  ASSERT_TRUE(restarted.ok()) << restarted << "\n" << sluice.Logs();
  ASSERT_TRUE(rib_holds_loc(120)) << "the new RIB holds " << sluice.RibRouteCount().value_or(0)
                                  << " of " << loc.size() << "\n"
                                  << sluice.Logs();
  auto rib = sluice.RibPrefixes();
  ASSERT_TRUE(rib.ok()) << rib.status();
  EXPECT_EQ(*rib, loc);
  EXPECT_TRUE(fib_holds_loc(120)) << sluice.Logs();
  std::printf(
      "a new sluice-rib holds the %zu routes of the Loc-RIB again, and the FIB has them, "
      "%.1f s after the old one was killed\n",
      rib->size(), Since(start));

  auto info = bgp.Peer("127.0.0.3");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->state(), "Established");
  EXPECT_EQ(info->established_transitions(), 1u) << info->last_error();
  replay.Stop();
#endif
}

}  // namespace
}  // namespace sluice::bgp::interop
