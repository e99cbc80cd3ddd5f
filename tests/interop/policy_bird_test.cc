// Policy with real processes and BIRD 2 on both sides of Sluice (sluice-finder, sluice-bgp,
// sluice-rib + sluice-fea with the dummy FIB, or the fake RIB when those are not built):
//
//   BIRD up 127.0.0.3 AS65010 ──► sluice-bgp 127.0.0.1 AS65001 ──► BIRD down 127.0.0.4 AS65020
//   (static routes, bogons too)    import: upstream-in              (import all)
//                                  export: downstream-out
//                                  redist:static (tags → communities)
//
// Policies go in through policy_backend/1.0/configure, as the router manager sends them:
//   - import from the upstream: bogons rejected, LOCAL_PREF 200 for a prefix list;
//   - export to the downstream: our AS prepended twice (three times in all with the eBGP
//     prepend) and community 65001:300 added;
//   - a bad policy: INVALID_ARGUMENT naming file, line and column; BIRD's view unchanged;
//   - static routes put in the RIB with tags 5 and 6 (rib/1.0/add_route4, protocol "static"),
//     redistributed through redist:static: BIRD sees them with 65001:5 / 65001:6;
//   - sluice-rib's origin:static policy tags an untagged static route, which then follows.
// sluice-bgp runs the shard stage (--threads 2) with PeerOut's encoding on its own thread
// (--encode-thread 1): what BIRD down holds is what those UPDATEs, encoded off the loop, said.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "ipc/proto/policy_backend.pb.h"
#include "ipc/types_convert.h"
#include "tests/interop/pipeline_util.h"

namespace sluice::bgp::interop {
namespace {

namespace v1 = ::sluice::bgp::v1;
namespace pb = ::sluice::policy_backend::v1;
using sluice::testing::ChildProcess;
using sluice::testing::RunCommand;
using sluice::testing::TempDir;
using sluice::testing::WaitFor;

const ipc::Method<pb::ConfigureRequest, pb::ConfigureReply> kConfigure{
    "policy_backend/1.0/configure"};
const ipc::Method<pb::ListFiltersRequest, pb::ListFiltersReply> kListFilters{
    "policy_backend/1.0/list_filters"};

constexpr uint32_t kSluiceAs = 65001, kUpAs = 65010, kDownAs = 65020;

// A BIRD 2 instance with one eBGP session to Sluice on 127.0.0.1.
class Bird {
 public:
  // `statics`: routes it originates and exports to Sluice (blackhole); empty: a pure receiver.
  Bird(const std::string& address, uint16_t port, uint32_t as, uint16_t sluice_port,
       const std::vector<std::string>& statics) {
    std::string routes;
    for (const std::string& s : statics) absl::StrAppend(&routes, "  route ", s, " blackhole;\n");
    const std::string conf = absl::StrCat(
        "router id 10.255.0.", address.substr(address.rfind('.') + 1), ";\nlog \"",
        dir_.Path("bird.log"), "\" { warning, error, fatal };\nprotocol device { }\n",
        "ipv4 table igp4;\n",
        "protocol static igpstatic { ipv4 { table igp4; }; route 0.0.0.0/0 via \"lo\"; }\n",
        statics.empty() ? ""
                        : absl::StrCat("protocol static originated {\n  ipv4;\n", routes, "}\n"),
        "protocol bgp sluice {\n  local ", address, " port ", port, " as ", as,
        ";\n  neighbor 127.0.0.1 port ", sluice_port, " as ", kSluiceAs,
        ";\n  multihop 2;\n  hold time 9;\n  keepalive time 3;\n",
        "  connect retry time 1;\n  connect delay time 1;\n  error wait time 1, 4;\n",
        "  ipv4 { igp table igp4; ",
        statics.empty() ? "import all; export none;"
                        : "import none; export where source = RTS_STATIC;",
        " };\n}\n");
    bird_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{"bird", "-f", "-c", dir_.File("bird.conf", conf), "-s",
                                 dir_.Path("bird.ctl"), "-P", dir_.Path("bird.pid")},
        dir_.Path("bird.out"));
    ok_ = WaitFor([&] { return Birdc({"show", "status"}).ok(); }, 20);
  }
  ~Bird() {
    if (bird_) bird_->Stop(5);
  }
  bool ok() const { return ok_; }

  absl::StatusOr<std::string> Birdc(std::vector<std::string> args) const {
    args.insert(args.begin(), {"birdc", "-s", dir_.Path("bird.ctl")});
    return RunCommand(args);
  }
  bool Established() {
    auto out = Birdc({"show", "protocols", "sluice"});
    return out.ok() && out->find("Established") != std::string::npos;
  }
  // Prefixes learnt from Sluice (the BGP protocol's routes in master4).
  std::set<net::Prefix> Prefixes() {
    std::set<net::Prefix> held;
    auto out = Birdc({"show", "route", "protocol", "sluice"});
    if (!out.ok()) return held;
    for (absl::string_view line : absl::StrSplit(*out, '\n')) {
      std::vector<absl::string_view> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
      if (f.empty()) continue;
      auto p = net::Prefix::Parse(std::string(f[0]));
      if (p.ok()) held.insert(*p);
    }
    return held;
  }
  // "BGP.as_path" and "BGP.community" of `prefix` ("" when absent).
  std::string Attribute(const std::string& prefix, const std::string& name) {
    auto out = Birdc({"show", "route", prefix, "all"});
    if (!out.ok()) return "";
    std::smatch m;
    const std::regex re(name + ": ?([^\n]*)");
    return std::regex_search(*out, m, re) ? std::string(m[1]) : "";
  }
  std::string Logs() const {
    auto log = RunCommand({"tail", "-n", "30", dir_.Path("bird.log")});
    return absl::StrCat(bird_ ? bird_->Output() : "", log.ok() ? *log : "");
  }

 private:
  TempDir dir_{"bird"};
  std::unique_ptr<ChildProcess> bird_;
  bool ok_ = false;
};

v1::AddPeerRequest Peer(const std::string& address, uint32_t as, uint16_t port) {
  v1::AddPeerRequest r;
  sluice::ipc::ToProto(*net::IPAddress::Parse(address), r.mutable_address());
  r.set_remote_as(as);
  r.set_port(port);
  r.set_hold_time(9);
  r.set_connect_retry_s(1);
  r.set_idle_hold_s(0.5);
  return r;  // RFC 8212 on: without a policy nothing passes
}

pb::ConfigureRequest Configure(const std::string& filter, const std::string& source,
                               const std::string& policy) {
  pb::ConfigureRequest r;
  r.set_filter(filter);
  r.set_source(source);
  r.add_policies(policy);
  r.set_file("sluice.conf");
  r.set_line(10);  // as if the policy block started on line 10 of the configuration
  return r;
}

constexpr const char* kImport = R"(prefix-list bogons {
    0.0.0.0/8 orlonger; 10.0.0.0/8 orlonger; 100.64.0.0/10 orlonger; 127.0.0.0/8 orlonger;
    169.254.0.0/16 orlonger; 172.16.0.0/12 orlonger; 192.168.0.0/16 orlonger;
    224.0.0.0/4 orlonger; 240.0.0.0/4 orlonger; 0.0.0.0/0 prefix-length 25-32;
}
prefix-list customers { 198.51.100.0/24 orlonger; 198.51.101.0/24 orlonger; }
policy-statement upstream-in {
    term no-bogons { from { prefix-list bogons; } then { reject; } }
    term customers { from { prefix-list customers; } then { local-pref 200; accept; } }
    term others { then { accept; } }
}
)";

constexpr const char* kExport = R"(policy-statement downstream-out {
    term all { then { as-path prepend local-as 2; community add [ 65001:300 ]; accept; } }
}
)";

constexpr const char* kRedist = R"(policy-statement static-to-bgp {
    term gold { from { protocol static; tag 5; } then { community add [ 65001:5 ]; accept; } }
    term silver { from { protocol static; tag 6; } then { community add [ 65001:6 ]; accept; } }
}
)";

// Whether process `pid` has a thread named `name` (/proc/PID/task/TID/comm).
bool HasThread(pid_t pid, const std::string& name) {
  std::error_code ec;
  for (const auto& task :
       std::filesystem::directory_iterator(absl::StrCat("/proc/", pid, "/task"), ec)) {
    std::ifstream comm(task.path() / "comm");
    std::string line;
    if (std::getline(comm, line) && line == name) return true;
  }
  return false;
}

TEST(PolicyBirdTest, ImportExportAndRedistributionPoliciesAsBirdSeesThem) {
  for (const char* p : {"bird", "birdc"}) {
    if (!sluice::testing::HaveProgram(p)) {
      GTEST_SKIP() << p << " is not installed (Debian package bird2)";
    }
  }
  const int port = sluice::testing::FreeTcpPort();
  SluiceRouter sluice({"--listen", absl::StrCat("127.0.0.1:", port), "--local-as",
                       absl::StrCat(kSluiceAs), "--bgp-id", "10.255.0.1", "--ipv4-only",
                       "--threads", "2", "--encode-thread", "1"});
  ASSERT_TRUE(sluice.ok()) << sluice.error();
  EXPECT_TRUE(HasThread(sluice.bgp().pid(), "bgp-encode"));
  BgpClient& bgp = sluice.client();

  // Policies first (banks may be configured before their peers), then the peers.
  ASSERT_TRUE(bgp.Call(kConfigure, Configure("import:127.0.0.3", kImport, "upstream-in")).ok());
  ASSERT_TRUE(bgp.Call(kConfigure, Configure("export:127.0.0.4", kExport, "downstream-out")).ok());
  const uint16_t up_port = uint16_t(sluice::testing::FreeTcpPort());
  const uint16_t down_port = uint16_t(sluice::testing::FreeTcpPort());
  ASSERT_TRUE(bgp.AddPeer(Peer("127.0.0.3", kUpAs, up_port)).ok());
  ASSERT_TRUE(bgp.AddPeer(Peer("127.0.0.4", kDownAs, down_port)).ok());

  const std::vector<std::string> offered = {
      "10.20.0.0/16",    "192.168.7.0/24",  "100.64.1.0/24",     "203.0.113.192/26",  // bogons
      "198.51.100.0/24", "198.51.101.0/24", "198.51.101.128/25",  // customers (/25: bogon)
      "203.0.113.0/24",  "192.0.2.0/24"};
  Bird up("127.0.0.3", up_port, kUpAs, uint16_t(port), offered);
  ASSERT_TRUE(up.ok()) << up.Logs();
  Bird down("127.0.0.4", down_port, kDownAs, uint16_t(port), {});
  ASSERT_TRUE(down.ok()) << down.Logs();

  auto P = [](const char* t) { return *net::Prefix::Parse(t); };
  const std::set<net::Prefix> want = {P("198.51.100.0/24"), P("198.51.101.0/24"),
                                      P("203.0.113.0/24"), P("192.0.2.0/24")};
  const bool arrived = WaitFor([&] { return down.Prefixes() == want; }, 60);
  ASSERT_TRUE(arrived) << "BIRD downstream holds " << down.Prefixes().size() << " prefixes\n"
                       << sluice.Logs() << up.Logs() << down.Logs();
  for (const net::Prefix& p : want) {
    const std::string prefix = p.ToString();
    EXPECT_EQ(down.Attribute(prefix, "BGP.as_path"), "65001 65001 65001 65010") << prefix;
    EXPECT_EQ(down.Attribute(prefix, "BGP.community"), "(65001,300)") << prefix;
  }
  std::printf("BIRD downstream: %zu prefixes, as_path \"%s\", community %s\n",
              down.Prefixes().size(), down.Attribute("203.0.113.0/24", "BGP.as_path").c_str(),
              down.Attribute("203.0.113.0/24", "BGP.community").c_str());

  // LOCAL_PREF 200 for the prefix list, in Sluice's Loc-RIB (not sent over eBGP).
  auto loc = bgp.Routes(v1::LOC_RIB);
  ASSERT_TRUE(loc.ok()) << loc.status();
  ASSERT_EQ(loc->size(), want.size());
  for (const v1::Route& r : *loc) {
    const net::Prefix p = *sluice::ipc::FromProto(r.network());
    const bool customer = p == P("198.51.100.0/24") || p == P("198.51.101.0/24");
    EXPECT_EQ(r.has_local_pref() && r.local_pref() == 200, customer) << p.ToString();
  }

  // A bad policy: refused with its location; the running one stays and BIRD's view with it.
  const std::string bad =
      "policy-statement downstream-out {\n    term all { then { as-path prepend local-as 2; "
      "community add [ 65001:300 ]; acept; } }\n}\n";
  auto refused = bgp.Call(kConfigure, Configure("export:127.0.0.4", bad, "downstream-out"));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("sluice.conf:11:"), std::string::npos)
      << refused.status().message();
  std::printf("bad policy refused: %s\n", std::string(refused.status().message()).c_str());
  auto filters = bgp.Call(kListFilters, pb::ListFiltersRequest());
  ASSERT_TRUE(filters.ok());
  EXPECT_EQ(filters->filters_size(), 2);
  sleep(2);  // anything a wrong swap would send has reached BIRD by now
  EXPECT_EQ(down.Prefixes(), want);
  EXPECT_EQ(down.Attribute("203.0.113.0/24", "BGP.as_path"), "65001 65001 65001 65010");

  // Redistribution: static routes with tags into BGP through redist:static.
  if (!sluice.real_rib()) {
    std::printf("redistribution part skipped: sluice-rib is not built on this branch\n");
    return;
  }
  ASSERT_TRUE(bgp.Call(kConfigure, Configure("redist:static", kRedist, "static-to-bgp")).ok());
  for (const char* route : {"network:ipv4net=198.18.5.0/24&nexthop:ipv4=127.0.0.1&tag:u32=5",
                            "network:ipv4net=198.18.6.0/24&nexthop:ipv4=127.0.0.1&tag:u32=6",
                            "network:ipv4net=198.18.7.0/24&nexthop:ipv4=127.0.0.1"}) {
    auto st = sluice.Cli(
        {"call", absl::StrCat("finder://rib/rib/1.0/add_route4?protocol:txt=static&", route)});
    ASSERT_TRUE(st.ok()) << st.status();
  }
  std::set<net::Prefix> with_statics = want;
  with_statics.insert(P("198.18.5.0/24"));
  with_statics.insert(P("198.18.6.0/24"));
  const bool redistributed = WaitFor([&] { return down.Prefixes() == with_statics; }, 30);
  ASSERT_TRUE(redistributed) << "BIRD downstream holds " << down.Prefixes().size() << " prefixes\n"
                             << sluice.Logs();
  EXPECT_EQ(down.Attribute("198.18.5.0/24", "BGP.community"), "(65001,5) (65001,300)");
  EXPECT_EQ(down.Attribute("198.18.6.0/24", "BGP.community"), "(65001,6) (65001,300)");
  EXPECT_EQ(down.Attribute("198.18.5.0/24", "BGP.as_path"), "65001 65001 65001");
  std::printf("redistributed: 198.18.5.0/24 community %s, 198.18.6.0/24 community %s\n",
              down.Attribute("198.18.5.0/24", "BGP.community").c_str(),
              down.Attribute("198.18.6.0/24", "BGP.community").c_str());

  // sluice-rib's own bank: origin:static tags the untagged 198.18.7.0/24 with 6 as it enters the
  // RIB (re-applied to the route already there); the redistribution then sends it on.
  auto tagged = bgp.Call(kConfigure,
                         Configure("origin:static",
                                   "policy-statement tag-statics {\n  term t { from { network4 "
                                   "198.18.7.0/24; } then { tag 6; accept; } }\n}\n",
                                   "tag-statics"),
                         "rib");
  ASSERT_TRUE(tagged.ok()) << tagged.status();
  with_statics.insert(P("198.18.7.0/24"));
  const bool retagged = WaitFor([&] { return down.Prefixes() == with_statics; }, 30);
  ASSERT_TRUE(retagged) << sluice.Logs();
  EXPECT_EQ(down.Attribute("198.18.7.0/24", "BGP.community"), "(65001,6) (65001,300)");
  // The RIB refuses what a RIB route cannot carry, at its line and column.
  auto rib_refused =
      bgp.Call(kConfigure,
               Configure("origin:static",
                         "policy-statement tag-statics {\n  term t { then { local-pref 5; } }\n}\n",
                         "tag-statics"),
               "rib");
  ASSERT_FALSE(rib_refused.ok());
  EXPECT_NE(rib_refused.status().message().find("sluice.conf:11:"), std::string::npos)
      << rib_refused.status().message();
  std::printf("RIB refused: %s\n", std::string(rib_refused.status().message()).c_str());

  // A static route deleted in the RIB leaves BIRD.
  auto st = sluice.Cli({"call",
                        "finder://rib/rib/1.0/delete_route4?protocol:txt=static&network:ipv4net="
                        "198.18.6.0/24"});
  ASSERT_TRUE(st.ok()) << st.status();
  with_statics.erase(P("198.18.6.0/24"));
  EXPECT_TRUE(WaitFor([&] { return down.Prefixes() == with_statics; }, 30));
}

}  // namespace
}  // namespace sluice::bgp::interop
