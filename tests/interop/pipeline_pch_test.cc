// The BGP pipeline with real processes: sluice-replay feeds the PCH full table into Sluice
// (sluice-finder, sluice-bgp, and the RIB — sluice-rib with sluice-fea's dummy FIB once built,
// else the fake RIB of tests/bgp/process_fake_rib.h in this process), which has a BIRD 2 and a
// GoBGP downstream.
//
//   sluice-replay 127.0.0.3 AS4200000002 ──► sluice-bgp 127.0.0.1 AS4200000001 ─┬─► BIRD 127.0.0.4
//   AS65000 (own AS prepended, NEXT_HOP self)                                          └─► GoBGP
//   127.0.0.5 AS4200000005
//
// Every session has hold time 9 s. What each downstream must hold, computed from the capture:
//   - Sluice accepts the final table (577,703 prefixes) minus the 4 routes with AS 0 in their
//     AS_PATH (RFC 7607: treat-as-withdraw in Sluice's UPDATE decoder);
//   - BIRD (AS 65000) additionally refuses the 83 paths that contain AS 65000 (AS_PATH loop);
//   - GoBGP 3.10 treats loopback NEXT_HOPs as invalid (../shared/INTEROP.md): Sluice sends it the
//     documentation address 203.0.113.1 (add_peer next_hop4) and it accepts everything else.
// Both see the AS path with Sluice's AS prepended once ("4200000001 4200000002 <captured>").
// The RIB holds the Loc-RIB's prefixes (and with the real processes, the FIB the RIB's).
// Then the upstream session goes down: every route leaves BIRD, GoBGP, the RIB (and the FIB);
// it comes back: every route returns. Throughout, no session flaps.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "bgp/replay/replay_feed.h"
#include "ipc/types_convert.h"
#include "tests/bgp/test_data.h"
#include "tests/interop/pipeline_util.h"

namespace sluice::bgp::interop {
namespace {

namespace v1 = ::sluice::bgp::v1;

// Milliseconds since midnight of BIRD's "[DATE ]HH:MM:SS.mmm"; -1e9 when unreadable.
long ClockMs(const std::string& text) {
  int h = 0, m = 0, sec = 0, ms = 0;
  const size_t space = text.rfind(' ');
  const std::string clock = space == std::string::npos ? text : text.substr(space + 1);
  if (std::sscanf(clock.c_str(), "%d:%d:%d.%d", &h, &m, &sec, &ms) < 3) return -1000000000;
  return ((h * 60L + m) * 60L + sec) * 1000L + ms;
}
using sluice::testing::ChildProcess;
using sluice::testing::WaitFor;

constexpr uint32_t kSluiceAs = 4200000001u;
constexpr uint32_t kReplayAs = 4200000002u;
constexpr uint32_t kBirdAs = 65000;
constexpr uint32_t kGoBgpAs = 4200000005u;
constexpr char kGoBgpNextHop[] = "203.0.113.1";

double Since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::string Diff(const std::set<net::Prefix>& want, const std::set<net::Prefix>& have) {
  std::vector<net::Prefix> missing, extra;
  std::set_difference(want.begin(), want.end(), have.begin(), have.end(),
                      std::back_inserter(missing));
  std::set_difference(have.begin(), have.end(), want.begin(), want.end(),
                      std::back_inserter(extra));
  return absl::StrCat(missing.size(), " missing (e.g. ",
                      missing.empty() ? "-" : missing.front().ToString(), "), ", extra.size(),
                      " extra (e.g. ", extra.empty() ? "-" : extra.front().ToString(), ")");
}

struct Expected {
  std::set<net::Prefix> accepted, bird, gobgp;
  std::vector<net::Prefix> as0, bird_loops;
  std::map<net::Prefix, std::string> paths;  // captured AS paths of plain AS_SEQUENCE routes
};

Expected Compute(const std::string& capture) {
  Expected e;
  AttributeStore store;
  auto c = replay::LoadCapture(capture, &store);
  EXPECT_TRUE(c.ok()) << c.status();
  if (!c.ok()) return e;
  for (const replay::Route& r : c->peers[0].Table()) {
    const net::Prefix& p = r.nlri.prefix;
    const AsPath* path = r.attributes->as_path ? &*r.attributes->as_path : nullptr;
    if (path && path->Contains(0)) {
      e.as0.push_back(p);
      continue;
    }
    if (path && (path->Contains(kSluiceAs) || path->Contains(kReplayAs))) continue;
    e.accepted.insert(p);
    if (path && path->Contains(kBirdAs)) {
      e.bird_loops.push_back(p);
    } else {
      e.bird.insert(p);
    }
    if (!path || !path->Contains(kGoBgpAs)) e.gobgp.insert(p);
    bool plain = path != nullptr && path->segment_count() <= 1;
    if (plain && path) {
      for (AsPath::Segment s : path->segments()) plain = s.type == SegmentType::kSequence;
    }
    if (plain && e.paths.size() < 100000 && p.length() >= 8) e.paths[p] = path->ToString();
  }
  return e;
}

v1::AddPeerRequest Peer(const std::string& address, uint32_t as, uint16_t port) {
  v1::AddPeerRequest r;
  sluice::ipc::ToProto(*net::IPAddress::Parse(address), r.mutable_address());
  r.set_remote_as(as);
  r.set_port(port);
  r.set_hold_time(9);
  r.set_connect_retry_s(1);
  r.set_idle_hold_s(0.5);
  r.set_ebgp_requires_policy(false);  // no policy assigned: send and accept everything
  return r;
}

TEST(PipelinePchTest, FullTableReachesBirdAndGoBgpLeavesAndReturns) {
  SLUICE_SKIP_WITHOUT_MRT_DATA();
  for (const char* p : {"bird", "birdc", "gobgpd", "gobgp"}) {
    if (!sluice::testing::HaveProgram(p)) {
      GTEST_SKIP() << p << " is not installed (Debian packages bird2, gobgpd)";
    }
  }
  const std::string capture =
      sluice::testing::MrtDir() + "/pch-2015-10-23-fulltable-updates.mrt.gz";
  const Expected expected = Compute(capture);
  ASSERT_EQ(expected.accepted.size() + expected.as0.size(), 577703u);
  ASSERT_EQ(expected.as0.size(), 4u);
  ASSERT_EQ(expected.bird_loops.size(), 83u);

  const int port = sluice::testing::FreeTcpPort();
  SluiceRouter sluice({"--listen", absl::StrCat("127.0.0.1:", port), "--local-as",
                       absl::StrCat(kSluiceAs), "--bgp-id", "10.255.0.1", "--ipv4-only"});
  ASSERT_TRUE(sluice.ok()) << sluice.error();
  std::printf("RIB: %s\n", sluice.real_rib()
                               ? "sluice-rib + sluice-fea (dummy FIB)"
                               : "the fake RIB (sluice-rib not built on this branch)");
  BgpClient& bgp = sluice.client();

  // Downstream daemons, and the peers on Sluice's side.
  const PeerEndpoint bird_end{"127.0.0.4", uint16_t(sluice::testing::FreeTcpPort()), kBirdAs,
                              uint16_t(port), kSluiceAs};
  const PeerEndpoint gobgp_end{"127.0.0.5", uint16_t(sluice::testing::FreeTcpPort()), kGoBgpAs,
                               uint16_t(port), kSluiceAs};
  v1::AddPeerRequest up = Peer("127.0.0.3", kReplayAs, 0);
  up.set_passive(true);
  ASSERT_TRUE(bgp.AddPeer(up).ok());
  ASSERT_TRUE(bgp.AddPeer(Peer(bird_end.address, kBirdAs, bird_end.port)).ok());
  v1::AddPeerRequest go = Peer(gobgp_end.address, kGoBgpAs, gobgp_end.port);
  sluice::ipc::ToProto(*net::IPv4Address::Parse(kGoBgpNextHop), go.mutable_next_hop4());
  ASSERT_TRUE(bgp.AddPeer(go).ok());
  std::string error;
  std::unique_ptr<DaemonPeer> bird = StartBird(bird_end, &error);
  ASSERT_NE(bird, nullptr) << error;
  std::unique_ptr<DaemonPeer> gobgp = StartGoBgp(gobgp_end, &error);
  ASSERT_NE(gobgp, nullptr) << error;
  auto established = [&](const std::string& peer) {
    auto info = bgp.Peer(peer);
    return info.ok() && info->state() == "Established";
  };
  ASSERT_TRUE(WaitFor(
      [&] {
        return established(bird_end.address) && established(gobgp_end.address) &&
               bird->Established() && gobgp->Established();
      },
      60))
      << bird->Logs() << gobgp->Logs() << sluice.Logs();
  const std::string bird_since = bird->SessionSince(), gobgp_since = gobgp->SessionSince();

  // The upstream: sluice-replay with the PCH table.
  auto start_replay = [&](const std::string& output) {
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{
            BuildPath("bgp/replay/sluice-replay"), "--connect", absl::StrCat("127.0.0.1:", port),
            "--local-address", "127.0.0.3", "--local-as", absl::StrCat(kReplayAs), "--peer-as",
            absl::StrCat(kSluiceAs), "--mrt", capture, "--prepend-own-as", "--next-hop-self",
            "--hold-time", "9", "--linger", "--json", "--quiet"},
        output);
  };
  auto load_and_check = [&](const char* what, std::unique_ptr<ChildProcess>& replay) {
    const auto start = std::chrono::steady_clock::now();
    replay = start_replay(sluice.rundir() + "/replay-" + what + ".out");
    ASSERT_TRUE(WaitFor(
        [&] { return replay->Output().find("\"event\":\"sent\"") != std::string::npos; }, 180))
        << "sluice-replay did not finish sending: " << replay->Output() << sluice.Logs();
    int64_t at_bird = -1, at_gobgp = -1;
    const bool converged = WaitFor(
        [&] {
          at_bird = bird->RouteCount();
          at_gobgp = gobgp->RouteCount();
          return at_bird == int64_t(expected.bird.size()) &&
                 at_gobgp == int64_t(expected.gobgp.size());
        },
        400);
    std::printf("%s: BIRD holds %lld, GoBGP %lld after %.1f s\n", what, (long long)at_bird,
                (long long)at_gobgp, Since(start));
    ASSERT_TRUE(converged) << "expected BIRD " << expected.bird.size() << ", GoBGP "
                           << expected.gobgp.size() << "\n"
                           << bird->Logs() << gobgp->Logs() << sluice.Logs();

    // Sluice's own views through bgp/1.0, the RIB (and the FIB).
    auto adj_in = bgp.Prefixes(v1::ADJ_RIB_IN, "127.0.0.3");
    ASSERT_TRUE(adj_in.ok()) << adj_in.status();
    EXPECT_EQ(*adj_in, expected.accepted) << "Adj-RIB-In: " << Diff(expected.accepted, *adj_in);
    auto loc = bgp.Prefixes(v1::LOC_RIB);
    ASSERT_TRUE(loc.ok()) << loc.status();
    EXPECT_EQ(*loc, expected.accepted) << "Loc-RIB: " << Diff(expected.accepted, *loc);
    // The RIB's count first (one cheap call a poll), then every prefix once.
    absl::StatusOr<uint64_t> rib_count = uint64_t{0};
    EXPECT_TRUE(WaitFor(
        [&] {
          rib_count = sluice.RibRouteCount();
          return rib_count.ok() && *rib_count == loc->size();
        },
        300))
        << "the RIB holds "
        << (rib_count.ok() ? absl::StrCat(*rib_count) : rib_count.status().ToString())
        << " routes from BGP, the Loc-RIB " << loc->size();
    auto rib_listed = sluice.RibPrefixes();
    ASSERT_TRUE(rib_listed.ok()) << rib_listed.status();
    const std::set<net::Prefix> rib = *std::move(rib_listed);
    EXPECT_EQ(rib, *loc) << "RIB: " << Diff(*loc, rib);
    auto fib = sluice.FibPrefixes();
    ASSERT_TRUE(fib.ok()) << fib.status();
    if (*fib) {
      EXPECT_TRUE(WaitFor(
          [&] {
            auto f = sluice.FibPrefixes();
            return f.ok() && *f && (*f)->size() >= rib.size();
          },
          300));
      fib = sluice.FibPrefixes();
      ASSERT_TRUE(fib.ok()) << fib.status();
      std::set<net::Prefix> fib_bgp;
      for (const net::Prefix& p : **fib) {
        if (rib.contains(p)) fib_bgp.insert(p);
      }
      EXPECT_EQ(fib_bgp, rib) << "FIB: " << Diff(rib, fib_bgp);
    }
    auto out_bird = bgp.Prefixes(v1::ADJ_RIB_OUT, bird_end.address);
    ASSERT_TRUE(out_bird.ok());
    EXPECT_EQ(out_bird->size(), expected.accepted.size());
    std::printf(
        "%s: Sluice Adj-RIB-In %zu, Loc-RIB %zu, RIB %zu%s, Adj-RIB-Out to BIRD %zu; refused by "
        "Sluice: %zu routes with AS 0 (RFC 7607, e.g. %s); refused by BIRD: %zu AS_PATH loops "
        "through AS%u (e.g. %s)\n",
        what, adj_in->size(), loc->size(), rib.size(),
        *fib ? absl::StrCat(", FIB ", (*fib)->size()).c_str() : "", out_bird->size(),
        expected.as0.size(), expected.as0.front().ToString().c_str(), expected.bird_loops.size(),
        kBirdAs, expected.bird_loops.front().ToString().c_str());
  };

  std::unique_ptr<ChildProcess> replay;
  load_and_check("first load", replay);
  if (HasFatalFailure()) return;

  // Prefix by prefix at both daemons.
  auto at_bird = bird->Prefixes();
  ASSERT_TRUE(at_bird.ok()) << at_bird.status();
  EXPECT_EQ(*at_bird, expected.bird) << "BIRD: " << Diff(expected.bird, *at_bird);
  auto at_gobgp = gobgp->Prefixes();
  ASSERT_TRUE(at_gobgp.ok()) << at_gobgp.status();
  EXPECT_EQ(*at_gobgp, expected.gobgp) << "GoBGP: " << Diff(expected.gobgp, *at_gobgp);

  // The AS path is prepended once, on a sample of prefixes.
  int checked = 0;
  const size_t step = expected.paths.size() / 20 + 1;
  size_t i = 0;
  for (const auto& [prefix, path] : expected.paths) {
    if (i++ % step != 0) continue;
    const std::string want = absl::StrCat(kSluiceAs, " ", kReplayAs, " ", path);
    if (expected.bird.contains(prefix)) {
      auto p = bird->AsPath(prefix.ToString());
      ASSERT_TRUE(p.ok()) << p.status();
      EXPECT_EQ(*p, want) << prefix.ToString() << " at BIRD";
      EXPECT_EQ(bird->NextHop(prefix.ToString()).value_or("?"), "127.0.0.1") << prefix.ToString();
    }
    auto g = gobgp->AsPath(prefix.ToString());
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(*g, want) << prefix.ToString() << " at GoBGP";
    EXPECT_EQ(gobgp->NextHop(prefix.ToString()).value_or("?"), kGoBgpNextHop) << prefix.ToString();
    ++checked;
  }
  std::printf("AS paths checked at BIRD and GoBGP on %d prefixes: \"%u %u <captured path>\"\n",
              checked, kSluiceAs, kReplayAs);

  // No session flapped during the load; hold time 9 s everywhere.
  auto stable = [&](const char* when, int upstream_transitions) {
    for (const std::string& peer :
         {std::string("127.0.0.3"), bird_end.address, gobgp_end.address}) {
      auto info = bgp.Peer(peer);
      ASSERT_TRUE(info.ok()) << info.status();
      EXPECT_EQ(info->state(), "Established") << peer << " " << when;
      EXPECT_EQ(info->hold_time(), 9u) << peer;
      EXPECT_EQ(info->established_transitions(),
                uint64_t(peer == "127.0.0.3" ? upstream_transitions : 1))
          << peer << " flapped " << when << ": " << info->last_error();
      std::printf(
          "%s: peer %s Established since %.1f s, %llu transitions, %llu KEEPALIVEs in, "
          "%llu out, %llu UPDATEs in, %llu out\n",
          when, peer.c_str(), info->uptime_s(), (unsigned long long)info->established_transitions(),
          (unsigned long long)info->keepalives_in(), (unsigned long long)info->keepalives_out(),
          (unsigned long long)info->updates_in(), (unsigned long long)info->updates_out());
    }
    // BIRD renders its monotonic "since" in wall-clock time at each read, so the text may move by
    // a millisecond; a flap moves it by seconds (BIRD waits before it connects again).
    const std::string since_now = bird->SessionSince();
    ASSERT_FALSE(since_now.empty()) << "BIRD's session is down " << when;
    EXPECT_LT(std::abs(ClockMs(since_now) - ClockMs(bird_since)), 1000)
        << "BIRD's session flapped " << when << ": up since " << since_now << ", was "
        << bird_since;
    EXPECT_EQ(gobgp->SessionSince().empty(), false) << "GoBGP's session is down " << when;
  };
  stable("after the load", 1);
  std::printf("peak RSS: sluice-bgp %llu kB, BIRD %llu kB, GoBGP %llu kB\n",
              (unsigned long long)sluice.BgpPeakRssKb(), (unsigned long long)bird->PeakRssKb(),
              (unsigned long long)gobgp->PeakRssKb());

  // The upstream goes down: everything is withdrawn downstream and from the RIB (and FIB).
  auto start = std::chrono::steady_clock::now();
  replay->Stop();
  const bool gone = WaitFor(
      [&] {
        auto rib = sluice.RibRouteCount();
        if (!rib.ok() || *rib != 0) return false;
        auto fib = sluice.FibPrefixes();
        bool fib_empty = fib.ok() && (!*fib || std::none_of((*fib)->begin(), (*fib)->end(),
                                                            [&](const net::Prefix& p) {
                                                              return expected.accepted.contains(p);
                                                            }));
        return bird->RouteCount() == 0 && gobgp->RouteCount() == 0 && fib_empty;
      },
      400);
  std::printf("upstream down: BIRD %lld, GoBGP %lld, RIB %zu routes left after %.1f s\n",
              (long long)bird->RouteCount(), (long long)gobgp->RouteCount(),
              (size_t)sluice.RibRouteCount().value_or(0), Since(start));
  ASSERT_TRUE(gone) << sluice.Logs();
  EXPECT_TRUE(bgp.Prefixes(v1::LOC_RIB)->empty());

  // It comes back: every route returns.
  load_and_check("after the upstream came back", replay);
  if (HasFatalFailure()) return;
  stable("after the second load", 2);
  replay->Stop();
}

}  // namespace
}  // namespace sluice::bgp::interop
