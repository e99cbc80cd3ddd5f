// The router manager with real processes: sluice-rtrmgr starts sluice-finder, sluice-fea (dummy),
// sluice-rib, sluice-bgp and sluice-static (the static routes) from a configuration file,
// configures them, restarts a crashed one, applies changed files as deltas (SIGHUP and `sluice
// configure load`), refuses bad files with FILE:LINE:COL (starting nothing, or changing nothing),
// and stops everything on SIGTERM.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "tests/bgp/fake_peer.h"
#include "tests/bgp/session_test_util.h"
#include "tests/system/rtrmgr_processes.h"

namespace sluice::testing {
namespace {

using ::testing::HasSubstr;

net::Prefix P(const char* text) { return *net::Prefix::Parse(text); }

std::string Config(int port, const std::string& statics) {
  return absl::StrCat(R"(
interfaces {
    interface eth0 { address 10.1.0.1/24; }
}
fea { backend dummy; }
rib { admin-distance { static 5; } }
protocols {
    static {
)",
                      statics, R"(
    }
    bgp {
        local-as 4200000001;
        bgp-id 10.255.0.1;
        listen 127.0.0.1 port )",
                      port, R"(;
        peer 127.0.0.2 { as 4200000002; local-ip 127.0.0.1; passive; hold-time 90; }
    }
}
)");
}

constexpr char kStatic1[] = "        route 192.0.2.0/24 { next-hop 10.1.0.254; }";
constexpr char kStatic2[] = "        route 198.51.100.0/24 { next-hop 10.1.0.254; metric 7; }";

TEST(RtrmgrSystem, StartsConfiguresRestartsACrashedRibAndStopsCleanly) {
  RtrmgrProcess r;
  const std::string conf = r.WriteConfig("router.conf", Config(FreeTcpPort(), kStatic1));
  ASSERT_TRUE(r.Start(conf)) << r.Logs("rtrmgr") << r.process()->Output();

  // Each process took its part: the interface (FEA), the static route (sluice-static) with its
  // distance (RIB, then the FIB), the peer (BGP).
  CommandResult interfaces = r.Sluice({"show", "interfaces"});
  EXPECT_THAT(interfaces.out, HasSubstr("10.1.0.1/24")) << interfaces.err;
  CommandResult route = r.Sluice({"show", "route", "192.0.2.0/24"});
  EXPECT_THAT(route.out, HasSubstr("static")) << route.err;
  EXPECT_THAT(route.out, HasSubstr(" 5 ")) << "admin distance 5: " << route.out;
  ASSERT_TRUE(Eventually([&] {
    auto fib = r.FibPrefixes("static");
    return fib && fib->count(P("192.0.2.0/24"));
  }));
  CommandResult peers = r.Sluice({"show", "bgp", "peers"});
  EXPECT_THAT(peers.out, HasSubstr("127.0.0.2")) << peers.err;
  EXPECT_THAT(peers.out, HasSubstr("4200000002"));

  // kill -9 the RIB: the router manager starts it again and configures it; the FEA keeps its FIB
  // and the new RIB re-sends the same content.
  int restarts = -1;
  const int rib = r.ChildPid("rib", &restarts);
  ASSERT_GT(rib, 0);
  EXPECT_EQ(restarts, 0);
  kill(rib, SIGKILL);
  ASSERT_TRUE(Eventually([&] {
    int n = 0;
    const int pid = r.ChildPid("rib", &n);
    return pid > 0 && pid != rib && n == 1;
  })) << r.Logs("rtrmgr");
  ASSERT_TRUE(Eventually([&] {
    auto in_rib = r.RibPrefixes("static");
    return in_rib && in_rib->count(P("192.0.2.0/24"));
  })) << r.Logs("rtrmgr")
      << r.Logs("rib");
  auto fib = r.FibPrefixes("static");
  ASSERT_TRUE(fib);
  EXPECT_EQ(*fib, std::set<net::Prefix>{P("192.0.2.0/24")});

  // SIGTERM: everything stops, the router manager exits 0.
  std::vector<int> pids;
  for (const char* name : {"finder", "fea", "rib", "bgp", "static_routes"}) {
    pids.push_back(r.ChildPid(name));
    EXPECT_GT(pids.back(), 0) << name;
  }
  EXPECT_EQ(r.Stop(), 0);
  for (int pid : pids) {
    EXPECT_TRUE(Eventually([&] { return kill(pid, 0) != 0; }, 10)) << "pid " << pid << " runs";
  }
}

// A fake peer's malformed UPDATE as an operator sees it: the peer's input settings from the file
// reach sluice-bgp, and after an attribute overrun that hides an MP_UNREACH_NLRI (RFC 7606 §3(j):
// session reset) `sluice show bgp peers` counts the reset by cause, in text and --json, and the
// IPv6 routes it meant to withdraw are gone.
TEST(RtrmgrSystem, MalformedUpdateIsCountedInThePeerListAndItsRoutesGo) {
  RtrmgrProcess r;
  const int port = FreeTcpPort();
  const std::string conf = r.WriteConfig("router.conf", absl::StrCat(R"(
fea { backend dummy; }
protocols {
    bgp {
        local-as 4200000001;
        bgp-id 10.255.0.1;
        listen 127.0.0.1 port )",
                                                                     port, R"(;
        peer 127.0.0.2 {
            as 4200000002; local-ip 127.0.0.1; passive;
            max-prefix 1000 accepted; adj-rib-in-limit 5000;
        }
    }
}
)"));
  ASSERT_TRUE(r.Start(conf)) << r.Logs("rtrmgr") << r.process()->Output();
  CommandResult json = r.Sluice({"show", "bgp", "peers", "--json"});
  EXPECT_THAT(json.out, HasSubstr("\"max_prefix_count\":\"accepted\"")) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"adj_rib_in_limit\":5000"));
  EXPECT_THAT(json.out, HasSubstr("\"enforce_first_as\":true"));

  bgp::testing::FakePeer peer("127.0.0.2", "127.0.0.1", uint16_t(port));
  ASSERT_TRUE(peer.connected());
  ASSERT_TRUE(peer.Handshake(4200000002u, 0x0aff0002)) << r.Logs("bgp");
  bgp::SessionParams params;
  params.families.Add(bgp::kIPv6Unicast);
  peer.Write(
      bgp::testing::Announce({"2001:db8:1::/48", "2001:db8:2::/48"}, 4200000002u, "::1", params));
  auto adj_rib_in_v6 = [&] {
    return r.Sluice({"show", "bgp", "routes", "peer", "127.0.0.2", "in", "ipv6"}).out;
  };
  ASSERT_TRUE(Eventually([&] {
    return adj_rib_in_v6().find("2001:db8:2::/48") != std::string::npos;
  })) << adj_rib_in_v6()
      << r.Logs("bgp");

  // ORIGIN; an AS_PATH whose length (200) overruns the list; the MP_UNREACH_NLRI it hides.
  peer.Write(bgp::testing::RawUpdate(
      {0x40, 1, 1,  0,    0x40, 2,    200,  2, 1, 0xfa, 0x56, 0xea, 0x02, 0x80, 15, 17, 0,
       2,    1, 48, 0x20, 0x01, 0x0d, 0xb8, 0, 1, 48,   0x20, 0x01, 0x0d, 0xb8, 0,  2}));
  std::optional<bgp::Notification> n = peer.AwaitNotification(10);
  ASSERT_TRUE(n.has_value()) << r.Logs("bgp");
  EXPECT_EQ(n->code, 3);     // UPDATE Message Error
  EXPECT_EQ(n->subcode, 5);  // Attribute Length Error
  ASSERT_TRUE(Eventually([&] {
    return r.Sluice({"show", "bgp", "peers"}).out.find("session resets update-error 1") !=
           std::string::npos;
  })) << r.Sluice({"show", "bgp", "peers"}).out;
  json = r.Sluice({"show", "bgp", "peers", "--json"});
  EXPECT_THAT(json.out, HasSubstr("\"session_resets\":{\"update-error\":1}"));
  EXPECT_EQ(adj_rib_in_v6().find("2001:db8:"), std::string::npos) << adj_rib_in_v6();
  EXPECT_THAT(r.Logs("bgp"), HasSubstr("malformed UPDATE (session-reset, RFC 7606)"));
}

TEST(RtrmgrSystem, ConfigurationErrorsNameFileLineColumnAndStartNothing) {
  struct Case {
    const char* what;
    const char* text;
    const char* where;  // ":LINE:COL:"
  } cases[] = {
      {"syntax: missing ;", "fea {\n    backend dummy\n}\n", ":3:1:"},
      {"unknown keyword", "fea {\n    bakend dummy;\n}\n", ":2:5:"},
      {"bad value", "fea { backend dummy; }\nprotocols { bgp { local-as 0; bgp-id 10.0.0.1; } }\n",
       ":2:28:"},
      {"duplicate peer",
       "protocols { bgp { local-as 65000; bgp-id 10.0.0.1;\n"
       "  peer 127.0.0.2 { as 65001; }\n  peer 127.0.0.2 { as 65001; } } }\n",
       ":3:8:"},
      {"unknown policy",
       "protocols { bgp { local-as 65000; bgp-id 10.0.0.1;\n"
       "  peer 127.0.0.2 { as 65001; import [ nothing-here ]; } } }\n",
       ":2:39:"},
  };
  for (const Case& c : cases) {
    RtrmgrProcess r;
    const std::string conf = r.WriteConfig("bad.conf", c.text);
    const CommandResult run = RunCommand(
        {BuildPath("rtrmgr/process/sluice-rtrmgr"), "--config", conf, "--rundir", r.rundir()});
    EXPECT_EQ(run.exit_code, 1) << c.what;
    EXPECT_THAT(run.err, HasSubstr(conf + c.where)) << c.what << ": " << run.err;
    const CommandResult check =
        RunCommand({BuildPath("rtrmgr/process/sluice-rtrmgr"), "--config", conf, "--check"});
    EXPECT_EQ(check.exit_code, 1) << c.what;
    EXPECT_EQ(check.err, run.err) << c.what;
    // Nothing started: no Finder socket, no process log.
    EXPECT_FALSE(std::filesystem::exists(r.rundir() + "/finder.sock")) << c.what;
    EXPECT_FALSE(std::filesystem::exists(r.rundir() + "/finder.log")) << c.what;
  }
}

TEST(RtrmgrSystem, ChangedFilesApplyAsDeltasAndABadFileChangesNothing) {
  RtrmgrProcess r;
  const int port = FreeTcpPort();
  const std::string conf = r.WriteConfig("router.conf", Config(port, kStatic1));
  ASSERT_TRUE(r.Start(conf)) << r.Logs("rtrmgr");
  ASSERT_TRUE(Eventually([&] {
    auto fib = r.FibPrefixes("static");
    return fib && fib->count(P("192.0.2.0/24"));
  }));

  // A bad file: the error names FILE:LINE:COL; the running configuration stays.
  const std::string bad = r.WriteConfig("bad.conf", "fea {\n    backend dummy\n}\n");
  CommandResult refused = r.Sluice({"configure", "load", bad});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr(bad + ":3:1:"));
  EXPECT_THAT(refused.err, HasSubstr("running configuration stays"));
  auto rib = r.RibPrefixes("static");
  ASSERT_TRUE(rib);
  EXPECT_EQ(*rib, std::set<net::Prefix>{P("192.0.2.0/24")});

  // `sluice configure load`: one route replaced by another, a new peer; the delta is printed.
  const std::string next = r.WriteConfig("next.conf", Config(port, kStatic2));
  CommandResult loaded = r.Sluice({"configure", "load", next});
  EXPECT_EQ(loaded.exit_code, 0) << loaded.err;
  EXPECT_THAT(loaded.out, HasSubstr("198.51.100.0/24"));
  ASSERT_TRUE(Eventually([&] {
    auto fib = r.FibPrefixes("static");
    return fib && *fib == std::set<net::Prefix>{P("198.51.100.0/24")};
  })) << r.Logs("rtrmgr");

  // SIGHUP re-reads the file the router manager runs (now next.conf): both routes.
  r.WriteConfig("next.conf", Config(port, absl::StrCat(kStatic1, "\n", kStatic2)));
  r.process()->Signal(SIGHUP);
  ASSERT_TRUE(Eventually([&] {
    auto fib = r.FibPrefixes("static");
    return fib && fib->size() == 2;
  })) << r.Logs("rtrmgr");
  // Nothing was restarted for it.
  int restarts = -1;
  for (const char* name : {"fea", "rib", "bgp"}) {
    r.ChildPid(name, &restarts);
    EXPECT_EQ(restarts, 0) << name;
  }
}

// The main job's shape, smaller: a sluice-replay upstream feeds a synthetic table; kill -9 of
// sluice-rib in the middle of the run; the router manager restarts it, BGP re-feeds it, and the
// FIB ends with the same content as the Loc-RIB.
TEST(RtrmgrSystem, KillingTheRibMidRunEndsWithTheSameFib) {
  RtrmgrProcess r;
  const int port = FreeTcpPort();
  const std::string conf = r.WriteConfig("router.conf", Config(port, ""));
  ASSERT_TRUE(r.Start(conf)) << r.Logs("rtrmgr");
  constexpr int kPrefixes = 200000;
  auto replay = ChildProcess::Start(
      {BuildPath("bgp/replay/sluice-replay"), "--connect", absl::StrCat("127.0.0.1:", port),
       "--local-address", "127.0.0.2", "--local-as", "4200000002", "--prepend-own-as",
       "--next-hop-self", "--synthetic", absl::StrCat(kPrefixes), "--linger", "--quiet"});
  ASSERT_TRUE(replay);
  // Mid-run: some routes are in the FIB, not all.
  ASSERT_TRUE(Eventually(
      [&] {
        auto fib = r.FibPrefixes("ebgp");
        return fib && fib->size() > 1000;
      },
      60))
      << r.Logs("bgp");
  const int rib = r.ChildPid("rib");
  ASSERT_GT(rib, 0);
  kill(rib, SIGKILL);
  // The RIB comes back, BGP re-feeds it; the FIB converges on the RIB's winners, which hold
  // every Loc-RIB prefix (the synthetic table's 127.0.0.0/8 loses to the connected route).
  std::set<net::Prefix> loc, fib_all, rib_all;
  std::string last;  // what the last check saw, for the failure message
  ASSERT_TRUE(Eventually(
      [&] {
        int n = 0;
        const int pid = r.ChildPid("rib", &n);
        auto l = r.LocRibPrefixes();
        auto fib = r.FibPrefixes("");
        auto in_rib = r.RibPrefixes("");
        last = absl::StrCat("RIB pid ", pid, " after ", n, " restarts; Loc-RIB ",
                            l ? absl::StrCat(l->size()) : "unread", ", RIB ",
                            in_rib ? absl::StrCat(in_rib->size()) : "unread", ", FIB ",
                            fib ? absl::StrCat(fib->size()) : "unread");
        if (pid <= 0 || n != 1) return false;
        if (!l || !fib || !in_rib || l->size() != kPrefixes) return false;
        loc = *l;
        fib_all = *fib;
        rib_all = *in_rib;
        const bool rib_holds_loc =
            std::includes(rib_all.begin(), rib_all.end(), loc.begin(), loc.end());
        absl::StrAppend(&last, "; FIB ", fib_all == rib_all ? "=" : "!=", " RIB; RIB ",
                        rib_holds_loc ? "holds" : "lacks some of", " the Loc-RIB");
        return fib_all == rib_all && rib_holds_loc;
      },
      180))
      << last << "\n"
      << r.Logs("rtrmgr") << r.Logs("rib") << r.Logs("bgp");
  auto ebgp_rib = r.RibPrefixes("ebgp");
  auto ebgp_fib = r.FibPrefixes("ebgp");
  ASSERT_TRUE(ebgp_rib && ebgp_fib);
  EXPECT_EQ(*ebgp_rib, *ebgp_fib);
  EXPECT_GE(ebgp_fib->size(), kPrefixes - 1u);
  replay->Signal(SIGTERM);
  replay->Wait(10000);
}

}  // namespace
}  // namespace sluice::testing
