// The router manager runs sluice-rpki from the configuration's rpki block, against stayrtr
// (Debian), a real RTR cache, on loopback: the cache is configured and in sync with its VRPs,
// sluice-bgp subscribes to them (started with --rpki), `sluice show rpki` and `show rpki vrps`
// show both; a cache added at a reload is added to the running sluice-rpki (no restart); a
// sluice-rpki killed with SIGKILL is restarted by the supervisor and gets its caches again.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "ipc/methods/rpki.h"
#include "rtrmgr/cli/queries.h"
#include "tests/system/child_process.h"
#include "tests/system/rov_daemons.h"
#include "tests/system/rtrmgr_processes.h"

namespace sluice {
namespace {

using testing::Eventually;
using testing::FreeTcpPort;
using ::testing::HasSubstr;
using testing::RtrmgrProcess;

// The configuration's form: caches with a port and a preference, and a BGP peer.
std::string Config(const std::string& caches, int bgp_port) {
  return absl::StrCat(R"(
fea { backend dummy; }
protocols {
    rpki {
)",
                      caches, R"(    }
    bgp {
        local-as 64500;
        bgp-id 10.255.0.1;
        listen 127.0.0.1 port )",
                      bgp_port, R"(;
        peer 127.0.0.2 { as 64501; local-ip 127.0.0.1; passive; }
    }
}
)");
}

class RtrmgrRpki : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::Stayrtr::Installed()) {
      GTEST_SKIP() << "stayrtr is not installed (Debian package stayrtr)";
    }
    vrps_ = r_.rundir() + "/vrps.json";
    std::ofstream(vrps_) << R"({"roas":[
        {"prefix":"192.0.2.0/24","maxLength":24,"asn":"AS64496"},
        {"prefix":"198.51.100.0/22","maxLength":24,"asn":"AS64497"},
        {"prefix":"2001:db8::/32","maxLength":48,"asn":"AS64498"}]})"
                         << "\n";
    stayrtr_ = std::make_unique<testing::Stayrtr>(vrps_);
    ASSERT_TRUE(stayrtr_->Start()) << stayrtr_->Output();
    port_ = stayrtr_->port();
  }
  std::string Cache(int port, int preference) {
    return absl::StrCat("        cache 127.0.0.1 { port ", port, "; preference ", preference,
                        "; }\n");
  }
  // rpki/1.0/get_status, or an empty reply when sluice-rpki does not answer.
  rpki::v1::GetStatusReply Status() {
    auto s = r_.client().Call("rpki", ipc::methods::rpki::kGetStatus, rpki::v1::GetStatusRequest());
    return s.ok() ? *s : rpki::v1::GetStatusReply();
  }
  // The cache on `port` is established with the file's 2 + 1 VRPs, and sluice-bgp subscribes.
  bool InSync(int port) {
    const rpki::v1::GetStatusReply s = Status();
    bool established = false;
    for (const auto& c : s.caches()) {
      established |= c.port() == static_cast<uint32_t>(port) && c.state() == "established";
    }
    return established && s.vrps_ipv4() == 2 && s.vrps_ipv6() == 1 && s.subscribers() == 1;
  }

  RtrmgrProcess r_;
  std::string vrps_;
  int port_ = 0;
  int bgp_port_ = FreeTcpPort();
  std::unique_ptr<testing::Stayrtr> stayrtr_;
};

TEST_F(RtrmgrRpki, CachesFromTheConfigurationSurviveReloadsAndRestarts) {
  const std::string conf = r_.WriteConfig("router.conf", Config(Cache(port_, 1), bgp_port_));
  ASSERT_TRUE(r_.Start(conf)) << r_.Logs("rtrmgr");
  ASSERT_TRUE(Eventually([&] { return InSync(port_); }))
      << Status().DebugString() << r_.Logs("rpki");

  // What an operator sees.
  const std::string shown = r_.Sluice({"show", "rpki"}).out;
  EXPECT_THAT(shown, HasSubstr("VRPs: 3 (IPv4 2, IPv6 1)")) << shown;
  EXPECT_THAT(shown, HasSubstr("established")) << shown;
  EXPECT_THAT(shown, HasSubstr("subscribers: 1")) << shown;
  const std::string covering = r_.Sluice({"show", "rpki", "vrps", "192.0.2.128/25"}).out;
  EXPECT_THAT(covering, HasSubstr("192.0.2.0/24")) << covering;
  EXPECT_THAT(covering, HasSubstr("AS64496")) << covering;
  EXPECT_THAT(covering, ::testing::Not(HasSubstr("198.51.100.0/22"))) << covering;
  EXPECT_THAT(covering, HasSubstr("1 VRPs")) << covering;
  EXPECT_THAT(r_.Sluice({"show", "rpki", "vrps", "--json"}).out,
              HasSubstr(R"({"prefix":"2001:db8::/32","max_length":48,"asn":64498})"));

  // A second cache (nothing listens there) at a reload: added to the running process.
  const int rpki_pid = r_.ChildPid("rpki");
  ASSERT_GT(rpki_pid, 0);
  const int unused = FreeTcpPort();
  const std::string next =
      r_.WriteConfig("next.conf", Config(Cache(port_, 1) + Cache(unused, 2), bgp_port_));
  const testing::CommandResult loaded = r_.Sluice({"configure", "load", next});
  ASSERT_EQ(loaded.exit_code, 0) << loaded.out << loaded.err;
  EXPECT_THAT(loaded.out, HasSubstr(absl::StrCat("rpki: cache 127.0.0.1 port ", unused, " added")));
  EXPECT_EQ(Status().caches_size(), 2);
  EXPECT_EQ(r_.ChildPid("rpki"), rpki_pid);

  // And removed again.
  const testing::CommandResult back = r_.Sluice({"configure", "load", conf});
  ASSERT_EQ(back.exit_code, 0) << back.out << back.err;
  EXPECT_EQ(Status().caches_size(), 1);
  EXPECT_EQ(r_.ChildPid("rpki"), rpki_pid);

  // SIGKILL: the supervisor starts a new sluice-rpki, which gets its cache again, and sluice-bgp
  // subscribes to it again.
  ASSERT_EQ(kill(rpki_pid, SIGKILL), 0);
  ASSERT_TRUE(Eventually([&] {
    const int pid = r_.ChildPid("rpki");
    return pid > 0 && pid != rpki_pid;
  })) << r_.Logs("rtrmgr");
  ASSERT_TRUE(Eventually([&] { return InSync(port_); }, 60))
      << Status().DebugString() << r_.Logs("rtrmgr");
  int restarts = 0;
  r_.ChildPid("rpki", &restarts);
  EXPECT_EQ(restarts, 1);
  EXPECT_EQ(Status().caches_size(), 1);
}

// An rpki block that comes at a reload: sluice-rpki starts with its cache; the running
// sluice-bgp, started without --rpki, is not restarted for it and says so.
TEST_F(RtrmgrRpki, ABlockThatComesAtAReloadStartsSluiceRpki) {
  const std::string bgp = absl::StrCat(R"(
fea { backend dummy; }
protocols {
    bgp { local-as 64500; bgp-id 10.255.0.1; listen 127.0.0.1 port )",
                                       bgp_port_, "; }\n}\n");
  ASSERT_TRUE(r_.Start(r_.WriteConfig("bgp.conf", bgp))) << r_.Logs("rtrmgr");
  const testing::CommandResult none = r_.Sluice({"show", "rpki"});
  EXPECT_NE(none.exit_code, 0);
  EXPECT_THAT(none.err, HasSubstr("sluice-rpki is not running")) << none.err;
  const int bgp_pid = r_.ChildPid("bgp");

  const testing::CommandResult loaded = r_.Sluice(
      {"configure", "load", r_.WriteConfig("router.conf", Config(Cache(port_, 1), bgp_port_))});
  ASSERT_EQ(loaded.exit_code, 0) << loaded.out << loaded.err;
  EXPECT_THAT(loaded.out + loaded.err, HasSubstr("from its next start")) << loaded.out;
  ASSERT_TRUE(Eventually([&] {
    const rpki::v1::GetStatusReply s = Status();
    return s.caches_size() == 1 && s.caches(0).state() == "established" && s.vrps_ipv4() == 2;
  })) << Status().DebugString();
  EXPECT_EQ(Status().subscribers(), 0u);
  EXPECT_EQ(r_.ChildPid("bgp"), bgp_pid);
}

}  // namespace
}  // namespace sluice
