// Hitless restarts with real processes (DESIGN.md § Restarts), in a private network namespace
// (root; skipped otherwise): sluice-rtrmgr with the netlink FEA (table 100), sluice-static with
// 10 routes, and a table from a `sluice-replay --reconnect --graceful-restart` upstream, passed
// on to a `sluice-replay --receive-only --graceful-restart` downstream. Each process in turn —
// the Finder, the RIB, the FEA, sluice-static, sluice-rtrmgr itself and sluice-bgp — is killed
// with SIGKILL. While it recovers, `ip monitor route` on table 100 sees no deletion of a route
// that should stay, and the downstream receives no withdrawal and flushes nothing; afterwards a
// new route from the upstream reaches the kernel, and after sluice-bgp's restart the routes the
// upstream no longer sends after reconnecting are gone from the kernel and the downstream
// (swept at the End-of-RIBs) — and only those.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <sstream>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "tests/fea/netns.h"
#include "tests/system/rtrmgr_processes.h"

namespace sluice::testing {
namespace {

using fea::testing::KernelPrefixes;
using fea::testing::KernelSkipReason;
using fea::testing::MustRun;

constexpr unsigned kTable = 100;
constexpr unsigned kProto = 83;
constexpr int kPort = 10181;  // private namespace: nobody else listens here
constexpr int kPrefixes = 100000;
constexpr int kStatics = 10;
constexpr int kDrop = 5;    // routes the upstream leaves out after it reconnects
constexpr int kExtra = 10;  // routes the upstream holds back, one per SIGUSR2

std::string Config(int threads = 2) {
  std::string statics;
  for (int i = 0; i < kStatics; ++i) {
    absl::StrAppend(&statics, "        route 192.0.", i, ".0/24 { next-hop 10.1.0.2; }\n");
  }
  return absl::StrCat(R"(
fea { backend netlink; table )",
                      kTable, R"(; }
protocols {
    static {
)",
                      statics, R"(    }
    bgp {
        threads )",
                      threads, R"(;
        local-as 4200000001;
        bgp-id 10.255.0.1;
        listen 127.0.0.1 port )",
                      kPort, R"(;
        peer 127.0.0.2 { as 4200000002; local-ip 127.0.0.1; passive; }
        peer 127.0.0.3 { as 4200000003; local-ip 127.0.0.1; passive; }
    }
}
)");
}

// `ip -4 monitor route` on the namespace: the deletions it has seen in table 100.
class RouteMonitor {
 public:
  // Line-buffered: each event is read as it happens.
  RouteMonitor()
      : ip_(ChildProcess::Start(
            {"/usr/bin/stdbuf", "-oL", "/usr/sbin/ip", "-4", "monitor", "route"})) {}
  // The events on table 100 seen so far; only deletions with `deleted`.
  std::vector<std::string> Events(bool deleted) {
    std::vector<std::string> out;
    std::istringstream lines(ip_->Output());
    for (std::string line; std::getline(lines, line);) {
      if (line.find("table 100") == std::string::npos) continue;
      if (!deleted || line.rfind("Deleted", 0) == 0) out.push_back(line);
    }
    return out;
  }
  std::vector<std::string> Deletions() { return Events(true); }

 private:
  std::unique_ptr<ChildProcess> ip_;
};

// The number in `"key":N` of the last JSON line of `output` holding it; -1 if none.
long JsonNumber(const std::string& output, const std::string& key) {
  const std::string needle = absl::StrCat("\"", key, "\":");
  size_t at = output.rfind(needle);
  if (at == std::string::npos) return -1;
  return std::strtol(output.c_str() + at + needle.size(), nullptr, 10);
}

class RestartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!KernelSkipReason().empty()) GTEST_SKIP() << KernelSkipReason();
    MustRun(
        "ip link add v0 type veth peer name v1 && ip addr add 10.1.0.1/24 dev v0 && "
        "ip link set v0 up && ip link set v1 up");
  }
  void TearDown() override { fea::testing::Run("ip link del v0"); }

  size_t KernelCount() { return KernelPrefixes(kTable, kProto).size(); }
  // Announces the upstream's next held-back route and waits for it in the kernel.
  bool NewRouteArrives(ChildProcess& upstream) {
    const size_t before = KernelCount();
    upstream.Signal(SIGUSR2);
    auto start = std::chrono::steady_clock::now();
    bool arrived = Eventually([&] { return KernelCount() > before; }, 60);
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - start)
                  .count();
    std::cout << "  a new upstream route reached the kernel in " << ms << " ms\n";
    return arrived;
  }
};

TEST_F(RestartTest, NoSingleProcessDeathReachesTheKernelOrTheDownstream) {
  RtrmgrProcess r;
  const std::string conf = r.WriteConfig("router.conf", Config());
  ASSERT_TRUE(r.Start(conf)) << r.Logs("rtrmgr");
  const std::string peer = absl::StrCat("127.0.0.1:", kPort);
  auto upstream = ChildProcess::Start({BuildPath("bgp/replay/sluice-replay"),
                                       "--connect",
                                       peer,
                                       "--local-address",
                                       "127.0.0.2",
                                       "--local-as",
                                       "4200000002",
                                       "--prepend-own-as",
                                       "--next-hop",
                                       "10.1.0.2",
                                       "--synthetic",
                                       absl::StrCat(kPrefixes),
                                       "--mode",
                                       "table",
                                       "--extra",
                                       absl::StrCat(kExtra),
                                       "--graceful-restart",
                                       "120",
                                       "--reconnect",
                                       "--after-reconnect-drop",
                                       absl::StrCat(kDrop),
                                       "--linger",
                                       "--quiet"});
  auto downstream = ChildProcess::Start({BuildPath("bgp/replay/sluice-replay"), "--connect", peer,
                                         "--local-address", "127.0.0.3", "--local-as", "4200000003",
                                         "--receive-only", "--graceful-restart", "120",
                                         "--reconnect", "--linger", "--json", "--quiet"});
  ASSERT_TRUE(upstream && downstream);
  const size_t want = kPrefixes + kStatics;
  ASSERT_TRUE(Eventually([&] { return KernelCount() == want; }, 300))
      << "kernel " << KernelCount() << " of " << want << "\n"
      << r.Logs("bgp") << r.Logs("rib") << r.Logs("fea");
  RouteMonitor monitor;
  size_t expected = want;
  size_t announced = kPrefixes;  // BGP routes the upstream has announced, over all its sessions
  size_t extras = 0;  // announced so far: not in the upstream's table after it reconnects
  // The monitor sees the kernel's events as they happen.
  ASSERT_TRUE(NewRouteArrives(*upstream));
  ++expected;
  ++announced;
  ++extras;
  ASSERT_TRUE(Eventually([&] { return monitor.Events(false).size() == 1; }, 10))
      << "ip monitor saw no route added";

  auto recover = [&](const std::string& name, bool bgp_restarted) {
    SCOPED_TRACE(name);
    std::cout << "SIGKILL " << name << "\n";
    if (name == "rtrmgr") {
      r.process()->Signal(SIGKILL);
      ASSERT_TRUE(r.process()->Wait(10000).has_value());
      std::this_thread::sleep_for(std::chrono::seconds(1));
      ASSERT_TRUE(r.Start(conf)) << r.Logs("rtrmgr");
    } else {
      int restarts_before = 0;
      const int pid = r.ChildPid(name, &restarts_before);
      ASSERT_GT(pid, 0);
      ASSERT_EQ(kill(pid, SIGKILL), 0);
      ASSERT_TRUE(Eventually(
          [&] {
            int restarts = 0;
            int now = r.ChildPid(name, &restarts);
            return now > 0 && now != pid;
          },
          60))
          << r.Logs("rtrmgr");
    }
    // The upstream reconnects to the restarted sluice-bgp with its table less the first kDrop
    // routes and without the extra routes it announced: those leave at its End-of-RIB.
    const size_t gone = bgp_restarted ? kDrop + extras : 0;
    expected -= gone;
    // Recovered: the kernel holds what it should (after sluice-bgp's restart, without the routes
    // the upstream no longer sends) and a new route gets through.
    EXPECT_TRUE(Eventually([&] { return KernelCount() == expected; }, 180))
        << "kernel " << KernelCount() << " want " << expected << "\n"
        << r.Logs("bgp") << r.Logs("rib");
    EXPECT_TRUE(NewRouteArrives(*upstream)) << r.Logs("bgp");
    ++expected;
    ++announced;
    ++extras;
    const std::vector<std::string> deleted = monitor.Deletions();
    EXPECT_EQ(deleted.size(), gone) << (deleted.empty() ? "" : deleted.front()) << "\n"
                                    << r.Logs("fea") << r.Logs("rib") << r.Logs("bgp");
  };
  for (const char* name : {"finder", "rib", "fea", "static_routes", "rtrmgr"}) {
    recover(name, false);
    if (HasFailure()) break;
  }
  if (!HasFailure()) recover("bgp", true);

  // A `threads` change through `configure load` restarts sluice-bgp (SIGUSR2: no NOTIFICATION,
  // its routes stay at the RIB): the kernel and the downstream do not notice either. The
  // upstream reconnects once more, without the extra route announced since.
  if (!HasFailure()) {
    std::cout << "configure load: bgp threads 2 -> 1\n";
    const int bgp_pid = r.ChildPid("bgp");
    const std::string next = r.WriteConfig("next.conf", Config(1));
    CommandResult load = r.Sluice({"configure", "load", next});
    ASSERT_EQ(load.exit_code, 0) << load.out << load.err;
    ASSERT_TRUE(Eventually(
        [&] {
          int now = r.ChildPid("bgp");
          return now > 0 && now != bgp_pid;
        },
        60))
        << r.Logs("rtrmgr");
    expected -= 1;  // the extra route announced after the last reconnect
    EXPECT_TRUE(Eventually([&] { return KernelCount() == expected; }, 180))
        << "kernel " << KernelCount() << " want " << expected << "\n"
        << r.Logs("bgp");
    EXPECT_TRUE(NewRouteArrives(*upstream)) << r.Logs("bgp");
    ++expected;
    ++announced;
    EXPECT_EQ(monitor.Deletions().size(), kDrop + extras);
  }

  downstream->Signal(SIGTERM);
  ASSERT_TRUE(downstream->Wait(10000).has_value());
  const std::string summary = downstream->Output();
  // No withdrawal and no flush: the downstream kept our routes across sluice-bgp's restart (a
  // graceful restart helper), and swept the ones we no longer have at our End-of-RIB.
  EXPECT_EQ(JsonNumber(summary, "withdrawals_received"), 0) << summary;
  EXPECT_EQ(JsonNumber(summary, "flushed"), 0) << summary;
  // And it swept only the routes that left for good: a premature End-of-RIB from the restarted
  // sluice-bgp would have swept everything it had not re-sent yet.
  EXPECT_EQ(JsonNumber(summary, "stale_swept"),
            static_cast<long>(announced - (expected - kStatics)))
      << summary << r.Logs("bgp") << r.Logs("rib");
  EXPECT_EQ(JsonNumber(summary, "prefixes_held"), static_cast<long>(expected - kStatics))
      << summary;
  upstream->Signal(SIGTERM);
  upstream->Wait(10000);
  EXPECT_EQ(r.Stop(), 0);
}

}  // namespace
}  // namespace sluice::testing

int main(int argc, char** argv) {
  sluice::fea::testing::EnterPrivateNetworkNamespace();  // before any thread exists
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
