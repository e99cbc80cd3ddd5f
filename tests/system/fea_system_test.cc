// The netlink FEA with real processes against the Linux kernel, in a private network namespace this
// test process makes before anything else (root; every test skips with the reason otherwise):
// sluice-finder, sluice-fea --backend netlink --table 100, sluice-rib, the sluice CLI, and a
// watcher component in the test process. What is asserted is what an operator sees: `sluice
// call` replies and errors, `ip route show table 100 proto 83`.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ipc/proto/fea_ifmgr.pb.h"
#include "ipc/proto/fea_ifmgr_client.pb.h"
#include "ipc/xrl_router.h"
#include "tests/fea/netns.h"
#include "tests/system/fea_rib_processes.h"

namespace sluice {
namespace {

using fea::testing::KernelPrefixes;
using fea::testing::KernelSkipReason;
using fea::testing::MustRun;
using testing::CommandResult;
using testing::FeaRibProcesses;
using ::testing::HasSubstr;
namespace icpb = fea_ifmgr_client::v1;

constexpr unsigned kTable = 100;
constexpr unsigned kProto = 83;
constexpr char kFib[] = "finder://fea/fea_fib/1.0/";

// The i-th test route: a /24 in 10.128.0.0/9 via 10.1.0.2 (on v0's subnet).
std::string Prefix(int i) { return absl::StrCat("10.", 128 + i / 256, ".", i % 256, ".0/24"); }

class FeaSystemTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!KernelSkipReason().empty()) GTEST_SKIP() << KernelSkipReason();
    MustRun(
        "ip link add v0 type veth peer name v1 && ip addr add 10.1.0.1/24 dev v0 && "
        "ip addr add 2001:db8:1::1/64 dev v0 nodad && ip link set v0 up && ip link set v1 up");
    ASSERT_TRUE(p_.StartFinder());
    setenv("SLUICE_RUNDIR", p_.rundir().c_str(), 1);  // where the watcher serves
  }
  void TearDown() override {
    watcher_.reset();
    if (!KernelSkipReason().empty()) return;
    fea::testing::Run("ip link del v0; ip route flush table " + std::to_string(kTable) +
                      "; ip -6 route flush table " + std::to_string(kTable));
  }

  void StartFea() {
    ASSERT_TRUE(p_.StartFea({"--backend", "netlink", "--table", std::to_string(kTable)}));
  }

  // How many calls of a `sluice call -f` file were answered (one line each), for failures.
  static std::string Answered(const CommandResult& r) {
    return absl::StrCat("after ", std::count(r.out.begin(), r.out.end(), '\n'), " answered calls");
  }

  // `sluice call -f` on a file holding `lines`.
  CommandResult CallFile(const std::vector<std::string>& lines) {
    std::string path = p_.rundir() + "/calls.txt";
    std::ofstream out(path);
    for (const std::string& line : lines) out << line << "\n";
    out.close();
    return p_.Sluice({"call", "-f", path}, 120000);
  }

  uint32_t StartTransaction() {
    CommandResult r = p_.Call(std::string(kFib) + "start_transaction");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    // "tid:u32=7"
    size_t eq = r.out.find('=');
    return eq == std::string::npos ? 0 : static_cast<uint32_t>(std::stoul(r.out.substr(eq + 1)));
  }

  template <typename P>
  bool RunUntil(P done, int ms = 10000) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      io_.run_one_for(std::chrono::milliseconds(5));
    }
    return done();
  }

  // A component in this process that subscribes to the FEA's interface events.
  void StartWatcher() {
    ipc::RouterOptions options;
    options.finder_address = "unix:" + p_.rundir() + "/finder.sock";
    watcher_ = std::make_unique<ipc::XrlRouter>(io_, "watcher", "watcher", options);
    ASSERT_TRUE(watcher_
                    ->Handle(ipc::Method<icpb::InterfaceEventsRequest, icpb::InterfaceEventsReply>(
                                 "fea_ifmgr_client/1.0/interface_events"),
                             [this](const icpb::InterfaceEventsRequest& r)
                                 -> absl::StatusOr<icpb::InterfaceEventsReply> {
                               for (const icpb::InterfaceEvent& e : r.events()) {
                                 std::string text = icpb::InterfaceEvent::Kind_Name(e.kind());
                                 if (!e.interface().name().empty()) {
                                   text += " " + e.interface().name() +
                                           (e.interface().enabled() ? " up" : " down");
                                 }
                                 events_.push_back(text);
                               }
                               return icpb::InterfaceEventsReply();
                             })
                    .ok());
    ASSERT_TRUE(watcher_->Start().ok());
    ASSERT_TRUE(RunUntil([&] { return watcher_->registered(); }));
    fea_ifmgr::v1::SubscribeRequest subscribe;
    subscribe.set_target("watcher");
    std::optional<absl::Status> done;
    watcher_->Call("fea",
                   ipc::Method<fea_ifmgr::v1::SubscribeRequest, fea_ifmgr::v1::SubscribeReply>(
                       "fea_ifmgr/1.0/subscribe"),
                   subscribe,
                   [&](absl::StatusOr<fea_ifmgr::v1::SubscribeReply> r) { done = r.status(); });
    ASSERT_TRUE(RunUntil([&] { return done.has_value(); }));
    ASSERT_TRUE(done->ok()) << *done;
  }
  // The RIB holds v0's connected subnet (lo's 127.0.0.0/8 is there too).
  bool RibHasV0() {
    std::vector<std::string> routes = p_.RibRoutes();
    return std::find(routes.begin(), routes.end(), "10.1.0.0/24 connected") != routes.end();
  }
  bool Saw(const std::string& event) {
    return std::find(events_.begin(), events_.end(), event) != events_.end();
  }

  FeaRibProcesses p_;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_ =
      boost::asio::make_work_guard(io_);
  std::unique_ptr<ipc::XrlRouter> watcher_;
  std::vector<std::string> events_;
};

TEST_F(FeaSystemTest, ReportsTheKernelsInterfaces) {
  StartFea();
  CommandResult r = p_.Call("finder://fea/fea_ifmgr/1.0/list_interfaces");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("name:txt=v0&index:u32="));
  EXPECT_THAT(r.out, HasSubstr("address:ipvx=10.1.0.1&prefix_length:u32=24"));
  EXPECT_THAT(r.out, HasSubstr("address:ipvx=2001:db8:1::1&prefix_length:u32=64"));
  EXPECT_THAT(r.out, HasSubstr("name:txt=v1"));
  // Configuration belongs to the kernel with this backend.
  r = p_.Call("finder://fea/fea_ifmgr/1.0/add_interface?ifname:txt=x0");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("FAILED_PRECONDITION"));
}

TEST_F(FeaSystemTest, TenThousandRoutesInTransactionsFromTheShellThenDeleted) {
  StartFea();
  constexpr int kRoutes = 10000, kPerTransaction = 2500;
  std::set<std::string> expected;
  for (int start = 0; start < kRoutes; start += kPerTransaction) {
    uint32_t tid = StartTransaction();
    ASSERT_NE(tid, 0u);
    std::vector<std::string> lines;
    for (int i = start; i < start + kPerTransaction; ++i) {
      lines.push_back(absl::StrCat(kFib, "add_route4?tid:u32=", tid, "&network:ipv4net=", Prefix(i),
                                   "&nexthop:ipv4=10.1.0.2&protocol:txt=static"));
      expected.insert(Prefix(i));
    }
    lines.push_back(absl::StrCat(kFib, "commit_transaction?tid:u32=", tid));
    CommandResult r = CallFile(lines);
    ASSERT_EQ(r.exit_code, 0) << r.err << Answered(r);
    EXPECT_THAT(r.out, HasSubstr("added:u32=2500")) << "transaction " << tid;
    // Nothing of an open transaction is in the kernel; each commit adds its routes at once.
    EXPECT_EQ(KernelPrefixes(kTable, kProto).size(), static_cast<size_t>(start + kPerTransaction));
  }
  EXPECT_EQ(KernelPrefixes(kTable, kProto), expected);

  // Deleted in batches of 1,000 (apply_batch with a list<msg> argument).
  std::vector<std::string> lines;
  for (int start = 0; start < kRoutes; start += 1000) {
    std::string xrl = std::string(kFib) + "apply_batch?changes:list<msg>=";
    for (int i = start; i < start + 1000; ++i) {
      absl::StrAppend(&xrl, i == start ? "" : ",",
                      "(op:txt=DELETE&route:msg=(network:ipvxnet=", Prefix(i), "))");
    }
    lines.push_back(xrl);
  }
  CommandResult r = CallFile(lines);
  ASSERT_EQ(r.exit_code, 0) << r.err << Answered(r);
  EXPECT_THAT(r.out, HasSubstr("deleted:u32=1000"));
  EXPECT_TRUE(KernelPrefixes(kTable, kProto).empty());
}

TEST_F(FeaSystemTest, BadInputGetsAClearErrorAndLeavesTheKernelTableAsItWas) {
  StartFea();
  uint32_t tid = StartTransaction();
  CommandResult r = CallFile({absl::StrCat(kFib, "add_route4?tid:u32=", tid,
                                           "&network:ipv4net=10.9.0.0/16&nexthop:ipv4=10.1.0.2"),
                              absl::StrCat(kFib, "commit_transaction?tid:u32=", tid)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::set<std::string> before = {"10.9.0.0/16"};
  ASSERT_EQ(KernelPrefixes(kTable, kProto), before);

  // A route via an unknown interface.
  tid = StartTransaction();
  r = p_.Call(absl::StrCat(kFib, "add_route4?tid:u32=", tid,
                           "&network:ipv4net=10.10.0.0/16&ifname:txt=nosuch0"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("FAILED_PRECONDITION"));
  EXPECT_THAT(r.err, HasSubstr("unknown interface \"nosuch0\""));
  r = p_.Call(absl::StrCat(kFib, "commit_transaction?tid:u32=", tid));
  EXPECT_EQ(r.exit_code, 1) << "the failed transaction does not commit";

  // A nexthop on no connected network.
  tid = StartTransaction();
  r = p_.Call(absl::StrCat(kFib, "add_route4?tid:u32=", tid,
                           "&network:ipv4net=10.11.0.0/16&nexthop:ipv4=192.0.2.99"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("192.0.2.99"));
  EXPECT_THAT(r.err, HasSubstr("no connected network"));

  // A malformed prefix in the XRL: refused before anything is sent.
  for (const char* network : {"10.12.0.300/16", "10.12.0.1/16", "10.12.0.0/33"}) {
    r = p_.Call(absl::StrCat(kFib, "apply_batch?changes:list<msg>=(op:txt=ADD&route:msg=(",
                             "network:ipvxnet=", network,
                             "&nexthops:list<msg>=(gateway:ipvx=10.1.0.2)))"));
    EXPECT_EQ(r.exit_code, 1) << network;
    EXPECT_THAT(r.err, HasSubstr(network));
  }
  // A batch with one bad route applies none of it.
  r = p_.Call(absl::StrCat(
      kFib, "apply_batch?changes:list<msg>=", "(op:txt=ADD&route:msg=(network:ipvxnet=10.13.0.0/16",
      "&nexthops:list<msg>=(gateway:ipvx=10.1.0.2))),",
      "(op:txt=ADD&route:msg=(network:ipvxnet=10.14.0.0/16",
      "&nexthops:list<msg>=(gateway:ipvx=192.0.2.99)))"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("change #1"));
  EXPECT_EQ(KernelPrefixes(kTable, kProto), before);
}

TEST_F(FeaSystemTest, AnInterfaceGoingDownReachesTheWatcherAndTheRib) {
  StartFea();
  StartWatcher();
  ASSERT_TRUE(RunUntil([&] { return Saw("SYNC_DONE"); })) << ::testing::PrintToString(events_);
  EXPECT_TRUE(Saw("INTERFACE_ADDED v0 up"));
  ASSERT_TRUE(p_.StartRib());
  ASSERT_TRUE(FeaRibProcesses::WaitFor([&] { return RibHasV0(); }));

  events_.clear();
  MustRun("ip link set v0 down");
  ASSERT_TRUE(RunUntil([&] { return Saw("INTERFACE_ADDED v0 down"); }))
      << ::testing::PrintToString(events_);
  // The RIB, subscribed the same way, drops v0's connected route.
  EXPECT_TRUE(FeaRibProcesses::WaitFor([&] { return !RibHasV0(); }));
  MustRun("ip link set v0 up");
  ASSERT_TRUE(RunUntil([&] { return Saw("INTERFACE_ADDED v0 up"); }));
  EXPECT_TRUE(FeaRibProcesses::WaitFor([&] { return RibHasV0(); }));
}

TEST_F(FeaSystemTest, WithTheRibACrashedFeasLeftoversAreReconciledAndACleanStopRemovesAll) {
  StartFea();
  ASSERT_TRUE(p_.StartRib());
  ASSERT_TRUE(FeaRibProcesses::WaitFor([&] { return p_.Status("rib") == "READY"; }));
  // Through the RIB: static and ebgp (resolved through v0's connected subnet).
  for (const char* xrl :
       {"finder://rib/rib/1.0/add_route4?protocol:txt=static&network:ipv4net=10.50.0.0/16&"
        "nexthop:ipv4=10.1.0.2",
        "finder://rib/rib/1.0/add_route4?protocol:txt=ebgp&network:ipv4net=10.51.0.0/16&"
        "nexthop:ipv4=10.1.0.3",
        "finder://rib/rib/1.0/add_route6?protocol:txt=static&network:ipv6net=2001:db8:50::/48&"
        "nexthop:ipv6=2001:db8:1::2"}) {
    CommandResult r = p_.Call(xrl);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // And one straight into the FEA, which the RIB does not know.
  uint32_t tid = StartTransaction();
  ASSERT_EQ(CallFile({absl::StrCat(kFib, "add_route4?tid:u32=", tid,
                                   "&network:ipv4net=10.60.0.0/16&nexthop:ipv4=10.1.0.2"),
                      absl::StrCat(kFib, "commit_transaction?tid:u32=", tid)})
                .exit_code,
            0);
  const std::set<std::string> from_rib = {"10.50.0.0/16", "10.51.0.0/16", "2001:db8:50::/48"};
  std::set<std::string> all = from_rib;
  all.insert("10.60.0.0/16");
  ASSERT_TRUE(FeaRibProcesses::WaitFor([&] { return KernelPrefixes(kTable, kProto) == all; }))
      << fea::testing::KernelTable(kTable);
  // Connected routes stay the kernel's own.
  EXPECT_THAT(MustRun("ip route show table 100"), ::testing::Not(HasSubstr("10.1.0.0/24")));

  // kill -9: the routes stay in the kernel. The next FEA keeps them until the RIB has re-sent
  // its FIB, then removes what was not re-sent.
  ASSERT_TRUE(p_.Stop(p_.fea_process(), SIGKILL).has_value());
  EXPECT_EQ(KernelPrefixes(kTable, kProto), all);
  StartFea();
  ASSERT_TRUE(FeaRibProcesses::WaitFor([&] { return KernelPrefixes(kTable, kProto) == from_rib; }))
      << fea::testing::KernelTable(kTable);
  EXPECT_THAT(MustRun("ip route show table 100 10.51.0.0/16"), HasSubstr("via 10.1.0.3 dev v0"));

  // SIGTERM: a clean stop takes every route of the FEA out of the kernel.
  EXPECT_EQ(p_.Stop(p_.fea_process(), SIGTERM), 0);
  EXPECT_TRUE(KernelPrefixes(kTable, kProto).empty()) << fea::testing::KernelTable(kTable);
}

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) {
  sluice::fea::testing::EnterPrivateNetworkNamespace();  // before any thread exists
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
