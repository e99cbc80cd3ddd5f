// One control plane, forwarding engines on other hosts (DESIGN.md § Processes; the multistage
// router of Bianco et al.), with network namespaces standing for hosts. This process is host A:
// a private namespace of its own (root; skipped otherwise) running sluice-finder and sluice-rib
// on 10.0.0.1 over TCP with mutual TLS, and protocol components (sluice-rib-test-client) that
// give the RIB its table. Hosts B and C are namespaces joined to A by veth pairs on a bridge;
// each runs sluice-fea with the netlink backend and a certificate naming its instance (fea-b,
// fea-c), and a veth pair whose d0 is in 10.9.0.0/24, where the routes' nexthop 10.9.0.2 lies. A
// host's namespace is held by a process of its own, so it and its kernel table outlive its FEA.
// Routes via a nexthop on a subnet only one host has go to that host's kernel alone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "ipc/methods/rib.h"
#include "ipc/transport.h"
#include "rtrmgr/cli/sync_client.h"
#include "tests/fea/netns.h"
#include "tests/system/child_process.h"
#include "tests/system/netns_hosts.h"
#include "tests/system/rtrmgr_processes.h"
#include "tests/system/test_certificates.h"

namespace sluice::testing {
namespace {

using fea::testing::KernelSkipReason;

constexpr int kRoutes = 100000;  // the table both kernels get
// The RIB's bound per FEA; with batches of 500 (4 in flight), 10,000 changes pass it.
constexpr int kBacklog = 5000;
const std::string kFinder = "tcp:10.0.0.1:7001";

// The /24s "A.B.C.0/24" from `first` up, as the kernel lists their prefixes.
std::set<std::string> Slash24s(uint32_t first, int n) {
  std::set<std::string> out;
  for (int i = 0; i < n; ++i) {
    const uint32_t a = first + (static_cast<uint32_t>(i) << 8);
    out.insert(absl::StrCat(a >> 24, ".", (a >> 16) & 255, ".", (a >> 8) & 255, ".0/24"));
  }
  return out;
}

std::set<std::string> Union(std::set<std::string> a, const std::set<std::string>& b) {
  a.insert(b.begin(), b.end());
  return a;
}

class RemoteFeaNetnsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!KernelSkipReason().empty()) GTEST_SKIP() << KernelSkipReason();
    if (!HaveOpenssl()) GTEST_SKIP() << "needs the openssl command (Debian package openssl)";
    char dir[] = "/tmp/sluice-remote-fea.XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    ASSERT_TRUE(MakeCertificates(
        dir_, {"finder", "rib", "bgp", "rib_test_client", "fea/fea-b", "fea/fea-c"}));
    StartBridge();
    ASSERT_NO_FATAL_FAILURE(StartHost(b_, "fea-b", "10.0.0.2", "vb"));
    ASSERT_NO_FATAL_FAILURE(StartHost(c_, "fea-c", "10.0.0.3", "vc"));
    finder_ = ChildProcess::Start(
        {BuildPath("finder/sluice-finder"), "--listen", kFinder, "--grace-ms", "0"}, Env("finder"));
    rib_ = ChildProcess::Start(
        {BuildPath("rib/sluice-rib"), "--finder", kFinder, "--listen", "tcp:10.0.0.1:0",
         "--fea-batch-size", "500", "--fea-max-backlog", std::to_string(kBacklog)},
        Env("rib"));
    ASSERT_TRUE(finder_ && rib_);
    b_.fea = StartFea(b_);
    c_.fea = StartFea(c_);
    ASSERT_TRUE(b_.fea && c_.fea);
    ipc::SetTransportSecurity(ipc::TransportSecurity{
        .tls = ipc::TlsFiles{dir_ + "/ca.pem", CertificateFile(dir_, "bgp"), KeyFile(dir_, "bgp")},
        .insecure = false});
    client_ = std::make_unique<rtrmgr::cli::SyncClient>(kFinder, 20000, "bgp");
    // The RIB feeds both FEAs, which have reported their interfaces, before any route comes.
    ASSERT_TRUE(Eventually(
        [&] {
          auto b = Feed("fea-b"), c = Feed("fea-c");
          return b && c && b->up() && c->up() && b->interfaces_known() && c->interfaces_known();
        },
        60))
        << rib_->Output();
  }
  void TearDown() override {
    client_.reset();
    clients_.clear();
    rib_.reset();
    b_.fea.reset();
    c_.fea.reset();
    finder_.reset();
    b_.holder.reset();
    c_.holder.reset();
    ipc::SetTransportSecurity(ipc::TransportSecurity());
    StopBridge();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  std::vector<std::string> Env(const std::string& name) const {
    std::vector<std::string> env = TlsEnv(dir_, name);
    env.push_back("SLUICE_RUNDIR=" + dir_);
    return env;
  }
  std::unique_ptr<ChildProcess> StartFea(const NetnsHost& h) {
    return ChildProcess::Start(NetlinkFeaArgv(h, kFinder), Env("fea/" + h.fea_name));
  }
  // A protocol component giving the RIB `n` /24s from `first` via `nexthop`.
  ChildProcess* Client(const std::string& instance, const std::string& protocol, int n,
                       const std::string& first, const std::string& nexthop = "10.9.0.2") {
    clients_[instance] = ChildProcess::Start(
        {BuildPath("tests/system/sluice-rib-test-client"), "--instance", instance, "--finder",
         kFinder, "--protocol", protocol, "--routes", absl::StrCat(n, ",", first, ",", nexthop)},
        Env("rib_test_client"));
    ChildProcess* c = clients_[instance].get();
    EXPECT_TRUE(c && c->WaitForOutput(absl::StrCat("added ", n), 60000))
        << (c ? c->Output() : "did not start");
    return c;
  }
  std::set<std::string> Kernel(const NetnsHost& h) { return KernelRoutes(h); }
  bool KernelIs(const NetnsHost& h, const std::set<std::string>& want, double seconds = 120) {
    const bool same = Eventually([&] { return Kernel(h) == want; }, seconds);
    if (!same) last_ = Kernel(h).size();
    return same;
  }
  std::optional<rib::v1::FeaFeed> Feed(const std::string& fea) {
    auto r = client_->Call("rib", ipc::methods::rib::kListFeas, rib::v1::ListFeasRequest());
    if (!r.ok()) return std::nullopt;
    for (const rib::v1::FeaFeed& f : r->feas()) {
      if (f.fea() == fea) return f;
    }
    return std::nullopt;
  }

  std::string dir_;
  NetnsHost b_, c_;
  std::unique_ptr<ChildProcess> finder_, rib_;
  std::map<std::string, std::unique_ptr<ChildProcess>> clients_;
  std::unique_ptr<rtrmgr::cli::SyncClient> client_;
  size_t last_ = 0;  // the kernel's count when KernelIs gave up
};

TEST_F(RemoteFeaNetnsTest, BothKernelsGetTheTableAndOneFeasDeathOrStopLeavesTheOtherAlone) {
  ASSERT_TRUE(Client("bgp-1", "ebgp", kRoutes, "20.0.0.0/24"));
  ASSERT_TRUE(Client("bgp-2", "ibgp", 1000, "30.0.0.0/24"));
  const std::set<std::string> table = Slash24s(0x14000000u, kRoutes);
  const std::set<std::string> first = Union(table, Slash24s(0x1e000000u, 1000));
  ASSERT_TRUE(KernelIs(b_, first)) << last_ << " routes in B\n" << rib_->Output();
  ASSERT_TRUE(KernelIs(c_, first)) << last_ << " routes in C";

  // B's FEA is killed: C's kernel loses nothing for it. While B is down, 1,000 routes go and
  // 1,000 others come; C deletes exactly the 1,000.
  auto monitor = MonitorRoutes(c_);
  ASSERT_TRUE(monitor);
  b_.fea->Signal(SIGKILL);
  b_.fea->Wait(10000);
  ASSERT_TRUE(Eventually([&] {
    auto f = Feed("fea-b");
    return f && !f->up();
  }));
  clients_["bgp-2"]->Signal(SIGKILL);
  ASSERT_TRUE(Client("bgp-3", "rip", 1000, "40.0.0.0/24"));
  const std::set<std::string> second = Union(table, Slash24s(0x28000000u, 1000));
  ASSERT_TRUE(KernelIs(c_, second)) << last_ << " routes in C";
  EXPECT_EQ(Kernel(b_), first) << "B's kernel keeps forwarding with what it had";
  monitor->Signal(SIGTERM);
  monitor->Wait(5000);
  const std::vector<std::string> deleted = Table100Events(monitor->Output()).deleted;
  for (const std::string& line : deleted)
    EXPECT_TRUE(absl::StartsWith(line, "Deleted 30.")) << line;
  EXPECT_EQ(deleted.size(), 1000u);
  // B's FEA comes back: it adopts its kernel's routes, and the full push leaves exactly C's.
  b_.fea = StartFea(b_);
  ASSERT_TRUE(b_.fea);
  ASSERT_TRUE(KernelIs(b_, second)) << last_ << " routes in B";

  // B's FEA stops while 10,000 routes come: C gets them meanwhile; B lags, its backlog bounded,
  // and catches up once it goes on.
  auto before = Feed("fea-b");
  ASSERT_TRUE(before);
  b_.fea->Signal(SIGSTOP);
  ASSERT_TRUE(Client("bgp-4", "ospf", 10000, "50.0.0.0/24"));
  const std::set<std::string> third = Union(second, Slash24s(0x32000000u, 10000));
  ASSERT_TRUE(KernelIs(c_, third)) << last_ << " routes in C while B is stopped";
  // Past the bound B lagged: its queue was dropped, and the full push that follows waits at
  // the bound too (lagging, or re-sending with batches in flight that B does not answer).
  auto feed = Feed("fea-b");
  ASSERT_TRUE(feed);
  EXPECT_GT(feed->lagged(), before->lagged());
  EXPECT_LE(feed->queued(), static_cast<uint64_t>(kBacklog));
  b_.fea->Signal(SIGCONT);
  ASSERT_TRUE(KernelIs(b_, third)) << last_ << " routes in B";
  EXPECT_EQ(Kernel(c_), Kernel(b_));
}

// Each host has its own interfaces: a route goes to a kernel only where its nexthop is on-link.
// B alone has 10.8.0.0/24 (a second address on d0); C gets the routes through it once it has
// that subnet too.
TEST_F(RemoteFeaNetnsTest, EachKernelGetsTheRoutesWhoseNexthopItReaches) {
  b_.In("ip addr add 10.8.0.1/24 dev d0");
  ASSERT_TRUE(Client("bgp-1", "ebgp", 1000, "20.0.0.0/24"));
  // An EGP protocol: its nexthop resolves through B's subnet, whichever FEA came first.
  ASSERT_TRUE(Client("bgp-2", "ibgp", 1000, "30.0.0.0/24", "10.8.0.2"));
  const std::set<std::string> both = Slash24s(0x14000000u, 1000);
  const std::set<std::string> all = Union(both, Slash24s(0x1e000000u, 1000));
  ASSERT_TRUE(KernelIs(b_, all)) << last_ << " routes in B\n" << rib_->Output();
  ASSERT_TRUE(KernelIs(c_, both)) << last_ << " routes in C\n" << rib_->Output();
  EXPECT_THAT(b_.In("ip route show table 100 30.0.0.0/24"), ::testing::HasSubstr("via 10.8.0.2"));
  auto feed = Feed("fea-c");
  ASSERT_TRUE(feed);
  EXPECT_TRUE(feed->interfaces_known());
  EXPECT_EQ(feed->batches_failed(), 0u) << "C was sent no route it cannot install";

  // C gets 10.8.0.0/24: it is re-sent its FIB, now with the routes through it.
  c_.In("ip addr add 10.8.0.1/24 dev d0");
  ASSERT_TRUE(KernelIs(c_, all)) << last_ << " routes in C\n" << rib_->Output();
  EXPECT_EQ(Feed("fea-c")->batches_failed(), 0u);
  EXPECT_EQ(Kernel(b_), all);
}

}  // namespace
}  // namespace sluice::testing

int main(int argc, char** argv) {
  sluice::fea::testing::EnterPrivateNetworkNamespace();  // before any thread exists
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
