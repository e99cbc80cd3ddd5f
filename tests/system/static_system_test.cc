// sluice-static with real processes: sluice-finder, sluice-fea (dummy backend), sluice-rib and
// sluice-static, driven and read through the `sluice` CLI. sluice-static's routes reach the RIB
// and the FIB; a tracked route is withdrawn while the RIB cannot resolve its nexthop and returns
// when it can. kill -9 sluice-static leaves its routes in the RIB and the FIB, stale (DESIGN.md
// § Restarts); a restarted sluice-static re-sends its configured routes and says end-of-RIB, and
// the RIB withdraws the stale one it did not send again; SIGTERM (a deliberate stop) takes every
// route out.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/system/fea_rib_processes.h"

namespace sluice {
namespace {

using testing::BuildPath;
using testing::ChildProcess;
using testing::CommandResult;
using testing::FeaRibProcesses;

class StaticSystemTest : public ::testing::Test {
 protected:
  void StartAll() {
    ASSERT_TRUE(p_.StartFinder());
    ASSERT_TRUE(p_.StartFea({"--backend", "dummy", "--interface", "eth0=192.0.2.1/24"}));
    ASSERT_TRUE(p_.StartRib());
    ASSERT_TRUE(FeaRibProcesses::WaitFor([&] { return p_.Status("rib") == "READY"; }));
  }
  std::unique_ptr<ChildProcess> StartStatic() {
    const std::string config = p_.rundir() + "/static.conf";
    std::ofstream(config) << "# static routes\n"
                             "198.51.100.0/24 dev eth0\n"
                             "2001:db8::/32 dev eth0   # IPv6, interface only\n";
    return ChildProcess::Start(
        {BuildPath("static_routes/sluice-static"), "--route", "10.0.0.0/8 via 192.0.2.2", "--route",
         "10.20.0.0/16 via 203.0.113.1 track", "--config", config},
        p_.Env());
  }
  // The RIB's winners of protocol "static" (both families).
  std::set<std::string> RibStatic() {
    std::set<std::string> out;
    for (const char* family : {"ipv4", "ipv6"}) {
      for (const std::string& r : p_.RibRoutes(family)) {
        if (r.ends_with(" static")) out.insert(r.substr(0, r.size() - 7));
      }
    }
    return out;
  }
  std::set<std::string> FibStatic() {
    std::set<std::string> out;
    for (const std::string& r : p_.FibRoutes()) {
      if (r.ends_with(" proto static")) out.insert(r);
    }
    return out;
  }
  bool RibStaticIs(const std::set<std::string>& want) {
    bool ok = FeaRibProcesses::WaitFor([&] { return RibStatic() == want; });
    if (!ok) last_ = ::testing::PrintToString(RibStatic());
    return ok;
  }
  bool FibStaticIs(const std::set<std::string>& want) {
    bool ok = FeaRibProcesses::WaitFor([&] { return FibStatic() == want; });
    if (!ok) last_ = ::testing::PrintToString(FibStatic());
    return ok;
  }
  CommandResult Call(const std::string& xrl) { return p_.Call(xrl); }

  FeaRibProcesses p_;
  std::string last_;
};

const std::set<std::string> kUntracked = {"10.0.0.0/8", "198.51.100.0/24", "2001:db8::/32"};

TEST_F(StaticSystemTest, RoutesReachRibAndFibFollowTheirNexthopAndLeaveWithTheProcess) {
  StartAll();
  auto st = StartStatic();
  ASSERT_NE(st, nullptr);
  ASSERT_TRUE(st->WaitForOutput("rib up", 10000)) << st->Output();

  // Untracked routes of both families, by nexthop or by interface: in the RIB and the FIB. The
  // tracked route's nexthop 203.0.113.1 is unresolvable: it is not in the RIB.
  ASSERT_TRUE(RibStaticIs(kUntracked)) << last_;
  ASSERT_TRUE(
      FibStaticIs({"10.0.0.0/8 via 192.0.2.2 proto static", "198.51.100.0/24 dev eth0 proto static",
                   "2001:db8::/32 dev eth0 proto static"}))
      << last_;
  CommandResult list = Call("finder://static_routes/static_routes/1.0/list_routes");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, ::testing::HasSubstr("nexthop_state:txt=unresolvable"));

  // The nexthop's subnet appears on eth0 (fea_ifmgr/1.0/add_address: a connected route in the
  // RIB): the tracked route comes in, to the RIB and the FIB.
  const std::string address = "ifname:txt=eth0&address:ipvx=203.0.113.254";
  const std::string add_address =
      "finder://fea/fea_ifmgr/1.0/add_address?" + address + "&prefix_length:u32=24";
  const std::string remove_address = "finder://fea/fea_ifmgr/1.0/remove_address?" + address;
  CommandResult added = Call(add_address);
  ASSERT_EQ(added.exit_code, 0) << added.err;
  std::set<std::string> with_tracked = kUntracked;
  with_tracked.insert("10.20.0.0/16");
  ASSERT_TRUE(RibStaticIs(with_tracked)) << last_;
  ASSERT_TRUE(FeaRibProcesses::WaitFor([&] {
    return FibStatic().contains("10.20.0.0/16 via 203.0.113.1 proto static");
  })) << ::testing::PrintToString(FibStatic());
  // The address goes: the nexthop is unresolvable, the route leaves the RIB and the FIB ...
  ASSERT_EQ(Call(remove_address).exit_code, 0);
  ASSERT_TRUE(RibStaticIs(kUntracked)) << last_;
  ASSERT_TRUE(FeaRibProcesses::WaitFor([&] {
    return !FibStatic().contains("10.20.0.0/16 via 203.0.113.1 proto static");
  })) << ::testing::PrintToString(FibStatic());
  // ... and returns with it.
  ASSERT_EQ(Call(add_address).exit_code, 0);
  ASSERT_TRUE(RibStaticIs(with_tracked)) << last_;

  // Configured at run time through static_routes/1.0 (as the router manager does).
  CommandResult add = Call(
      "finder://static_routes/static_routes/1.0/add_route?network:ipvxnet=172.16.0.0/"
      "12&nexthop:ipvx=192.0.2.5");
  ASSERT_EQ(add.exit_code, 0) << add.err;
  std::set<std::string> with_added = with_tracked;
  with_added.insert("172.16.0.0/12");
  ASSERT_TRUE(RibStaticIs(with_added)) << last_;
  CommandResult bad = Call(
      "finder://static_routes/static_routes/1.0/add_route?network:ipvxnet=172.16.0.0/"
      "12&nexthop:ipvx=2001:db8::1");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_THAT(bad.err, ::testing::HasSubstr("other address family"));

  // kill -9: every static route stays in the RIB and the FIB, stale.
  const std::set<std::string> fib_before = FibStatic();
  st->Signal(SIGKILL);
  ASSERT_TRUE(st->Wait(10000).has_value());
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_TRUE(RibStaticIs(with_added)) << last_;
  EXPECT_EQ(FibStatic(), fib_before);

  // Restarted with the same flags and file: it re-sends its configured routes and says
  // end-of-RIB; the one added over static_routes/1.0 (the router manager's to send again) is
  // not re-sent, so it leaves.
  st = StartStatic();
  ASSERT_NE(st, nullptr);
  ASSERT_TRUE(st->WaitForOutput("rib up", 10000)) << st->Output();
  ASSERT_TRUE(RibStaticIs(with_tracked)) << last_;

  // SIGTERM: a deliberate stop withdraws every static route.
  st->Signal(SIGTERM);
  ASSERT_TRUE(st->Wait(10000).has_value());
  ASSERT_TRUE(RibStaticIs({})) << last_;
  ASSERT_TRUE(FibStaticIs({})) << last_;
}

TEST_F(StaticSystemTest, BadConfigurationExitsWithAMessage) {
  testing::CommandResult r = testing::RunCommand(
      {BuildPath("static_routes/sluice-static"), "--route", "10.0.0.0/8 via 2001:db8::1"}, {},
      10000);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, ::testing::HasSubstr("other address family"));
}

}  // namespace
}  // namespace sluice
