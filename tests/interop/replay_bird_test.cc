// Interop: sluice-replay feeds the PCH full table to a real BIRD 2 on loopback.
//
// BIRD runs from the Debian package with a private config, control socket and port in a temp
// folder (../shared/INTEROP.md: multihop 2, an "igp table" with a static default route via lo so
// that loopback nexthops resolve, no kernel protocol). sluice-replay, as an eBGP peer in AS
// 4200000001, prepends its AS (the capture is an iBGP-style feed) and sets NEXT_HOP to itself.
//
// What BIRD holds must be the capture's final table (577,706 prefixes announced, 3 withdrawn)
// minus what BIRD refuses, computed here from the capture and checked prefix by prefix:
//   - routes whose AS_PATH contains BIRD's own AS 65000: AS_PATH loop (RFC 4271 §9.1.2), 83 of
//     them. BIRD treats them as withdrawals.
// BIRD 2.0.12 accepts the 4 routes with AS 0 in their path (it does not apply RFC 7607's
// treat-as-withdraw, unlike FRR and OpenBGPD).
#include <gtest/gtest.h>

#include <cstdio>
#include <regex>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bgp/replay/replay_feed.h"
#include "tests/bgp/test_data.h"
#include "tests/interop/interop_util.h"

namespace sluice::bgp {
namespace {

using sluice::testing::ChildProcess;
using sluice::testing::RunCommand;
using sluice::testing::TempDir;
using sluice::testing::WaitFor;

constexpr uint32_t kBirdAs = 65000;
constexpr uint32_t kReplayAs = 4200000001u;

std::string BirdConfig(const TempDir& dir, int port) {
  return absl::StrCat(R"(router id 127.0.0.1;
log ")",
                      dir.Path("bird.log"), R"(" { warning, error, fatal };
protocol device { }
ipv4 table igp4;
protocol static igpstatic { ipv4 { table igp4; }; route 0.0.0.0/0 via "lo"; }
protocol bgp upstream {
  local 127.0.0.1 port )",
                      port, " as ", kBirdAs, R"(;
  neighbor 127.0.0.3 as )",
                      kReplayAs, R"(;
  multihop 2;
  hold time 90;
  ipv4 { import all; export none; igp table igp4; };
}
)");
}

// "577620 of 577620 routes for 577620 networks in table master4" → 577620.
int64_t RouteCount(const std::string& socket) {
  auto out = RunCommand({"birdc", "-s", socket, "show", "route", "count"});
  if (!out.ok()) return -1;
  std::smatch m;
  static const std::regex re("(\\d+) of \\d+ routes for \\d+ networks in table master4");
  if (!std::regex_search(*out, m, re)) return -1;
  return std::stoll(m[1]);
}

TEST(ReplayBirdTest, PchFullTableArrivesMinusWhatBirdRefuses) {
  SLUICE_SKIP_WITHOUT_MRT_DATA();
  if (!sluice::testing::HaveProgram("bird") || !sluice::testing::HaveProgram("birdc")) {
    GTEST_SKIP() << "BIRD 2 is not installed (Debian package bird2)";
  }
  const char* build = std::getenv("SLUICE_BUILD_DIR");
  ASSERT_NE(build, nullptr) << "SLUICE_BUILD_DIR is set by ctest";
  const std::string replay = std::string(build) + "/bgp/replay/sluice-replay";
  const std::string capture =
      sluice::testing::MrtDir() + "/pch-2015-10-23-fulltable-updates.mrt.gz";

  // What BIRD should hold: the final table without the AS_PATH loops.
  std::set<net::Prefix> expected, loops;
  {
    AttributeStore store;
    auto c = replay::LoadCapture(capture, &store);
    ASSERT_TRUE(c.ok()) << c.status();
    ASSERT_EQ(c->peers.size(), 1u);
    for (const replay::Route& r : c->peers[0].Table()) {
      const bool loop = r.attributes->as_path && r.attributes->as_path->Contains(kBirdAs);
      (loop ? loops : expected).insert(r.nlri.prefix);
    }
  }
  EXPECT_EQ(expected.size() + loops.size(), 577703u);  // 577,706 announced, 3 withdrawn
  EXPECT_EQ(loops.size(), 83u);

  TempDir dir("bird");
  const int port = sluice::testing::FreeTcpPort();
  ASSERT_GT(port, 0);
  const std::string socket = dir.Path("bird.ctl");
  ChildProcess bird({"bird", "-f", "-c", dir.File("bird.conf", BirdConfig(dir, port)), "-s", socket,
                     "-P", dir.Path("bird.pid")},
                    dir.Path("bird.out"));
  ASSERT_TRUE(WaitFor([&] { return RouteCount(socket) == 0; }, 20))
      << "BIRD did not start: " << bird.Output();

  ChildProcess sender(
      {replay, "--connect", absl::StrCat("127.0.0.1:", port), "--local-address", "127.0.0.3",
       "--local-as", absl::StrCat(kReplayAs), "--peer-as", absl::StrCat(kBirdAs), "--mrt", capture,
       "--prepend-own-as", "--next-hop-self", "--linger", "--json", "--quiet"},
      dir.Path("replay.out"));
  ASSERT_TRUE(
      WaitFor([&] { return sender.Output().find("\"event\":\"sent\"") != std::string::npos; }, 180))
      << "sluice-replay did not finish sending: " << sender.Output();

  // BIRD settles when its count stops changing and matches.
  int64_t count = -1;
  WaitFor(
      [&] {
        count = RouteCount(socket);
        return count == int64_t(expected.size());
      },
      60);
  auto stats = RunCommand({"birdc", "-s", socket, "show", "protocols", "all", "upstream"});
  std::printf("BIRD holds %lld routes; expected %zu = 577,703 final - %zu AS_PATH loops (AS%u)\n",
              (long long)count, expected.size(), loops.size(), kBirdAs);
  if (stats.ok()) {
    for (absl::string_view line : absl::StrSplit(*stats, '\n')) {
      if (absl::StrContains(line, "Import updates") ||
          absl::StrContains(line, "Import withdraws") || absl::StrContains(line, "received")) {
        std::printf("  %s\n", std::string(line).c_str());
      }
    }
  }
  EXPECT_EQ(count, int64_t(expected.size()));

  // Prefix by prefix.
  auto routes = RunCommand({"birdc", "-s", socket, "show", "route", "primary"});
  ASSERT_TRUE(routes.ok()) << routes.status();
  std::set<net::Prefix> held;
  for (absl::string_view line : absl::StrSplit(*routes, '\n')) {
    const size_t space = line.find_first_of(" \t");
    if (space == absl::string_view::npos) continue;
    auto p = net::Prefix::Parse(std::string(line.substr(0, space)));
    if (p.ok()) held.insert(*p);
  }
  std::vector<net::Prefix> missing, extra;
  std::set_difference(expected.begin(), expected.end(), held.begin(), held.end(),
                      std::back_inserter(missing));
  std::set_difference(held.begin(), held.end(), expected.begin(), expected.end(),
                      std::back_inserter(extra));
  EXPECT_TRUE(missing.empty()) << missing.size() << " expected prefixes missing, e.g. "
                               << missing.front().ToString();
  EXPECT_TRUE(extra.empty()) << extra.size() << " unexpected prefixes, e.g. "
                             << extra.front().ToString();

  // The session ends cleanly when sluice-replay is stopped.
  sender.Stop();
  const std::string out = sender.Output();
  EXPECT_NE(out.find("\"ok\":true"), std::string::npos) << out;
  EXPECT_NE(out.find("\"prefixes_sent\":577737"), std::string::npos) << out;
  bird.Stop();
}

}  // namespace
}  // namespace sluice::bgp
