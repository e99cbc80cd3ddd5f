// The Loc-RIB on the RIS 76-peer capture against an oracle: sluice-replay --all-peers replays every
// peer of ris-2018-12-18-updates-76peers (61 of its 76 peers sent UPDATEs; the other 15 only
// changed session state and get a session that announces nothing) as its own eBGP session (IPv4 and
// IPv6 unicast over one IPv4 loopback session each) into real processes (sluice-finder, sluice-bgp,
// sluice-rib + sluice-fea with the dummy FIB); the final Loc-RIB read through bgp/1.0 must equal
// the best paths an oracle in this file computes from the capture on its own. No external daemon:
// label system (it lives here for tests/interop/pipeline_util.h). Skips without SLUICE_DATA_DIR or
// bgpdump. About 10-15 s.
//
// How Sluice sees the sessions (bgp/replay/replay_main.cc): the N-th peer of
// `sluice-replay --list-peers` connects from 127.0.0.(2+N) with BGP identifier 127.0.0.(2+N)
// and AS = the captured peer's AS (--local-as capture); no own AS is prepended, so the AS_PATH
// is the captured one; --next-hop-self makes NEXT_HOP 127.0.0.(2+N) and the IPv6 nexthop
// ::ffff:127.0.0.(2+N) (the RIB resolves both through static routes: equal IGP cost). The
// replay sends the captured UPDATEs in order and ignores the captured session state changes,
// so a peer's final announced state is the fold of its UPDATEs.
//
// The oracle reads the capture with bgpdump -m (an external decoder, not the project's), folds
// each peer's announcements and withdrawals per prefix, drops what Sluice must refuse — paths
// with AS 0 (RFC 7607: treat-as-withdraw, so they also withdraw the peer's earlier route), paths
// not starting with the peer's AS (enforce-first-as, on for eBGP: treat-as-withdraw too; a route
// server's paths) and paths containing Sluice's own AS (loop) — and picks the best path per prefix
// by RFC 4271 §9.1.2.2 restricted to what applies here: no LOCAL_PREF (stripped towards eBGP, 100
// for all), shortest AS_PATH (an AS_SET counts 1), lowest ORIGIN, lowest MED among routes from the
// same neighbouring AS (the first AS of the path; absent = 0), all external, equal IGP cost,
// lowest BGP identifier (= lowest session address, hence the lowest --list-peers index).
// Compared per prefix: the prefix sets, and the chosen peer, AS path and nexthop.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "ipc/types_convert.h"
#include "tests/bgp/test_data.h"
#include "tests/interop/pipeline_util.h"

namespace sluice::bgp::interop {
namespace {

namespace v1 = ::sluice::bgp::v1;
using sluice::testing::ChildProcess;
using sluice::testing::RunCommand;
using sluice::testing::WaitFor;

constexpr uint32_t kSluiceAs = 4200000001u;
constexpr char kCapture[] = "ris-2018-12-18-updates-76peers.mrt.gz";

double Since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// One peer's route for a prefix as the oracle holds it.
struct OracleRoute {
  int session = -1;  // --list-peers index: address 127.0.0.(2+session)
  std::string as_path;
  int path_length = 0;
  int origin = 2;  // IGP 0, EGP 1, INCOMPLETE 2
  uint32_t med = 0;
  uint32_t neighbour_as = 0;
};

// The session address of --list-peers index `i`.
std::string SessionAddress(int i) { return absl::StrCat("127.0.0.", 2 + i); }

struct Oracle {
  std::map<net::Prefix, OracleRoute> best;  // per prefix
  uint64_t announcements = 0, withdrawals = 0, as0 = 0, first_as = 0, loops = 0, unknown_peer = 0;
  uint64_t candidates = 0;  // final (peer, prefix) routes
  // Prefixes decided by each step: one candidate, AS_PATH length, ORIGIN, MED, BGP identifier.
  uint64_t single = 0, by_length = 0, by_origin = 0, by_med = 0, by_bgp_id = 0;
  std::map<int, uint64_t> routes_of;              // session → its final routes (the Adj-RIB-In)
  std::set<std::string> peers, state_only_peers;  // "ADDR ASn" with UPDATEs / state changes only
};

// Parses one bgpdump AS path ("1836 3356 {1,2}"): its length for §9.1.2.2 a, the neighbouring
// AS, and whether it holds AS 0 or `own`.
bool ParsePath(const std::string& text, OracleRoute* r, bool* has0, bool* has_own) {
  r->path_length = 0;
  r->neighbour_as = 0;
  *has0 = *has_own = false;
  bool first = true;
  for (absl::string_view tok : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    const bool set = tok.front() == '{';
    std::string body(set ? tok.substr(1, tok.size() - 2) : tok);
    for (absl::string_view a : absl::StrSplit(body, ',', absl::SkipEmpty())) {
      uint32_t as;
      if (!absl::SimpleAtoi(a, &as)) return false;
      *has0 |= as == 0;
      *has_own |= as == kSluiceAs;
      if (first && !set) r->neighbour_as = as;
    }
    first = false;
    ++r->path_length;
  }
  return true;
}

// "ADDR ASn" with the address in RFC 5952 form, as sluice-replay prints it (bgpdump writes
// 2001:df1:3100::182:54:128:2 where RFC 5952 §4.2.2 wants a single zero field written out).
std::string PeerName(const std::string& address, const std::string& as) {
  auto parsed = net::IPAddress::Parse(address);
  return (parsed.ok() ? parsed->ToString() : address) + " AS" + as;
}

// Folds the capture (bgpdump -m lines) into each peer's final routes, then picks the best.
Oracle ComputeOracle(const std::string& dump, const std::map<std::string, int>& session_of) {
  Oracle o;
  std::map<net::Prefix, std::map<int, OracleRoute>> rib;  // prefix → session → route
  std::istringstream in(dump);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f = absl::StrSplit(line, '|');
    if (f.size() >= 5 && f[2] == "STATE") o.state_only_peers.insert(PeerName(f[3], f[4]));
    if (f.size() < 6 || (f[2] != "A" && f[2] != "W")) continue;
    o.peers.insert(PeerName(f[3], f[4]));
    auto peer = session_of.find(PeerName(f[3], f[4]));
    if (peer == session_of.end()) {
      ++o.unknown_peer;
      continue;
    }
    auto prefix = net::Prefix::Parse(f[5]);
    if (!prefix.ok()) continue;
    const int s = peer->second;
    if (f[2] == "W") {
      ++o.withdrawals;
      rib[*prefix].erase(s);
      continue;
    }
    ++o.announcements;
    if (f.size() < 11) continue;
    OracleRoute r;
    r.session = s;
    r.as_path = f[6];
    bool has0 = false, own = false;
    if (!ParsePath(f[6], &r, &has0, &own)) continue;
    r.origin = f[7] == "IGP" ? 0 : f[7] == "EGP" ? 1 : 2;
    if (!absl::SimpleAtoi(f[10], &r.med)) r.med = 0;
    uint32_t peer_as = 0;
    const bool first_as_wrong = !absl::SimpleAtoi(f[4], &peer_as) || r.neighbour_as != peer_as;
    // Treat-as-withdraw (RFC 7607; enforce-first-as, RFC 4271 §6.3 / RFC 7606 §7.2) or an AS
    // loop: the earlier route goes too.
    if (has0 || first_as_wrong || own) {
      ++(has0 ? o.as0 : first_as_wrong ? o.first_as : o.loops);
      rib[*prefix].erase(s);
      continue;
    }
    rib[*prefix][s] = std::move(r);
  }
  for (const std::string& p : o.peers) o.state_only_peers.erase(p);
  for (auto& [prefix, routes] : rib) {
    if (routes.empty()) continue;
    o.candidates += routes.size();
    for (const auto& [session, r] : routes) ++o.routes_of[session];
    std::vector<const OracleRoute*> keep;
    for (const auto& [s, r] : routes) keep.push_back(&r);  // in session order
    auto keep_lowest = [&](auto key) {
      auto best = key(*keep[0]);
      for (const OracleRoute* r : keep) best = std::min(best, key(*r));
      std::erase_if(keep, [&](const OracleRoute* r) { return key(*r) != best; });
    };
    if (keep.size() == 1) ++o.single;
    keep_lowest([](const OracleRoute& r) { return r.path_length; });
    if (keep.size() == 1 && routes.size() > 1) ++o.by_length;
    const bool before_origin = keep.size() > 1;
    keep_lowest([](const OracleRoute& r) { return r.origin; });
    if (keep.size() == 1 && before_origin) ++o.by_origin;
    const bool before_med = keep.size() > 1;
    // MED: a route loses when another of the same neighbouring AS has a lower one.
    std::map<uint32_t, uint32_t> lowest;
    for (const OracleRoute* r : keep) {
      auto [it, inserted] = lowest.try_emplace(r->neighbour_as, r->med);
      if (!inserted) it->second = std::min(it->second, r->med);
    }
    std::erase_if(keep, [&](const OracleRoute* r) { return r->med != lowest[r->neighbour_as]; });
    if (keep.size() == 1 && before_med) ++o.by_med;
    if (keep.size() > 1) ++o.by_bgp_id;
    // All external, equal IGP cost; lowest BGP identifier = lowest session (the map's order).
    o.best[prefix] = *keep.front();
  }
  return o;
}

v1::AddPeerRequest Peer(const std::string& address, uint32_t as) {
  v1::AddPeerRequest r;
  sluice::ipc::ToProto(*net::IPAddress::Parse(address), r.mutable_address());
  r.set_remote_as(as);
  r.set_passive(true);
  r.set_connect_retry_s(1);
  r.set_idle_hold_s(0.5);
  r.set_ebgp_requires_policy(false);  // no policy: accept everything
  return r;
}

TEST(RisOracleTest, LocRibEqualsBestPathsOfTheCapture) {
  SLUICE_SKIP_WITHOUT_MRT_DATA();
  if (!sluice::testing::HaveProgram("bgpdump")) {
    GTEST_SKIP() << "bgpdump is not installed (Debian package bgpdump): it is the oracle's reader";
  }
  const auto started = std::chrono::steady_clock::now();
  const std::string capture = sluice::testing::MrtDir() + "/" + kCapture;

  // The sessions as sluice-replay will open them.
  auto listed = RunCommand(
      {BuildPath("bgp/replay/sluice-replay"), "--list-peers", "--mrt", capture, "--quiet"});
  ASSERT_TRUE(listed.ok()) << listed.status();
  std::map<std::string, int> session_of;  // "ADDR ASn" → index
  std::vector<uint32_t> session_as;
  for (absl::string_view l : absl::StrSplit(*listed, '\n', absl::SkipEmpty())) {
    std::vector<std::string> w = absl::StrSplit(l, ' ', absl::SkipEmpty());
    uint32_t index, as;
    ASSERT_GE(w.size(), 3u) << l;
    ASSERT_TRUE(absl::SimpleAtoi(w[0], &index) && w[2].rfind("AS", 0) == 0 &&
                absl::SimpleAtoi(w[2].substr(2), &as))
        << l;
    ASSERT_EQ(index, session_as.size());
    session_of[w[1] + " " + w[2]] = int(index);
    session_as.push_back(as);
  }

  auto dump = RunCommand({"bgpdump", "-m", capture});
  ASSERT_TRUE(dump.ok()) << dump.status();
  const Oracle oracle = ComputeOracle(*dump, session_of);
  // The capture's 76 peers, each its own session: those that sent UPDATEs, and those that only
  // changed session state (a session that announces nothing).
  ASSERT_EQ(oracle.peers.size() + oracle.state_only_peers.size(), 76u);
  std::set<std::string> replayed, captured = oracle.peers;
  captured.insert(oracle.state_only_peers.begin(), oracle.state_only_peers.end());
  for (const auto& [name, i] : session_of) replayed.insert(name);
  ASSERT_EQ(replayed, captured) << *listed;
  ASSERT_EQ(session_as.size(), 76u);
  std::printf("%zu sessions: the capture's 76 peers, %zu of which only changed state (e.g. %s)\n",
              session_as.size(), oracle.state_only_peers.size(),
              oracle.state_only_peers.empty() ? "-" : oracle.state_only_peers.begin()->c_str());
  size_t want4 = 0, want6 = 0;
  for (const auto& [p, r] : oracle.best) ++(p.is_v4() ? want4 : want6);
  std::printf(
      "oracle (bgpdump -m): %llu announcements, %llu withdrawals; refused: %llu "
      "with AS 0 (RFC 7607), %llu not starting with the peer's AS (enforce-first-as), %llu with "
      "AS%u (loop); %llu lines from peers not replayed; final: "
      "%llu routes, best paths for %zu IPv4 and %zu IPv6 prefixes (%.1f s)\n",
      (unsigned long long)oracle.announcements, (unsigned long long)oracle.withdrawals,
      (unsigned long long)oracle.as0, (unsigned long long)oracle.first_as,
      (unsigned long long)oracle.loops, kSluiceAs, (unsigned long long)oracle.unknown_peer,
      (unsigned long long)oracle.candidates, want4, want6, Since(started));
  std::printf(
      "oracle decisions: %llu prefixes with one route; decided by AS_PATH length %llu, ORIGIN "
      "%llu, MED %llu, lowest BGP identifier %llu\n",
      (unsigned long long)oracle.single, (unsigned long long)oracle.by_length,
      (unsigned long long)oracle.by_origin, (unsigned long long)oracle.by_med,
      (unsigned long long)oracle.by_bgp_id);
  ASSERT_GT(want4, 15000u);
  ASSERT_GT(want6, 100u);

  const int port = sluice::testing::FreeTcpPort();
  SluiceRouter sluice({"--listen", absl::StrCat("127.0.0.1:", port), "--local-as",
                       absl::StrCat(kSluiceAs), "--bgp-id", "10.255.0.1"});
  ASSERT_TRUE(sluice.ok()) << sluice.error();
  ASSERT_TRUE(sluice.real_rib()) << "this test needs sluice-rib and sluice-fea";
  // IPv6 nexthops are ::ffff:127.0.0.x: resolvable like the IPv4 ones (equal IGP cost).
  auto st6 = sluice.Cli({"call",
                         "finder://rib/rib/1.0/"
                         "add_route6?protocol:txt=static&network:ipv6net=::ffff:127.0.0.0/"
                         "104&ifname:txt=lo"});
  ASSERT_TRUE(st6.ok()) << st6.status();
  BgpClient& bgp = sluice.client();
  for (size_t i = 0; i < session_as.size(); ++i) {
    ASSERT_TRUE(bgp.AddPeer(Peer(SessionAddress(int(i)), session_as[i])).ok());
  }

  ChildProcess replay(
      {BuildPath("bgp/replay/sluice-replay"), "--connect", absl::StrCat("127.0.0.1:", port),
       "--all-peers", "--local-as", "capture", "--peer-as", absl::StrCat(kSluiceAs), "--mrt",
       capture, "--next-hop-self", "--linger", "--json", "--quiet"},
      sluice.rundir() + "/replay.out");
  auto sent = [&] {
    const std::string out = replay.Output();
    size_t n = 0;
    for (size_t at = out.find("\"event\":\"sent\""); at != std::string::npos;
         at = out.find("\"event\":\"sent\"", at + 1)) {
      ++n;
    }
    return n;
  };
  ASSERT_TRUE(WaitFor([&] { return sent() == session_as.size(); }, 300))
      << sent() << " of " << session_as.size() << " sessions sent everything: " << replay.Output()
      << sluice.Logs();
  const double sent_at = Since(started);

  // Prefix by prefix, until the Loc-RIB equals the oracle or stops changing (UPDATEs received
  // and the Loc-RIB the same for 5 s): sessions finish sending long before sluice-bgp has
  // processed everything, and a count of prefixes settles before their paths do.
  std::vector<std::string> diffs;
  size_t got_size = 0, missing = 0, extra = 0, different = 0, compared4 = 0, compared6 = 0;
  auto compare = [&]() -> absl::Status {
    std::map<net::Prefix, v1::Route> got;
    for (const char* family : {"ipv4", "ipv6"}) {
      auto routes = bgp.Routes(v1::LOC_RIB, "", family);
      if (!routes.ok()) return routes.status();
      for (v1::Route& r : *routes) {
        auto p = ipc::FromProto(r.network());
        if (!p.ok()) return p.status();
        got[*p] = std::move(r);
      }
    }
    diffs.clear();
    got_size = got.size();
    missing = extra = different = compared4 = compared6 = 0;
    for (const auto& [prefix, want] : oracle.best) {
      auto it = got.find(prefix);
      if (it == got.end()) {
        ++missing;
        diffs.push_back(absl::StrCat(prefix.ToString(), ": missing; oracle ",
                                     SessionAddress(want.session), " [", want.as_path, "]"));
        continue;
      }
      ++(prefix.is_v4() ? compared4 : compared6);
      const v1::Route& r = it->second;
      auto peer = ipc::FromProto(r.peer());
      auto nexthop = ipc::FromProto(r.nexthop());
      const std::string want_nexthop = prefix.is_v4()
                                           ? SessionAddress(want.session)
                                           : absl::StrCat("::ffff:", SessionAddress(want.session));
      const std::string have_peer = peer.ok() ? peer->ToString() : "?";
      const std::string have_nexthop = nexthop.ok() ? nexthop->ToString() : "?";
      if (have_peer != SessionAddress(want.session) || r.as_path() != want.as_path ||
          have_nexthop != want_nexthop) {
        ++different;
        diffs.push_back(absl::StrCat(
            prefix.ToString(), ": Sluice ", have_peer, " [", r.as_path(), "] via ", have_nexthop,
            "; oracle ", SessionAddress(want.session), " [", want.as_path, "] via ", want_nexthop));
      }
    }
    for (const auto& [prefix, r] : got) {
      if (oracle.best.contains(prefix)) continue;
      ++extra;
      diffs.push_back(absl::StrCat(prefix.ToString(), ": in the Loc-RIB [", r.as_path(),
                                   "], not in the oracle"));
    }
    return absl::OkStatus();
  };
  auto updates_in = [&] {
    uint64_t n = 0;
    for (size_t i = 0; i < session_as.size(); ++i) {
      auto info = bgp.Peer(SessionAddress(int(i)));
      if (info.ok()) n += info->updates_in();
    }
    return n;
  };
  std::string last_state;
  auto unchanged_since = std::chrono::steady_clock::now();
  const auto settle_start = std::chrono::steady_clock::now();
  int polls = 0;
  while (true) {
    ASSERT_TRUE(compare().ok());
    ++polls;
    if (diffs.empty()) break;
    const std::string state = absl::StrCat(updates_in(), " ", got_size, " ", diffs.size(), " ",
                                           diffs.front(), " ", diffs.back());
    if (state != last_state) {
      last_state = state;
      unchanged_since = std::chrono::steady_clock::now();
    } else if (Since(unchanged_since) >= 5) {
      break;
    }
    if (Since(settle_start) > 300) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  for (size_t i = 0; i < session_as.size(); ++i) {
    auto info = bgp.Peer(SessionAddress(int(i)));
    ASSERT_TRUE(info.ok()) << info.status();
    EXPECT_EQ(info->state(), "Established") << SessionAddress(int(i)) << ": " << info->last_error();
    EXPECT_EQ(info->established_transitions(), 1u) << SessionAddress(int(i)) << " flapped";
  }
  std::printf(
      "Loc-RIB: %zu prefixes; compared with the oracle: %zu IPv4, %zu IPv6; %zu missing, %zu "
      "extra, %zu with another path; all sent after %.1f s, settled after %d reads of the Loc-RIB, "
      "total %.1f s\n",
      got_size, compared4, compared6, missing, extra, different, sent_at, polls, Since(started));
  for (size_t i = 0; i < diffs.size() && i < 20; ++i) std::printf("  %s\n", diffs[i].c_str());
  EXPECT_TRUE(diffs.empty()) << diffs.size() << " differences (first 20 printed above)";

  // Every session's Adj-RIB-In holds its peer's final routes (not only the winners).
  uint64_t adj_in_total = 0;
  std::vector<std::string> adj_in_diffs;
  for (size_t i = 0; i < session_as.size(); ++i) {
    uint64_t n = 0;
    for (const char* family : {"ipv4", "ipv6"}) {
      auto routes = bgp.Routes(v1::ADJ_RIB_IN, SessionAddress(int(i)), family);
      ASSERT_TRUE(routes.ok()) << routes.status();
      n += routes->size();
    }
    adj_in_total += n;
    auto want = oracle.routes_of.find(int(i));
    const uint64_t w = want == oracle.routes_of.end() ? 0 : want->second;
    if (n != w) adj_in_diffs.push_back(absl::StrCat(SessionAddress(int(i)), ": ", n, " of ", w));
  }
  std::printf("Adj-RIB-In: %llu routes over %zu sessions (oracle %llu)\n",
              (unsigned long long)adj_in_total, session_as.size(),
              (unsigned long long)oracle.candidates);
  EXPECT_TRUE(adj_in_diffs.empty()) << absl::StrJoin(adj_in_diffs, "; ");
  replay.Stop(5);
}

}  // namespace
}  // namespace sluice::bgp::interop
