// One control plane on host A, forwarding engines on hosts B and C (tests/system/netns_hosts.h),
// as an operator deploys it: sluice-rtrmgr on A runs the Finder (TCP with mutual TLS on
// 10.0.0.1), the RIB and sluice-bgp, and no FEA of its own (`fea { remote-only; }`); B and C
// each run a netlink sluice-fea with a certificate naming its instance. A sluice-replay upstream
// gives sluice-bgp the PCH table with NEXT_HOP 10.9.0.2, which only B's and C's interfaces
// reach: both kernels must end with the whole table, and the death, restart or stop of B's FEA
// must leave C alone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "ipc/methods/rib.h"
#include "ipc/proto/rib.pb.h"
#include "tests/bgp/test_data.h"
#include "tests/fea/netns.h"
#include "tests/system/child_process.h"
#include "tests/system/netns_hosts.h"
#include "tests/system/rtrmgr_processes.h"
#include "tests/system/test_certificates.h"

namespace sluice::testing {
namespace {

// What the Loc-RIB keeps of the PCH table: 4 of its 577,703 routes have AS 0 in their AS_PATH
// and are treated as withdrawn (RFC 7607).
constexpr size_t kPchLocRib = 577699;
constexpr int kBacklog = 5000;  // the RIB's bound per FEA
constexpr int kBgpPort = 1179;
const std::string kFinder = "tcp:10.0.0.1:7001";

std::string PchCapture() {
  return MrtDir().empty() ? "" : MrtDir() + "/pch-2015-10-23-fulltable-updates.mrt.gz";
}

// Polls `done` once a second (a kernel table of this size takes a while to list).
bool Slowly(const std::function<bool()>& done, double seconds) {
  for (double waited = 0; waited < seconds; waited += 1) {
    if (done()) return true;
    sleep(1);
  }
  return done();
}

class RemoteFeaRtrmgrTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fea::testing::KernelSkipReason().empty()) {
      GTEST_SKIP() << fea::testing::KernelSkipReason();
    }
    if (!HaveOpenssl()) GTEST_SKIP() << "needs the openssl command (Debian package openssl)";
    if (PchCapture().empty() || !std::filesystem::exists(PchCapture())) {
      GTEST_SKIP() << "the PCH capture is missing (SLUICE_DATA_DIR=" << MrtDir() << ")";
    }
    char dir[] = "/tmp/sluice-remote-rtrmgr.XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    ASSERT_TRUE(MakeCertificates(dir_, {"finder", "fea/fea-b", "fea/fea-c"}));
    // The router manager's processes may run as user sluice: they read the Finder's files.
    chmod(dir_.c_str(), 0755);
    for (const auto& f : std::filesystem::directory_iterator(dir_)) chmod(f.path().c_str(), 0644);
    StartBridge();
    ASSERT_NO_FATAL_FAILURE(StartHost(b_, "fea-b", "10.0.0.2", "vb"));
    ASSERT_NO_FATAL_FAILURE(StartHost(c_, "fea-c", "10.0.0.3", "vc"));
    ASSERT_TRUE(rtrmgr_.Start(rtrmgr_.WriteConfig("a.conf", Config()))) << rtrmgr_.Logs("rtrmgr");
    b_.fea = StartFea(b_);
    c_.fea = StartFea(c_);
    ASSERT_TRUE(b_.fea && c_.fea);
  }
  void TearDown() override {
    for (auto& u : upstreams_) u.reset();
    b_.fea.reset();
    c_.fea.reset();
    rtrmgr_.Stop();
    b_.holder.reset();
    c_.holder.reset();
    StopBridge();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  std::string Config() const {
    return absl::StrCat(
        "finder {\n  listen 10.0.0.1 port 7001;\n  tls { ca \"", dir_, "/ca.pem\"; certificate \"",
        CertificateFile(dir_, "finder"), "\"; key \"", KeyFile(dir_, "finder"),
        "\"; }\n}\nfea { remote-only; }\nrib { fea-max-backlog ", kBacklog,
        "; }\nprotocols {\n  bgp {\n    local-as 4200000000;\n    bgp-id 10.0.0.1;\n"
        "    listen 127.0.0.1 port ",
        kBgpPort, ";\n", Peer("127.0.0.2", 4200000102), Peer("127.0.0.3", 4200000103),
        Peer("127.0.0.4", 4200000104), Peer("127.0.0.5", 4200000105),
        "  }\n}\npolicy {\n  policy-statement all { term all { then { accept; } } }\n}\n");
  }
  static std::string Peer(const std::string& address, uint32_t as) {
    return absl::StrCat("    peer ", address, " { as ", as,
                        "; local-ip 127.0.0.1; passive; family [ ipv4-unicast ]; import [ all ]; "
                        "}\n");
  }
  std::unique_ptr<ChildProcess> StartFea(const NetnsHost& h) {
    std::vector<std::string> env = TlsEnv(dir_, "fea/" + h.fea_name);
    env.push_back("SLUICE_RUNDIR=" + dir_);
    return ChildProcess::Start(NetlinkFeaArgv(h, kFinder), env);
  }
  // sluice-replay from `address` (AS `as`, prepended to every AS_PATH) with `routes` (--mrt FILE
  // or --synthetic N), every NEXT_HOP 10.9.0.2; once it has sent them all.
  ChildProcess* Upstream(const std::string& address, uint32_t as, std::vector<std::string> routes) {
    std::vector<std::string> argv = {BuildPath("bgp/replay/sluice-replay"),
                                     "--connect",
                                     absl::StrCat("127.0.0.1:", kBgpPort),
                                     "--local-address",
                                     address,
                                     "--local-as",
                                     absl::StrCat(as),
                                     "--mode",
                                     "table",
                                     "--prepend-own-as",
                                     "--next-hop",
                                     "10.9.0.2",
                                     "--linger",
                                     "--json",
                                     "--quiet"};
    argv.insert(argv.end(), routes.begin(), routes.end());
    upstreams_.push_back(ChildProcess::Start(argv));
    ChildProcess* u = upstreams_.back().get();
    EXPECT_TRUE(u && u->WaitForOutput("\"event\":\"sent\"", 300000))
        << (u ? u->Output() : "did not start") << rtrmgr_.Logs("bgp");
    return u;
  }
  // The RIB's FIB of BGP's IPv4 routes, as `ip route` prints prefixes.
  std::set<std::string> Fib() {
    std::set<std::string> out;
    if (auto fib = rtrmgr_.FibPrefixes("ebgp")) {
      for (const net::Prefix& p : *fib) {
        if (p.family() == net::Family::kIPv4) out.insert(p.ToString());
      }
    }
    return out;
  }
  // Both kernels hold exactly the RIB's FIB (it settled: the same twice, a second apart).
  bool KernelsHoldTheFib(const std::vector<const NetnsHost*>& hosts, double seconds = 300) {
    std::set<std::string> last;
    return Slowly(
        [&] {
          std::set<std::string> fib = Fib();
          const bool settled = !fib.empty() && fib == last;
          last = std::move(fib);
          if (!settled) return false;
          for (const NetnsHost* h : hosts) {
            const std::set<std::string> kernel = KernelRoutes(*h);
            counts_[h->fea_name] = kernel.size();
            if (kernel != last) return false;
          }
          return true;
        },
        seconds);
  }
  std::optional<rib::v1::FeaFeed> Feed(const std::string& fea) {
    auto r = rtrmgr_.client().Call("rib", ipc::methods::rib::kListFeas, rib::v1::ListFeasRequest());
    if (!r.ok()) return std::nullopt;
    for (const rib::v1::FeaFeed& f : r->feas()) {
      if (f.fea() == fea) return f;
    }
    return std::nullopt;
  }
  // What the last KernelsHoldTheFib saw, and what the RIB and sluice-bgp hold now.
  std::string Counts() {
    std::string out;
    for (const auto& [name, n] : counts_) absl::StrAppend(&out, name, ": ", n, " routes; ");
    auto loc_rib = rtrmgr_.LocRibPrefixes();
    absl::StrAppend(&out, "the RIB's FIB: ", Fib().size(),
                    " BGP routes; the Loc-RIB: ", loc_rib ? loc_rib->size() : 0, " prefixes\n",
                    rtrmgr_.Sluice({"show", "processes"}).out);
    return out;
  }

  // What a returning FEA's re-synchronisation wrote (`events`), from `held` to `final_table`:
  // the prefixes that went were deleted, the new ones added, and at most `max_changed` prefixes
  // kept but changed (their metric, the kernel's key: the new route, then the old one's
  // deletion). No other route is touched.
  static void ExpectOnlyChangesWritten(const RouteEvents& events, const std::set<std::string>& held,
                                       const std::set<std::string>& final_table,
                                       size_t max_changed) {
    std::set<std::string> deleted;
    for (const std::string& line : events.deleted) {
      const std::vector<absl::string_view> words = absl::StrSplit(line, ' ');
      deleted.insert(KernelPrefix(words.size() > 1 ? words[1] : ""));
    }
    size_t gone = 0, rewritten = 0, gained = 0;
    for (const std::string& p : held) {
      if (final_table.count(p) == 0) {
        ++gone;
        EXPECT_TRUE(deleted.count(p)) << p << " was not swept";
      }
    }
    for (const std::string& p : deleted) {
      EXPECT_TRUE(held.count(p)) << p << " deleted, never held";
      rewritten += final_table.count(p);
    }
    for (const std::string& p : final_table) gained += held.count(p) == 0 ? 1 : 0;
    EXPECT_EQ(deleted.size(), events.deleted.size()) << "a prefix deleted twice";
    EXPECT_EQ(events.added.size(), gained + rewritten);
    EXPECT_LE(rewritten, max_changed) << "routes written again that did not change";
    EXPECT_EQ(gone + rewritten, deleted.size());
  }

  std::string dir_;
  NetnsHost b_, c_;
  RtrmgrProcess rtrmgr_;
  std::vector<std::unique_ptr<ChildProcess>> upstreams_;
  std::map<std::string, size_t> counts_;
};

TEST_F(RemoteFeaRtrmgrTest, BothKernelsGetThePchTableAndBsDeathRestartAndStopLeaveCAlone) {
  ASSERT_TRUE(Upstream("127.0.0.2", 4200000102, {"--mrt", PchCapture()}));
  ASSERT_TRUE(KernelsHoldTheFib({&b_, &c_})) << Counts() << rtrmgr_.Logs("rib");
  EXPECT_EQ(KernelRoutes(b_).size(), kPchLocRib);
  ASSERT_TRUE(Upstream("127.0.0.3", 4200000103, {"--synthetic", "1000", "--seed", "1"}));
  ASSERT_TRUE(KernelsHoldTheFib({&b_, &c_})) << Counts();

  // B's FEA is killed: C's kernel sees no deletion. While B is down, the second upstream's
  // 1,000 routes go and a third upstream's 1,000 come.
  auto monitor = MonitorRoutes(c_);
  ASSERT_TRUE(monitor);
  b_.fea->Signal(SIGKILL);
  b_.fea->Wait(10000);
  ASSERT_TRUE(Eventually([&] {
    auto f = Feed("fea-b");
    return f && !f->up();
  }));
  sleep(1);
  monitor->Signal(SIGTERM);
  monitor->Wait(5000);
  EXPECT_THAT(Table100Events(monitor->Output()).deleted, ::testing::IsEmpty());
  const std::set<std::string> b_before = KernelRoutes(b_);
  upstreams_[1]->Signal(SIGTERM);
  upstreams_[1]->Wait(10000);
  ASSERT_TRUE(Upstream("127.0.0.4", 4200000104, {"--synthetic", "1000", "--seed", "2"}));
  ASSERT_TRUE(KernelsHoldTheFib({&c_})) << Counts();
  EXPECT_EQ(KernelRoutes(b_), b_before) << "B's kernel keeps forwarding with what it had";
  // B's FEA comes back: it adopts its kernel's routes, and the full push leaves exactly C's.
  b_.fea = StartFea(b_);
  ASSERT_TRUE(b_.fea);
  ASSERT_TRUE(KernelsHoldTheFib({&b_, &c_})) << Counts();

  // B's FEA stops while 10,000 routes come, long enough for the Finder to drop it (its
  // keepalive timeout), as a partition between A and B would: C gets the routes, B keeps
  // forwarding with what it had, and the RIB holds nothing for B past its bound. Back, B is
  // re-synchronised by a full push that writes only what changed.
  const std::set<std::string> b_held = KernelRoutes(b_);
  b_.fea->Signal(SIGSTOP);
  ASSERT_TRUE(Upstream("127.0.0.5", 4200000105, {"--synthetic", "10000", "--seed", "3"}));
  ASSERT_TRUE(KernelsHoldTheFib({&c_})) << Counts();
  ASSERT_TRUE(Eventually(
      [&] {
        auto f = Feed("fea-b");
        EXPECT_TRUE(f && f->queued() <= static_cast<uint64_t>(kBacklog));
        return f && !f->up();
      },
      60))
      << "the Finder did not drop the stopped FEA";
  EXPECT_EQ(KernelRoutes(b_), b_held) << "B keeps forwarding with what it had";
  auto b_monitor = MonitorRoutes(b_);
  ASSERT_TRUE(b_monitor);
  b_.fea->Signal(SIGCONT);
  ASSERT_TRUE(KernelsHoldTheFib({&b_, &c_})) << Counts();
  b_monitor->Signal(SIGTERM);
  b_monitor->Wait(5000);
  ExpectOnlyChangesWritten(Table100Events(b_monitor->Output()), b_held, KernelRoutes(c_), 10000);
}

// A partition between A and C (C's link down): the Finder drops C's FEA, C keeps forwarding
// with what it had while B follows 2,000 changes, and once the link is back C's FEA registers
// again and its full push writes only what changed.
TEST_F(RemoteFeaRtrmgrTest, APartitionedFeaKeepsForwardingAndOnReturnWritesOnlyWhatChanged) {
  ASSERT_TRUE(Upstream("127.0.0.2", 4200000102, {"--synthetic", "20000", "--seed", "4"}));
  ASSERT_TRUE(Upstream("127.0.0.3", 4200000103, {"--synthetic", "1000", "--seed", "5"}));
  ASSERT_TRUE(KernelsHoldTheFib({&b_, &c_})) << Counts();
  const std::set<std::string> held = KernelRoutes(c_);
  fea::testing::MustRun("ip link set vc down");
  ASSERT_TRUE(Eventually(
      [&] {
        auto f = Feed("fea-c");
        return f && !f->up();
      },
      60))
      << "the Finder did not drop the FEA it cannot reach";
  upstreams_[1]->Signal(SIGTERM);
  upstreams_[1]->Wait(10000);
  ASSERT_TRUE(Upstream("127.0.0.4", 4200000104, {"--synthetic", "1000", "--seed", "6"}));
  ASSERT_TRUE(KernelsHoldTheFib({&b_})) << Counts();
  EXPECT_EQ(KernelRoutes(c_), held) << "C keeps forwarding with what it had";
  auto monitor = MonitorRoutes(c_);
  ASSERT_TRUE(monitor);
  fea::testing::MustRun("ip link set vc up");
  ASSERT_TRUE(KernelsHoldTheFib({&b_, &c_})) << Counts();
  monitor->Signal(SIGTERM);
  monitor->Wait(5000);
  ExpectOnlyChangesWritten(Table100Events(monitor->Output()), held, KernelRoutes(b_), 2000);
}

}  // namespace
}  // namespace sluice::testing

int main(int argc, char** argv) {
  sluice::fea::testing::EnterPrivateNetworkNamespace();  // before any thread exists
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
