// BGP graceful restart (RFC 4724, RFC 8538) with Sluice as the helper and BIRD 2 as the
// restarting speaker, real processes on loopback:
//
//   BIRD (upstream) 127.0.0.5 ──► sluice-bgp 127.0.0.1 ──► BIRD (downstream) 127.0.0.4
//   10 static routes, `graceful restart on`    GR helper      counts what it receives
//
// SIGKILL the upstream BIRD: Sluice keeps its 10 routes, stale — in its Loc-RIB and towards the
// downstream BIRD, whose count is sampled and never drops — and `sluice show bgp peers` says so.
//   - BIRD comes back with -R (F bit set) and only 9 routes: the 10th is withdrawn once BIRD has
//     sent End-of-RIB; the other 9 never left the downstream (same routes, same BIRD timestamps).
//   - BIRD comes back without -R (F = 0): Sluice flushes its stale routes at once (RFC 4724 §4.2)
//     and learns them again.
//   - BIRD does not come back: every route goes after its restart time (5 s here).
// Skips with a message when BIRD is not installed.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "ipc/types_convert.h"
#include "tests/interop/frr_peer.h"
#include "tests/interop/pipeline_util.h"

namespace sluice::bgp::interop {
namespace {

namespace v1 = ::sluice::bgp::v1;
using sluice::testing::ChildProcess;
using sluice::testing::RunCommand;
using sluice::testing::TempDir;
using sluice::testing::WaitFor;

constexpr uint32_t kSluiceAs = 4200000001u;
constexpr uint32_t kUpstreamAs = 4200000005u;
constexpr uint32_t kDownstreamAs = 4200000004u;
constexpr int kRoutes = 10;
constexpr int kRestartTime = 5;  // BIRD's advertised restart time, seconds

// The upstream BIRD: `routes` static routes 198.18.I.0/24 exported to Sluice, graceful restart
// on with a short restart time.
class UpstreamBird {
 public:
  UpstreamBird(int sluice_port, int port) : sluice_port_(sluice_port), port_(port) {}
  ~UpstreamBird() {
    if (bird_) bird_->Kill();
  }

  absl::Status Start(int routes, bool recovery) {
    std::string statics;
    for (int i = 0; i < routes; ++i) {
      absl::StrAppend(&statics, "  route 198.18.", i, ".0/24 via \"lo\";\n");
    }
    const std::string conf =
        absl::StrCat("router id 10.255.0.5;\nlog \"", dir_.Path("bird.log"), "\" all;\n",
                     "protocol device { }\n", "protocol static upstream { ipv4; \n", statics, "}\n",
                     "protocol bgp sluice {\n  local 127.0.0.5 port ", port_, " as ", kUpstreamAs,
                     ";\n  neighbor 127.0.0.1 port ", sluice_port_, " as ", kSluiceAs,
                     ";\n  multihop 2;\n  hold time 9;\n  keepalive time 3;\n",
                     "  connect retry time 1;\n  connect delay time 1;\n  error wait time 1, 4;\n",
                     "  graceful restart on;\n  graceful restart time ", kRestartTime, ";\n",
                     "  ipv4 { import none; export all; next hop self; };\n}\n");
    std::vector<std::string> argv = {"bird", "-f",     "-c", dir_.File("bird.conf", conf),
                                     "-s",   socket(), "-P", dir_.Path("bird.pid")};
    if (recovery) argv.push_back("-R");
    bird_ = std::make_unique<ChildProcess>(argv, dir_.Path(absl::StrCat("bird", ++runs_, ".out")));
    if (!WaitFor(
            [&] {
              return RunCommand({"birdc", "-s", socket(), "show", "status"}).ok();
            },
            20)) {
      return absl::UnavailableError("BIRD did not start: " + Logs());
    }
    return absl::OkStatus();
  }
  void Kill() {
    if (bird_) bird_->Kill();
    bird_.reset();
  }
  std::string Logs() const {
    auto log = RunCommand({"tail", "-n", "30", dir_.Path("bird.log")});
    return absl::StrCat(bird_ ? bird_->Output() : "", log.ok() ? *log : "");
  }

 private:
  std::string socket() const { return dir_.Path("bird.ctl"); }
  int sluice_port_, port_;
  int runs_ = 0;
  TempDir dir_{"bird-up"};
  std::unique_ptr<ChildProcess> bird_;
};

v1::AddPeerRequest Peer(const std::string& address, uint32_t as, uint16_t port) {
  v1::AddPeerRequest r;
  sluice::ipc::ToProto(*net::IPAddress::Parse(address), r.mutable_address());
  r.set_remote_as(as);
  r.set_port(port);
  r.set_hold_time(9);
  r.set_connect_retry_s(1);
  r.set_idle_hold_s(0.5);
  r.set_ebgp_requires_policy(false);
  return r;
}

class GracefulBirdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* p : {"bird", "birdc"}) {
      if (!sluice::testing::HaveProgram(p)) {
        GTEST_SKIP() << p << " is not installed (Debian package bird2)";
      }
    }
    const int port = sluice::testing::FreeTcpPort();
    sluice_ = std::make_unique<SluiceRouter>(
        std::vector<std::string>{"--listen", absl::StrCat("127.0.0.1:", port), "--local-as",
                                 absl::StrCat(kSluiceAs), "--bgp-id", "10.255.0.1", "--ipv4-only"},
        /*with_rib=*/false);
    ASSERT_TRUE(sluice_->ok()) << sluice_->error();
    const uint16_t up_port = uint16_t(sluice::testing::FreeTcpPort());
    const PeerEndpoint down{"127.0.0.4", uint16_t(sluice::testing::FreeTcpPort()), kDownstreamAs,
                            uint16_t(port), kSluiceAs};
    ASSERT_TRUE(bgp().AddPeer(Peer("127.0.0.5", kUpstreamAs, up_port)).ok());
    ASSERT_TRUE(bgp().AddPeer(Peer(down.address, kDownstreamAs, down.port)).ok());
    std::string error;
    down_ = StartBird(down, &error);
    ASSERT_NE(down_, nullptr) << error;
    up_ = std::make_unique<UpstreamBird>(port, up_port);
    ASSERT_TRUE(up_->Start(kRoutes, false).ok());
    ASSERT_TRUE(WaitFor([&] { return LocRib() == kRoutes && down_->RouteCount() == kRoutes; }, 60))
        << LocRib() << " " << down_->RouteCount() << up_->Logs() << down_->Logs()
        << sluice_->Logs();
  }

  BgpClient& bgp() { return sluice_->client(); }
  int LocRib() {
    auto p = bgp().Prefixes(v1::LOC_RIB);
    return p.ok() ? int(p->size()) : -1;
  }
  bool UpstreamEstablished() {
    auto info = bgp().Peer("127.0.0.5");
    return info.ok() && info->state() == "Established";
  }
  // Waits `seconds` or until `done`, keeping the lowest Loc-RIB and downstream counts seen.
  bool Watch(const std::function<bool()>& done, double seconds) {
    return WaitFor(
        [&] {
          min_loc_rib_ = std::min(min_loc_rib_, LocRib());
          min_down_ = std::min<int64_t>(min_down_, down_->RouteCount());
          return done();
        },
        seconds);
  }
  std::unique_ptr<SluiceRouter> sluice_;
  std::unique_ptr<DaemonPeer> down_;
  std::unique_ptr<UpstreamBird> up_;
  int min_loc_rib_ = kRoutes;
  int64_t min_down_ = kRoutes;
};

TEST_F(GracefulBirdTest, KilledPeerKeepsItsRoutesAndOnlyWhatItNoLongerHasIsWithdrawn) {
  const std::set<net::Prefix> before = *down_->Prefixes();
  up_->Kill();
  ASSERT_TRUE(Watch([&] { return !UpstreamEstablished(); }, 30)) << sluice_->Logs();
  // Helping: the routes stay and `show bgp peers` says so.
  auto shown = sluice_->Cli({"show", "bgp", "peers"});
  ASSERT_TRUE(shown.ok()) << shown.status();
  std::printf("%s", shown->c_str());
  EXPECT_NE(shown->find(absl::StrCat("stale, ", kRoutes, " routes")), std::string::npos) << *shown;
  EXPECT_NE(shown->find("received restart-time 5"), std::string::npos) << *shown;
  Watch([] { return false; }, 2);
  EXPECT_EQ(LocRib(), kRoutes);

  // Back with -R and one route fewer.
  ASSERT_TRUE(up_->Start(kRoutes - 1, true).ok());
  ASSERT_TRUE(
      Watch([&] { return LocRib() == kRoutes - 1 && down_->RouteCount() == kRoutes - 1; }, 30))
      << LocRib() << up_->Logs() << sluice_->Logs();
  EXPECT_GE(min_loc_rib_, kRoutes - 1);
  EXPECT_GE(min_down_, kRoutes - 1);  // the 9 kept routes never left the downstream peer
  std::set<net::Prefix> expected = before;
  expected.erase(*net::Prefix::Parse(absl::StrCat("198.18.", kRoutes - 1, ".0/24")));
  EXPECT_EQ(*down_->Prefixes(), expected);
  EXPECT_NE(sluice_->bgp().Output().find("End-of-RIB: the routes still stale are withdrawn"),
            std::string::npos)
      << sluice_->Logs();
  EXPECT_EQ(sluice_->bgp().Output().find("back without its forwarding state"), std::string::npos);
}

TEST_F(GracefulBirdTest, PeerBackWithoutForwardingStateIsFlushed) {
  up_->Kill();
  ASSERT_TRUE(Watch([&] { return !UpstreamEstablished(); }, 30)) << sluice_->Logs();
  EXPECT_EQ(LocRib(), kRoutes);
  ASSERT_TRUE(up_->Start(kRoutes, false).ok());  // no -R: F = 0
  ASSERT_TRUE(WaitFor(
      [&] {
        return sluice_->bgp().Output().find("back without its forwarding state") !=
               std::string::npos;
      },
      30))
      << up_->Logs() << sluice_->Logs();
  ASSERT_TRUE(WaitFor([&] { return LocRib() == kRoutes && down_->RouteCount() == kRoutes; }, 30));
}

TEST_F(GracefulBirdTest, PeerThatDoesNotReturnLosesItsRoutesAfterItsRestartTime) {
  up_->Kill();
  ASSERT_TRUE(Watch([&] { return !UpstreamEstablished(); }, 30)) << sluice_->Logs();
  EXPECT_EQ(LocRib(), kRoutes);
  ASSERT_TRUE(WaitFor([&] { return LocRib() == 0 && down_->RouteCount() == 0; }, 30))
      << sluice_->Logs();
  EXPECT_NE(sluice_->bgp().Output().find("not back within its restart time"), std::string::npos);
}

// Sluice as the restarting speaker, with the real RIB: sluice-bgp is SIGKILLed (a crash) or gets
// SIGUSR2 (the router manager restarting it) and is started again. The RIB keeps BGP's routes
// (stale, for the restart time sluice-bgp registered), the downstream BIRD keeps them (it helps
// us: BIRD's default `graceful restart aware`); the new sluice-bgp learns from the RIB that it
// restarts, sets the R bit, and sends End-of-RIB to BIRD and to the RIB only once the upstream
// has sent its own. Neither the FIB's count nor BIRD's ever drops. SIGTERM is a deliberate stop:
// both drop everything at once (deregister_protocol; a Cease BIRD does not hold routes for).
// The same with FRR bgpd as the downstream helper (FRR's default graceful restart mode:
// helper): GracefulFrrRestartingTest. FRR sets the R bit itself for its first restart time after
// it starts, so this also covers a peer that restarts too: it must get our End-of-RIB only after
// our routes, or it sweeps them.
class GracefulBirdRestartingTest : public ::testing::TestWithParam<int> {
 protected:
  void Run(bool frr_downstream);
};
class GracefulFrrRestartingTest : public GracefulBirdRestartingTest {};

TEST_P(GracefulBirdRestartingTest, SluiceBgpEndsAndOnlyADeliberateStopIsNoticed) { Run(false); }
TEST_P(GracefulFrrRestartingTest, SluiceBgpEndsAndOnlyADeliberateStopIsNoticed) { Run(true); }

void GracefulBirdRestartingTest::Run(bool frr_downstream) {
  for (const char* p : {"bird", "birdc"}) {
    if (!sluice::testing::HaveProgram(p)) {
      GTEST_SKIP() << p << " is not installed (Debian package bird2)";
    }
  }
  if (frr_downstream && !FrrSkipReason().empty()) GTEST_SKIP() << FrrSkipReason();
  const int port = sluice::testing::FreeTcpPort();
  SluiceRouter sluice({"--listen", absl::StrCat("127.0.0.1:", port), "--local-as",
                       absl::StrCat(kSluiceAs), "--bgp-id", "10.255.0.1", "--ipv4-only"});
  ASSERT_TRUE(sluice.ok()) << sluice.error();
  if (!sluice.real_rib()) GTEST_SKIP() << "needs sluice-rib (the RIB keeps BGP's routes)";
  const uint16_t up_port = uint16_t(sluice::testing::FreeTcpPort());
  PeerEndpoint down{"127.0.0.4", uint16_t(sluice::testing::FreeTcpPort()), kDownstreamAs,
                    uint16_t(port), kSluiceAs};
  down.passive = true;  // the restarted sluice-bgp dials; BIRD dialling too would collide
  auto add_peers = [&] {
    ASSERT_TRUE(sluice.client().AddPeer(Peer("127.0.0.5", kUpstreamAs, up_port)).ok());
    ASSERT_TRUE(sluice.client().AddPeer(Peer(down.address, kDownstreamAs, down.port)).ok());
  };
  add_peers();
  std::string error;
  std::unique_ptr<DaemonPeer> bird_down =
      frr_downstream ? StartFrr(down, &error) : StartBird(down, &error);
  ASSERT_NE(bird_down, nullptr) << error;
  UpstreamBird up(port, up_port);
  ASSERT_TRUE(up.Start(kRoutes, false).ok());
  // The routes BGP gave the FIB (the dummy FEA's table, through the RIB): 198.18.0.0/15.
  auto fib_count = [&]() -> int64_t {
    auto fib = sluice.FibPrefixes();
    if (!fib.ok() || !fib->has_value()) return -1;
    const net::Prefix within = *net::Prefix::Parse("198.18.0.0/15");
    int64_t n = 0;
    for (const net::Prefix& p : **fib) n += within.Contains(p) ? 1 : 0;
    return n;
  };
  ASSERT_TRUE(
      WaitFor([&] { return fib_count() == kRoutes && bird_down->RouteCount() == kRoutes; }, 60))
      << fib_count() << " " << bird_down->RouteCount() << sluice.Logs() << bird_down->Logs();
  const std::string since = bird_down->SessionSince();

  if (GetParam() == SIGTERM) {
    EXPECT_EQ(sluice.bgp().Stop(10), 0);
    // Well within the 120 s restart time: the RIB and BIRD were told.
    EXPECT_TRUE(WaitFor([&] { return fib_count() == 0 && bird_down->RouteCount() == 0; }, 20))
        << fib_count() << " " << bird_down->RouteCount() << sluice.Logs();
    return;
  }
  ASSERT_TRUE(sluice.RestartBgp(GetParam()).ok()) << sluice.Logs();
  add_peers();
  int64_t min_fib = kRoutes, min_down = kRoutes;
  auto sample = [&] {
    min_fib = std::min(min_fib, fib_count());
    min_down = std::min(min_down, bird_down->RouteCount());
  };
  ASSERT_TRUE(WaitFor(
      [&] {
        sample();
        return sluice.bgp().Output().find("graceful restart: sending End-of-RIB") !=
               std::string::npos;
      },
      60))
      << sluice.Logs();
  EXPECT_NE(sluice.bgp().Output().find("the RIB kept 10 of our routes"), std::string::npos)
      << sluice.bgp().Output();
  WaitFor(
      [&] {
        sample();
        return false;
      },
      3);
  EXPECT_EQ(min_fib, kRoutes) << sluice.Logs();
  EXPECT_EQ(min_down, kRoutes) << bird_down->Logs() << sluice.Logs();
  EXPECT_EQ(fib_count(), kRoutes);
  EXPECT_EQ(bird_down->RouteCount(), kRoutes);
}

std::string SignalName(const ::testing::TestParamInfo<int>& info) {
  return info.param == SIGKILL ? "Sigkill" : info.param == SIGUSR2 ? "Sigusr2" : "Sigterm";
}
INSTANTIATE_TEST_SUITE_P(Signals, GracefulBirdRestartingTest,
                         ::testing::Values(SIGKILL, SIGUSR2, SIGTERM), SignalName);
INSTANTIATE_TEST_SUITE_P(Signals, GracefulFrrRestartingTest,
                         ::testing::Values(SIGKILL, SIGUSR2, SIGTERM), SignalName);

}  // namespace
}  // namespace sluice::bgp::interop
