// Interop with BIRD 2 (Debian bird2): the session scenario over IPv4 and IPv6 with 4-octet ASes
// (session_daemon_util.h), and TCP MD5 (RFC 2385) with the right and a wrong password.
//
// BIRD on loopback (../shared/INTEROP.md): `multihop 2` (127/8 is not "directly connected"), an
// `igp table` holding a default route via lo so that loopback nexthops resolve, no kernel
// protocol. Short timers so that the test runs quickly: hold 9 s, connect retry 1 s, error wait
// 1-4 s.
#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/interop/session_daemon_util.h"
#ifdef SLUICE_HAVE_BGP_PROCESS
#include "tests/interop/session_process_util.h"
#endif

namespace sluice::bgp::interop {
namespace {

using sluice::testing::ChildProcess;
using sluice::testing::RunCommand;
using sluice::testing::TempDir;
using sluice::testing::WaitFor;

class Bird : public Daemon {
 public:
  explicit Bird(std::string md5_password = "", bool gtsm = false)
      : md5_(std::move(md5_password)), gtsm_(gtsm) {}
  std::string name() const override { return "BIRD 2"; }

  std::string Config(const Endpoints& e, const RouteSet& routes) const {
    std::string static4, static6;
    for (const auto& p : routes.v4) absl::StrAppend(&static4, "  route ", p, " blackhole;\n");
    for (const auto& p : routes.v6) absl::StrAppend(&static6, "  route ", p, " blackhole;\n");
    const std::string password =
        absl::StrCat(md5_.empty() ? "" : absl::StrCat("  password \"", md5_, "\";\n"),
                     gtsm_ ? "  ttl security on;\n" : "");
    // BIRD refuses to send a NEXT_HOP equal to the neighbor's address ("Invalid NEXT_HOP
    // attribute"): over ::1 both ends have the same address, so give it another one.
    auto bgp = [&](const char* name, const std::string& local, int port, const std::string& peer,
                   int peer_port, const char* family) {
      const std::string next_hop =
          family[3] == '6' ? "    next hop address 2001:db8:ffff::2;\n" : "";
      return absl::StrCat(
          "protocol bgp ", name, " {\n  local ", local, " port ", port, " as ", e.daemon_as,
          ";\n  neighbor ", peer, " port ", peer_port, " as ", kSluiceAs,
          ";\n  multihop 2;\n  hold time 9;\n  keepalive time 3;\n",
          "  connect retry time 1;\n  connect delay time 1;\n", "  error wait time 1, 4;\n",
          password, "  ", family,
          " {\n    import all;\n    export where source = RTS_STATIC;\n    igp table igp",
          std::string(1, family[3]), ";\n", next_hop, "  };\n}\n");
    };
    return absl::StrCat(
        "router id 10.255.0.2;\nlog \"", dir_.Path("bird.log"), "\" all;\nprotocol device { }\n",
        "ipv4 table igp4;\nipv6 table igp6;\n",
        "protocol static igpstatic4 { ipv4 { table igp4; }; route 0.0.0.0/0 via \"lo\"; }\n",
        "protocol static igpstatic6 { ipv6 { table igp6; }; route ::/0 via \"lo\"; }\n",
        "protocol static routes4 {\n  ipv4;\n", static4, "}\n",
        "protocol static routes6 {\n  ipv6;\n", static6, "}\n",
        bgp("sluice4", e.daemon_v4, e.daemon_port4, "127.0.0.1", e.sluice_port4, "ipv4"),
        bgp("sluice6", "::1", e.daemon_port6, "::1", e.sluice_port6, "ipv6"));
  }

  absl::Status Start(const Endpoints& e, const RouteSet& routes) override {
    const std::string conf = dir_.File("bird.conf", Config(e, routes));
    bird_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{"bird", "-f", "-c", conf, "-s", socket(), "-P",
                                 dir_.Path("bird.pid")},
        dir_.Path("bird.out"));
    if (!WaitFor(
            [&] {
              return RunCommand({"birdc", "-s", socket(), "show", "status"}).ok();
            },
            20)) {
      return absl::UnavailableError("BIRD did not start");
    }
    return absl::OkStatus();
  }
  absl::Status Withdraw(const Endpoints& e, const RouteSet& remaining,
                        const std::string&) override {
    dir_.File("bird.conf", Config(e, remaining));
    auto out = RunCommand({"birdc", "-s", socket(), "configure"});
    if (!out.ok()) return out.status();
    if (out->find("Reconfigured") == std::string::npos) {
      return absl::InternalError(absl::StrCat("birdc configure: ", *out));
    }
    return absl::OkStatus();
  }
  void StopForRestart() override { bird_->Kill(); }
  std::string Logs() const override {
    return absl::StrCat(bird_ ? bird_->Output() : "", Tail(dir_.Path("bird.log")));
  }
  std::string Protocols() {
    auto out = RunCommand({"birdc", "-s", socket(), "show", "protocols", "all", "sluice4"});
    return out.ok() ? *out : std::string(out.status().message());
  }

 private:
  std::string socket() const { return dir_.Path("bird.ctl"); }
  static std::string Tail(const std::string& path) {
    auto out = RunCommand({"tail", "-n", "40", path});
    return out.ok() ? *out : "";
  }

  std::string md5_;
  bool gtsm_;
  TempDir dir_{"bird"};
  std::unique_ptr<ChildProcess> bird_;
};

bool HaveBird() {
  return sluice::testing::HaveProgram("bird") && sluice::testing::HaveProgram("birdc");
}

TEST(SessionBirdTest, Ipv4AndIpv6FourOctetAsRoutesWithdrawalsAndRestart) {
  if (!HaveBird()) GTEST_SKIP() << "BIRD 2 is not installed (Debian package bird2)";
  Bird bird;
  RunScenario(bird, "127.0.0.41", 4200000041u, /*ipv6=*/true, 41);
}

// The same scenario with sluice-finder and sluice-bgp as processes, checked through bgp/1.0.
#ifdef SLUICE_HAVE_BGP_PROCESS
TEST(SessionBirdTest, ThroughSluiceBgpProcessAndBgpRpc) {
  if (!HaveBird()) GTEST_SKIP() << "BIRD 2 is not installed (Debian package bird2)";
  Bird bird;
  RunProcessScenario(bird, "127.0.0.51", 4200000051u, /*ipv6=*/true, 51);
}
#endif

// One IPv4 session between Sluice and `bird` (at 127.0.0.N), set up by `tweak`.
struct OneSession {
  OneSession(Bird& bird, int n, const std::function<void(PeerConfig&)>& tweak) {
    e.daemon_v4 = absl::StrCat("127.0.0.", n);
    e.daemon_port4 = uint16_t(sluice::testing::FreeTcpPort());
    e.daemon_port6 = uint16_t(sluice::testing::FreeTcpPort());
    e.daemon_as = 4200000000u + n;
    e.sluice_port4 = s.port4;
    e.sluice_port6 = s.port6;
    route = absl::StrCat("10.", n, ".1.0/24");
    const absl::Status started = bird.Start(e, RouteSet{{route}, {}});
    EXPECT_TRUE(started.ok()) << started;
    PeerConfig c;
    c.address = testing::Addr(e.daemon_v4);
    c.port = e.daemon_port4;
    c.remote_as = e.daemon_as;
    c.local_address = testing::Addr("127.0.0.1");
    c.hold_time_s = 9;
    c.connect_retry_s = 1;
    tweak(c);
    EXPECT_TRUE(s.manager.AddPeer(c).ok());
  }
  bool Up() { return s.Holds(e.daemon_v4, {route}); }

  SluiceSide s;
  Endpoints e;
  std::string route;
};

// RFC 2385: BIRD and Sluice share a password → Established; a wrong password → no session (the
// kernel drops the unsigned or wrongly signed segments: no message ever arrives).
TEST(SessionBirdTest, Md5PasswordEstablishesAndAWrongOneDoesNot) {
  if (!HaveBird()) GTEST_SKIP() << "BIRD 2 is not installed (Debian package bird2)";
  for (const bool right : {true, false}) {
    SCOPED_TRACE(right ? "right password" : "wrong password");
    Bird bird("sluice-and-bird");
    OneSession one(bird, 42, [&](PeerConfig& c) {
      c.md5_password = right ? "sluice-and-bird" : "not-the-password";
    });
    SluiceSide& s = one.s;
    if (right) {
      ASSERT_TRUE(s.RunUntil([&] { return one.Up(); }, 30))
          << s.Describe(one.e.daemon_v4) << bird.Logs();
      std::printf("MD5: Established with BIRD with the shared password\n");
    } else {
      // Both sides keep trying for 5 s (several connect retries each): nothing gets through.
      s.RunUntil([] { return false; }, 5);
      const PeerStatus st = s.Status(one.e.daemon_v4);
      EXPECT_EQ(st.counters.messages_in, 0u) << st.ToString();
      EXPECT_EQ(st.counters.established_transitions, 0u);
      EXPECT_NE(st.state, FsmState::kEstablished);
      EXPECT_GE(st.counters.connect_attempts, 3u);
      EXPECT_EQ(bird.Protocols().find("Established"), std::string::npos) << bird.Protocols();
      std::printf("MD5: wrong password, no session after %llu connection attempts (%s)\n",
                  (unsigned long long)st.counters.connect_attempts, st.last_error.c_str());
    }
  }
}

// RFC 5082: with GTSM on both sides (BIRD `ttl security on`, Sluice gtsm_hops 1) the session
// establishes (loopback keeps TTL 255); with GTSM on BIRD's side only, Sluice's packets (TTL 64)
// are dropped by BIRD's kernel and no session comes up.
TEST(SessionBirdTest, GtsmOnBothSidesEstablishesAndOnOneSideDoesNot) {
  if (!HaveBird()) GTEST_SKIP() << "BIRD 2 is not installed (Debian package bird2)";
  for (const bool ours : {true, false}) {
    SCOPED_TRACE(ours ? "GTSM on both sides" : "GTSM on BIRD's side only");
    Bird bird("", /*gtsm=*/true);
    OneSession one(bird, 47, [&](PeerConfig& c) { c.gtsm_hops = ours ? 1 : 0; });
    SluiceSide& s = one.s;
    if (ours) {
      ASSERT_TRUE(s.RunUntil([&] { return one.Up(); }, 30))
          << s.Describe(one.e.daemon_v4) << bird.Logs();
      std::printf("GTSM: Established with BIRD (ttl security on, gtsm_hops 1)\n");
    } else {
      // BIRD drops every segment with TTL < 254 once it has set the minimum on the accepted
      // socket. Our OPEN may slip through just before that (so our side may even see BIRD's OPEN
      // and KEEPALIVE), but our KEEPALIVE never does: BIRD stays short of Established and sends
      // no route.
      s.RunUntil([] { return false; }, 4);
      const PeerStatus st = s.Status(one.e.daemon_v4);
      EXPECT_TRUE(s.rib(one.e.daemon_v4)->routes.empty()) << st.ToString();
      EXPECT_EQ(st.counters.updates_in, 0u) << st.ToString();
      EXPECT_EQ(bird.Protocols().find("Established"), std::string::npos) << bird.Protocols();
      std::printf(
          "GTSM: BIRD with ttl security and Sluice without: BIRD never Established, no "
          "route (our side: %s)\n",
          st.ToString().c_str());
    }
  }
}

}  // namespace
}  // namespace sluice::bgp::interop
