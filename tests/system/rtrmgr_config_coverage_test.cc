// The configuration's peer groups, timers, families, cluster-id and network statements, seen as
// a user would: sluice-rtrmgr runs a configuration whose only peer is declared in a group, and
// BIRD 2 (../shared/INTEROP.md) is that peer on loopback.
//   - the group's `family [ ipv4-unicast ]` is what the session negotiated (BIRD offers both);
//   - the group's `keepalive 4` is the negotiated keepalive (a third of the hold time would be
//     10);
//   - `cluster-id` is what the BGP process uses (get_local_config);
//   - `network 10.99.0.0/16 { med 7; community ...; }` is a route BIRD receives with those
//     attributes; a reload that drops it and adds another withdraws it and announces the new one.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ipc/methods/bgp.h"
#include "ipc/proto/bgp.pb.h"
#include "ipc/types_convert.h"
#include "tests/system/rtrmgr_processes.h"

namespace sluice::testing {
namespace {

namespace bgp_v1 = ::sluice::bgp::v1;

constexpr const char* kBirdAddress = "127.0.0.7";
// Debian's bird2 (programs are started without a search path).
constexpr const char* kBird = "/usr/sbin/bird";
constexpr const char* kBirdc = "/usr/sbin/birdc";

std::string RouterConfig(int port, int bird_port, const std::string& networks) {
  return absl::StrCat(R"(
fea { backend dummy; }
protocols {
    bgp {
        local-as 4200000001;
        bgp-id 10.255.0.1;
        cluster-id 10.255.0.99;
        listen 127.0.0.1 port )",
                      port, ";\n", networks, R"(
        group upstreams {
            as 4200000007;
            hold-time 30;
            keepalive 4;
            family [ ipv4-unicast ];
            multihop 2;
            connect-retry 1;
            peer )",
                      kBirdAddress, " { local-ip 127.0.0.1; port ", bird_port, R"(; }
        }
    }
}
)");
}

// BIRD as the group's peer: offers IPv4 and IPv6 unicast, a hold time of 60 s, accepts all.
class Bird {
 public:
  Bird(const std::string& dir, int port, int sluice_port) : dir_(dir) {
    const std::string conf = absl::StrCat(
        "router id 10.255.0.7;\nlog \"", dir_, "/bird.log\" { warning, error, fatal };\n",
        "protocol device { }\n", "ipv4 table igp4;\n",
        "protocol static igpstatic { ipv4 { table igp4; }; route 0.0.0.0/0 via \"lo\"; }\n",
        "protocol bgp sluice {\n  local ", kBirdAddress, " port ", port,
        " as 4200000007;\n  neighbor 127.0.0.1 port ", sluice_port,
        " as 4200000001;\n  multihop 2;\n  hold time 60;\n  keepalive time 20;\n",
        "  connect retry time 1;\n  connect delay time 1;\n  error wait time 1, 4;\n",
        "  ipv4 { import all; export none; igp table igp4; };\n",
        "  ipv6 { import all; export none; };\n}\n");
    const std::string path = dir_ + "/bird.conf";
    FILE* f = fopen(path.c_str(), "w");
    if (f != nullptr) {
      fputs(conf.c_str(), f);
      fclose(f);
    }
    bird_ =
        ChildProcess::Start({kBird, "-f", "-c", path, "-s", socket(), "-P", dir_ + "/bird.pid"});
  }
  ~Bird() {
    if (bird_) {
      bird_->Signal(SIGTERM);
      if (!bird_->Wait(5000)) bird_->Signal(SIGKILL);
    }
  }
  bool started() const { return bird_ != nullptr; }
  // `birdc show route for PREFIX all`: the route's lines ("" when BIRD has none).
  std::string Route(const std::string& prefix) {
    CommandResult r = RunCommand({kBirdc, "-s", socket(), "show", "route", prefix, "all"});
    if (r.exit_code != 0 || r.out.find(prefix) == std::string::npos) return "";
    return r.out;
  }
  std::string Logs() {
    CommandResult r = RunCommand({"/usr/bin/tail", "-n", "30", dir_ + "/bird.log"});
    return absl::StrCat(bird_ ? bird_->Output() : "", r.out);
  }

 private:
  std::string socket() const { return dir_ + "/bird.ctl"; }
  std::string dir_;
  std::unique_ptr<ChildProcess> bird_;
};

bool HaveBird() { return ::access(kBird, X_OK) == 0 && ::access(kBirdc, X_OK) == 0; }

TEST(RtrmgrConfigCoverage, GroupPeerTimersFamiliesClusterIdAndNetworksAgainstBird) {
  if (!HaveBird()) GTEST_SKIP() << "BIRD 2 is not installed (Debian package bird2)";
  RtrmgrProcess r;
  const int port = FreeTcpPort();
  const int bird_port = FreeTcpPort();
  const std::string first =
      "        network 10.99.0.0/16 { med 7; community [ 65000:99 ]; }\n"
      "        network 10.98.0.0/16;\n";
  const std::string conf = r.WriteConfig("coverage.conf", RouterConfig(port, bird_port, first));
  ASSERT_TRUE(r.Start(conf)) << r.Logs("rtrmgr");
  Bird bird(r.rundir(), bird_port, port);
  ASSERT_TRUE(bird.started());

  // The session, as `show bgp neighbor` reads it.
  bgp_v1::PeerRequest req;
  ipc::ToProto(*net::IPAddress::Parse(kBirdAddress), req.mutable_address());
  bgp_v1::PeerInfo peer;
  const bool established = Eventually(
      [&] {
        auto reply = r.client().Call("bgp", ipc::methods::bgp::kGetPeer, req);
        if (!reply.ok()) return false;
        peer = reply->peer();
        return peer.state() == "Established";
      },
      60);
  ASSERT_TRUE(established) << peer.DebugString() << bird.Logs() << r.Logs("bgp");
  EXPECT_EQ(std::vector<std::string>(peer.families().begin(), peer.families().end()),
            std::vector<std::string>{"ipv4"});
  EXPECT_EQ(peer.hold_time(), 30u);          // ours: BIRD offered 60
  EXPECT_EQ(peer.keepalive_time(), 4u);      // the group's; a third of the hold time would be 10
  EXPECT_EQ(peer.remote_as(), 4200000007u);  // the group's AS

  auto local =
      r.client().Call("bgp", ipc::methods::bgp::kGetLocalConfig, bgp_v1::GetLocalConfigRequest());
  ASSERT_TRUE(local.ok()) << local.status();
  EXPECT_EQ(ipc::FromProto(local->cluster_id()).ToString(), "10.255.0.99");

  // The originated routes reach BIRD with their attributes.
  std::string route;
  ASSERT_TRUE(Eventually([&] { return !(route = bird.Route("10.99.0.0/16")).empty(); }, 30))
      << bird.Logs() << r.Logs("bgp");
  EXPECT_NE(route.find("BGP.med: 7"), std::string::npos) << route;
  EXPECT_NE(route.find("(65000,99)"), std::string::npos) << route;
  EXPECT_NE(route.find("4200000001"), std::string::npos) << route;  // our AS in the path
  ASSERT_TRUE(Eventually([&] { return !bird.Route("10.98.0.0/16").empty(); }, 30));

  // show configuration prints the group, the cluster-id and the networks back.
  CommandResult shown = r.Sluice({"show", "configuration"});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("group upstreams {"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("cluster-id 10.255.0.99;"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("network 10.98.0.0/16;"), std::string::npos) << shown.out;

  // A reload: one network withdrawn, one added, the other kept; the session stays up.
  const std::string next = r.WriteConfig(
      "next.conf", RouterConfig(port, bird_port,
                                "        network 10.99.0.0/16 { med 7; community [ 65000:99 ]; }\n"
                                "        network 10.97.0.0/16 { local-pref 50; }\n"));
  CommandResult load = r.Sluice({"configure", "load", next});
  ASSERT_EQ(load.exit_code, 0) << load.out << load.err;
  EXPECT_TRUE(Eventually([&] { return bird.Route("10.98.0.0/16").empty(); }, 30))
      << bird.Route("10.98.0.0/16");
  EXPECT_TRUE(Eventually([&] { return !bird.Route("10.97.0.0/16").empty(); }, 30))
      << bird.Logs() << r.Logs("bgp");
  EXPECT_FALSE(bird.Route("10.99.0.0/16").empty());
  auto after = r.client().Call("bgp", ipc::methods::bgp::kGetPeer, req);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->peer().established_transitions(), 1u);
}

}  // namespace
}  // namespace sluice::testing
