// Route origin validation end to end, through the router manager, against stayrtr (Debian), a
// real RTR cache, on loopback:
//
//   sluice-replay upstream ──► sluice-bgp (import [ rov ]) ──► sluice-replay downstream
//   127.0.0.2, synthetic table     ▲  VRPs: stayrtr → sluice-rpki     127.0.0.3, --receive-only
//
// What an operator relies on: invalid routes never reach the downstream; when the cache's VRP
// file changes (stayrtr -refresh 1 re-reads it), only the routes the changed VRPs cover change
// at the downstream, soon, and nothing else is sent again; when the cache goes away, nothing
// changes (the VRPs stay until the expire interval, RFC 8210 §6).

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "ipc/methods/bgp.h"
#include "ipc/types_convert.h"
#include "rtrmgr/cli/queries.h"
#include "tests/system/child_process.h"
#include "tests/system/rov_daemons.h"
#include "tests/system/rtrmgr_processes.h"

namespace sluice {
namespace {

using testing::BuildPath;
using testing::ChildProcess;
using testing::Eventually;
using testing::FreeTcpPort;
using testing::RtrmgrProcess;

constexpr int kPrefixes = 3000;

std::string Config(int rtr_port, int bgp_port) {
  return absl::StrCat(R"(
interfaces {
    interface eth0 { address 10.1.0.1/24; }
}
fea { backend dummy; }
protocols {
    rpki { cache 127.0.0.1 { port )",
                      rtr_port, R"(; preference 1; } }
    bgp {
        local-as 4200000001;
        bgp-id 10.255.0.1;
        listen 127.0.0.1 port )",
                      bgp_port, R"(;
        peer 127.0.0.2 { as 4200000002; local-ip 127.0.0.1; passive; import [ rov ]; }
        peer 127.0.0.3 { as 4200000003; local-ip 127.0.0.1; passive; export [ all ]; }
    }
}
policy {
    policy-statement rov {
        term invalid { from { rpki invalid; } then { reject; } }
        term rest { then { accept; } }
    }
    policy-statement all { term all { then { accept; } } }
}
)");
}

struct Route {
  net::Prefix prefix;
  uint32_t origin = 0;
};

class RovSystem : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::Stayrtr::Installed()) {
      GTEST_SKIP() << "stayrtr is not installed (Debian package stayrtr)";
    }
    vrps_ = r_.rundir() + "/vrps.json";
    WriteVrps({});
    stayrtr_ = std::make_unique<testing::Stayrtr>(vrps_);
    ASSERT_TRUE(stayrtr_->Start()) << stayrtr_->Output();
    rtr_port_ = stayrtr_->port();
  }

  // The VRP file stayrtr serves, replaced at once (stayrtr re-reads it within a second).
  void WriteVrps(const std::vector<std::string>& roas) {
    std::string text = "{\"roas\":[";
    for (size_t i = 0; i < roas.size(); ++i) absl::StrAppend(&text, i ? "," : "", roas[i]);
    text += "]}\n";
    std::ofstream(vrps_ + ".new") << text;
    std::rename((vrps_ + ".new").c_str(), vrps_.c_str());
  }
  static std::string Roa(const net::Prefix& p, uint32_t asn) {
    return absl::StrCat(R"({"prefix":")", p.ToString(), R"(","maxLength":)", p.length(),
                        R"(,"asn":"AS)", asn, R"("})");
  }

  // One view of sluice-bgp: the upstream's Adj-RIB-In, or what the downstream has from us.
  std::map<net::Prefix, bgp::v1::Route> Routes(bgp::v1::RibView view, const char* peer) {
    std::map<net::Prefix, bgp::v1::Route> out;
    bgp::v1::ListRoutesRequest q;
    q.set_view(view);
    ipc::ToProto(*net::IPAddress::Parse(peer), q.mutable_peer());
    q.set_max_routes(100000);
    auto reply = r_.client().Call("bgp", ipc::methods::bgp::kListRoutes, q);
    if (!reply.ok()) return {};
    for (const auto& route : reply->routes()) out[*ipc::FromProto(route.network())] = route;
    return out;
  }
  std::set<net::Prefix> Advertised() {
    std::set<net::Prefix> out;
    for (const auto& [p, route] : Routes(bgp::v1::ADJ_RIB_OUT, "127.0.0.3")) out.insert(p);
    return out;
  }
  uint64_t UpdatesSent() {
    bgp::v1::PeerRequest q;
    ipc::ToProto(*net::IPAddress::Parse("127.0.0.3"), q.mutable_address());
    auto reply = r_.client().Call("bgp", ipc::methods::bgp::kGetPeer, q);
    uint64_t n = 0;
    if (reply.ok()) {
      for (const auto& f : reply->peer().family_counts()) n += f.updates_sent();
    }
    return n;
  }

  RtrmgrProcess r_;
  std::string vrps_;
  int rtr_port_ = 0;
  int bgp_port_ = FreeTcpPort();
  std::unique_ptr<testing::Stayrtr> stayrtr_;
};

TEST_F(RovSystem, InvalidRoutesStayOutAndAVrpChangeMovesOnlyTheRoutesItCovers) {
  const std::string conf = r_.WriteConfig("router.conf", Config(rtr_port_, bgp_port_));
  ASSERT_TRUE(r_.Start(conf)) << r_.Logs("rtrmgr");
  const std::string peer = absl::StrCat("127.0.0.1:", bgp_port_);
  auto upstream = ChildProcess::Start({BuildPath("bgp/replay/sluice-replay"), "--connect", peer,
                                       "--local-address", "127.0.0.2", "--local-as", "4200000002",
                                       "--prepend-own-as", "--next-hop-self", "--synthetic",
                                       absl::StrCat(kPrefixes), "--linger", "--quiet"});
  auto downstream = ChildProcess::Start({BuildPath("bgp/replay/sluice-replay"), "--connect", peer,
                                         "--local-address", "127.0.0.3", "--local-as", "4200000003",
                                         "--receive-only", "--linger", "--json", "--quiet"});
  ASSERT_TRUE(upstream && downstream);
  // With no VRPs every route is not-found and passes.
  ASSERT_TRUE(Eventually([&] { return Advertised().size() == kPrefixes; }, 120))
      << Advertised().size() << r_.Logs("bgp");
  std::vector<Route> table;  // the routes whose path ends in an AS_SEQUENCE
  for (const auto& [p, route] : Routes(bgp::v1::ADJ_RIB_IN, "127.0.0.2")) {
    EXPECT_EQ(route.rpki(), "not-found") << p.ToString();
    uint32_t origin = 0;
    const std::string& path = route.as_path();
    if (absl::SimpleAtoi(path.substr(path.rfind(' ') + 1), &origin) && origin < 4000000000u) {
      table.push_back({p, origin});
    }
  }
  ASSERT_GE(table.size(), 200u);

  // VRPs: the first 100 routes' prefixes for another AS (invalid), the next 100 for their own
  // (valid), the rest uncovered.
  std::vector<std::string> roas;
  for (int i = 0; i < 200; ++i) roas.push_back(Roa(table[i].prefix, table[i].origin + (i < 100)));
  WriteVrps(roas);
  ASSERT_TRUE(Eventually([&] { return Advertised().size() == kPrefixes - 100; }, 60))
      << Advertised().size() << r_.Logs("rpki") << r_.Logs("bgp");
  const std::map<net::Prefix, bgp::v1::Route> in = Routes(bgp::v1::ADJ_RIB_IN, "127.0.0.2");
  EXPECT_EQ(in.at(table[0].prefix).rpki(), "invalid");
  EXPECT_EQ(in.at(table[100].prefix).rpki(), "valid");
  EXPECT_EQ(in.at(table[200].prefix).rpki(), "not-found");
  const testing::CommandResult invalid = r_.Sluice({"show", "bgp", "routes", "rpki", "invalid"});
  EXPECT_THAT(invalid.out, ::testing::HasSubstr(table[0].prefix.ToString())) << invalid.out;
  EXPECT_THAT(invalid.out, ::testing::Not(::testing::HasSubstr(table[150].prefix.ToString())));

  // The change: 50 invalid routes become valid, 50 valid ones invalid.
  const uint64_t updates_before = UpdatesSent();
  for (int i = 0; i < 50; ++i) roas[i] = Roa(table[i].prefix, table[i].origin);
  for (int i = 100; i < 150; ++i) roas[i] = Roa(table[i].prefix, table[i].origin + 1);
  std::set<net::Prefix> want = Advertised();
  for (int i = 0; i < 50; ++i) want.insert(table[i].prefix);
  for (int i = 100; i < 150; ++i) want.erase(table[i].prefix);
  const auto written = std::chrono::steady_clock::now();
  WriteVrps(roas);
  ASSERT_TRUE(Eventually([&] { return Advertised() == want; }, 60)) << r_.Logs("bgp");
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - written)
                      .count();
  std::cout << "  the VRP change reached the downstream's Adj-RIB-Out in " << ms << " ms\n";

  // The cache goes: for 10 s nothing changes.
  stayrtr_.reset();
  for (int i = 0; i < 10; ++i) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    ASSERT_EQ(Advertised(), want) << "after " << i + 1 << " s without the cache";
  }
  const uint64_t updates_after = UpdatesSent();

  // At the downstream: the table, then the 100 invalid routes withdrawn, then exactly the 100
  // changed prefixes moved (50 back, 50 withdrawn) in at most 100 UPDATEs; nothing sent twice.
  downstream->Signal(SIGTERM);
  ASSERT_TRUE(downstream->Wait(10000).has_value());
  const std::string summary = downstream->Output();
  std::cout << "  UPDATEs for the change: " << updates_after - updates_before << "\n";
  EXPECT_LE(updates_after - updates_before, 100u);
  EXPECT_THAT(summary, ::testing::HasSubstr(absl::StrCat("\"prefixes_held\":", want.size())))
      << summary;
  EXPECT_THAT(summary, ::testing::HasSubstr(absl::StrCat("\"prefixes_received\":", kPrefixes + 50)))
      << summary;
  EXPECT_THAT(summary, ::testing::HasSubstr("\"withdrawals_received\":150")) << summary;
}

}  // namespace
}  // namespace sluice
