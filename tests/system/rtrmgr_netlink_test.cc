// The router manager against the kernel: sluice-rtrmgr with `fea { backend netlink; table 100; }`
// in a private network namespace (root; skipped otherwise). A sluice-replay upstream feeds a
// synthetic table with a nexthop on a veth subnet; the kernel table then holds exactly the RIB's
// winners (connected routes stay the kernel's own); SIGTERM to the router manager takes every
// Sluice route out of the kernel.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

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
constexpr int kPort = 10180;  // private namespace: nobody else listens here
constexpr int kPrefixes = 50000;

TEST(RtrmgrNetlink, TheKernelTableHoldsTheRibsWinnersAndSigtermEmptiesIt) {
  if (!KernelSkipReason().empty()) GTEST_SKIP() << KernelSkipReason();
  MustRun(
      "ip link add v0 type veth peer name v1 && ip addr add 10.1.0.1/24 dev v0 && "
      "ip link set v0 up && ip link set v1 up");
  RtrmgrProcess r;
  const std::string conf = r.WriteConfig("router.conf", absl::StrCat(R"(
fea { backend netlink; table )",
                                                                     kTable, R"(; }
protocols {
    static { route 192.0.2.0/24 { next-hop 10.1.0.2; } }
    bgp {
        local-as 4200000001;
        bgp-id 10.255.0.1;
        listen 127.0.0.1 port )",
                                                                     kPort, R"(;
        peer 127.0.0.2 { as 4200000002; local-ip 127.0.0.1; passive; }
    }
}
)"));
  ASSERT_TRUE(r.Start(conf)) << r.Logs("rtrmgr");
  auto replay = ChildProcess::Start(
      {BuildPath("bgp/replay/sluice-replay"), "--connect", absl::StrCat("127.0.0.1:", kPort),
       "--local-address", "127.0.0.2", "--local-as", "4200000002", "--prepend-own-as", "--next-hop",
       "10.1.0.2", "--synthetic", absl::StrCat(kPrefixes), "--linger", "--quiet"});
  ASSERT_TRUE(replay);

  // The RIB's winners other than connected (the kernel has its own) = the kernel table.
  std::set<std::string> want, have;
  ASSERT_TRUE(Eventually(
      [&] {
        auto ebgp = r.RibPrefixes("ebgp");
        auto statics = r.RibPrefixes("static");
        if (!ebgp || !statics || ebgp->size() + 1 < static_cast<size_t>(kPrefixes)) return false;
        want.clear();
        for (const auto& p : *ebgp) want.insert(p.ToString());
        for (const auto& p : *statics) want.insert(p.ToString());
        have = KernelPrefixes(kTable, kProto);
        return have == want;
      },
      180))
      << "RIB " << want.size() << " prefixes, kernel table " << have.size() << "\n"
      << r.Logs("fea") << r.Logs("rib");
  EXPECT_TRUE(have.count("192.0.2.0/24"));

  // SIGTERM: BGP, the RIB, then the FEA stop; the FEA's routes leave the kernel.
  replay->Signal(SIGTERM);
  replay->Wait(10000);
  EXPECT_EQ(r.Stop(), 0);
  EXPECT_TRUE(KernelPrefixes(kTable, kProto).empty()) << fea::testing::KernelTable(kTable);
  fea::testing::Run("ip link del v0");
}

}  // namespace
}  // namespace sluice::testing

int main(int argc, char** argv) {
  sluice::fea::testing::EnterPrivateNetworkNamespace();  // before any thread exists
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
