// The RIB with real processes: sluice-finder, sluice-fea (dummy backend), sluice-rib, a protocol
// component (sluice-rib-test-client) and the sluice CLI, each test in a private SLUICE_RUNDIR.
// What is asserted is what an operator sees through `sluice call`: the FEA's FIB
// (fea_fib/1.0/list_routes), the RIB's winners, process status and exit codes.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/system/fea_rib_processes.h"

namespace sluice {
namespace {

using testing::BuildPath;
using testing::ChildProcess;
using testing::CommandResult;
using ::testing::ElementsAre;
using testing::FeaRibProcesses;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::UnorderedElementsAre;

constexpr char kRib[] = "finder://rib/rib/1.0/";

std::string AddRoute4(const std::string& protocol, const std::string& network,
                      const std::string& nexthop) {
  return std::string(kRib) + "add_route4?protocol:txt=" + protocol + "&network:ipv4net=" + network +
         "&nexthop:ipv4=" + nexthop;
}

class RibSystemTest : public ::testing::Test {
 protected:
  // Finder, FEA (dummy, eth0 192.0.2.1/24 from its command line) and RIB, all READY.
  void StartAll() {
    ASSERT_TRUE(p_.StartFinder());
    ASSERT_TRUE(p_.StartFea(FeaArgs()));
    ASSERT_TRUE(p_.StartRib());
    ASSERT_TRUE(FeaRibProcesses::WaitFor([&] { return p_.Status("rib") == "READY"; }));
  }
  static std::vector<std::string> FeaArgs() {
    return {"--backend", "dummy", "--interface", "eth0=192.0.2.1/24"};
  }
  // Waits until the FIB is exactly `expected` plus the connected routes of lo and eth0.
  bool FibIs(std::vector<std::string> expected, int ms = 20000, const std::string& fea = "fea") {
    expected.insert(expected.end(), kConnected.begin(), kConnected.end());
    const std::set<std::string> want(expected.begin(), expected.end());
    bool same = FeaRibProcesses::WaitFor(
        [&] {
          std::vector<std::string> fib = p_.FibRoutes(nullptr, fea);
          return std::set<std::string>(fib.begin(), fib.end()) == want;
        },
        ms);
    if (!same) last_fib_ = p_.FibRoutes(nullptr, fea);
    return same;
  }
  static inline const std::vector<std::string> kConnected = {
      "127.0.0.0/8 dev lo proto connected", "192.0.2.0/24 dev eth0 proto connected",
      "::1/128 dev lo proto connected"};
  std::unique_ptr<ChildProcess> StartClient(const std::string& instance,
                                            std::vector<std::string> args) {
    args.insert(args.begin(),
                {BuildPath("tests/system/sluice-rib-test-client"), "--instance", instance});
    return ChildProcess::Start(args, p_.Env());
  }
  // Once the FEAs run: a RIB sending batches of 500 and queueing at most 25,000 changes per FEA,
  // and an ebgp owner that has added 20,000 /24s from 20.0.0.0 via 192.0.2.7 (nullptr, with a
  // failure, when any of it did not come up).
  std::unique_ptr<ChildProcess> StartBoundedRibWithEbgpTable() {
    if (!p_.StartRib({"--fea-batch-size", "500", "--fea-max-backlog", "25000"}) ||
        !FeaRibProcesses::WaitFor([&] { return p_.Status("rib") == "READY"; })) {
      ADD_FAILURE() << "the RIB did not become READY";
      return nullptr;
    }
    auto ebgp =
        StartClient("bgp-1", {"--protocol", "ebgp", "--routes", "20000,20.0.0.0/24,192.0.2.7"});
    if (ebgp == nullptr || !ebgp->WaitForOutput("added 20000", 20000)) {
      ADD_FAILURE() << "the ebgp owner did not add its routes: "
                    << (ebgp ? ebgp->Output() : "it did not start");
      return nullptr;
    }
    return ebgp;
  }

  FeaRibProcesses p_;
  std::vector<std::string> last_fib_;
};

TEST_F(RibSystemTest, WinnersReachTheFibADeadOwnersRoutesLeaveAndARestartedFeaGetsEverything) {
  StartAll();
  // Static and ebgp routes from the shell: the static route wins 10/8 (admin distance 1 < 20).
  for (const std::string& xrl : {AddRoute4("static", "10.0.0.0/8", "192.0.2.2"),
                                 AddRoute4("ebgp", "10.0.0.0/8", "192.0.2.3"),
                                 AddRoute4("ebgp", "172.16.0.0/12", "192.0.2.3")}) {
    CommandResult r = p_.Call(xrl);
    ASSERT_EQ(r.exit_code, 0) << xrl << ": " << r.err;
  }
  const std::vector<std::string> from_shell = {"10.0.0.0/8 via 192.0.2.2 proto static",
                                               "172.16.0.0/12 via 192.0.2.3 dev eth0 proto ebgp"};
  ASSERT_TRUE(FibIs(from_shell)) << ::testing::PrintToString(last_fib_);

  // A protocol component registers as the owner of "ebgp" and adds its routes (one replaces the
  // ebgp route the shell added for 172.16/12).
  const std::vector<std::string> bgp_args = {"--protocol", "ebgp",
                                             "--route",    "172.16.0.0/12,192.0.2.7",
                                             "--route",    "198.51.100.0/24,192.0.2.7"};
  auto bgp = StartClient("bgp-1", bgp_args);
  ASSERT_NE(bgp, nullptr);
  ASSERT_TRUE(bgp->WaitForOutput("added 2", 10000)) << bgp->Output();
  const std::vector<std::string> with_bgp = {"10.0.0.0/8 via 192.0.2.2 proto static",
                                             "172.16.0.0/12 via 192.0.2.7 dev eth0 proto ebgp",
                                             "198.51.100.0/24 via 192.0.2.7 dev eth0 proto ebgp"};
  ASSERT_TRUE(FibIs(with_bgp)) << ::testing::PrintToString(last_fib_);

  // kill -9 the component: the routes of the protocol it owns leave the FIB.
  bgp->Signal(SIGKILL);
  ASSERT_TRUE(FibIs({"10.0.0.0/8 via 192.0.2.2 proto static"}))
      << ::testing::PrintToString(last_fib_);
  // It comes back and re-sends: they return.
  bgp = StartClient("bgp-1", bgp_args);
  ASSERT_TRUE(bgp->WaitForOutput("added 2", 10000)) << bgp->Output();
  ASSERT_TRUE(FibIs(with_bgp)) << ::testing::PrintToString(last_fib_);

  // kill -9 the FEA and start it again: the RIB re-sends the whole FIB.
  ASSERT_TRUE(p_.Stop(p_.fea_process(), SIGKILL).has_value());
  ASSERT_TRUE(FeaRibProcesses::WaitFor([&] { return p_.Status("rib") == "NOT_READY"; }));
  ASSERT_TRUE(p_.StartFea(FeaArgs()));
  ASSERT_TRUE(FibIs(with_bgp)) << ::testing::PrintToString(last_fib_);
  EXPECT_EQ(p_.Status("rib"), "READY");
  CommandResult plumbing = p_.Call("finder://rib/profile/1.0/describe_plumbing");
  // Two full pushes: to the first FEA and to the restarted one (text escaped in XRL form).
  EXPECT_THAT(plumbing.out, HasSubstr("2%20full%20pushes"));
}

TEST_F(RibSystemTest, ARestartedRibReplacesTheFibItLeftAndRemovesWhatItNoLongerHas) {
  StartAll();
  ASSERT_EQ(p_.Call(AddRoute4("static", "10.0.0.0/8", "192.0.2.2")).exit_code, 0);
  ASSERT_EQ(p_.Call(AddRoute4("static", "10.1.0.0/16", "192.0.2.2")).exit_code, 0);
  ASSERT_TRUE(
      FibIs({"10.0.0.0/8 via 192.0.2.2 proto static", "10.1.0.0/16 via 192.0.2.2 proto static"}))
      << ::testing::PrintToString(last_fib_);
  // The RIB dies; a new one knows only what is added to it again. The FEA keeps what it holds
  // until the protocol says end-of-RIB to the new RIB (DESIGN.md § Restarts).
  ASSERT_TRUE(p_.Stop(p_.rib_process(), SIGKILL).has_value());
  ASSERT_TRUE(p_.StartRib());
  ASSERT_TRUE(FeaRibProcesses::WaitFor([&] { return p_.Status("rib") == "READY"; }));
  ASSERT_EQ(p_.Call(AddRoute4("static", "10.0.0.0/8", "192.0.2.5")).exit_code, 0);
  ASSERT_TRUE(
      FibIs({"10.0.0.0/8 via 192.0.2.5 proto static", "10.1.0.0/16 via 192.0.2.2 proto static"}))
      << ::testing::PrintToString(last_fib_);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  ASSERT_TRUE(
      FibIs({"10.0.0.0/8 via 192.0.2.5 proto static", "10.1.0.0/16 via 192.0.2.2 proto static"}))
      << "swept before end-of-RIB: " << ::testing::PrintToString(last_fib_);
  ASSERT_EQ(p_.Call("finder://rib/rib/1.0/end_of_rib?protocol:txt=static").exit_code, 0);
  ASSERT_TRUE(FibIs({"10.0.0.0/8 via 192.0.2.5 proto static"}))
      << ::testing::PrintToString(last_fib_);
}

TEST_F(RibSystemTest, StatusFollowsTheFeaAndSigtermExitsCleanly) {
  ASSERT_TRUE(p_.StartFinder());
  ASSERT_TRUE(p_.StartRib());
  EXPECT_EQ(p_.Status("rib"), "NOT_READY");
  CommandResult status = p_.Call("finder://rib/common/1.0/get_status");
  EXPECT_THAT(status.out, HasSubstr("waiting%20for%20the%20FEA"));
  ASSERT_TRUE(p_.StartFea(FeaArgs()));
  EXPECT_TRUE(FeaRibProcesses::WaitFor([&] { return p_.Status("rib") == "READY"; }));
  // Routes added meanwhile reach the FIB; profile/1.0 lists the RIB's points.
  ASSERT_EQ(p_.Call(AddRoute4("static", "10.0.0.0/8", "192.0.2.2")).exit_code, 0);
  ASSERT_TRUE(FibIs({"10.0.0.0/8 via 192.0.2.2 proto static"}));
  CommandResult points = p_.Call("finder://rib/profile/1.0/list_points");
  EXPECT_THAT(points.out, HasSubstr("rib_route_in"));
  EXPECT_THAT(points.out, HasSubstr("rib_queued_to_fea"));
  EXPECT_THAT(points.out, HasSubstr("rib_sent_to_fea"));

  EXPECT_EQ(p_.Stop(p_.rib_process(), SIGTERM), 0);
  // common/1.0/shutdown stops the FEA; it exits 0 and its FIB is gone with it.
  CommandResult shutdown = p_.Call("finder://fea/common/1.0/shutdown");
  EXPECT_EQ(shutdown.exit_code, 0) << shutdown.err;
  EXPECT_EQ(p_.fea()->Wait(10000), 0);
}

// The /24s of a `--routes N,FIRST,NEXTHOP` client as the FEA lists them.
std::vector<std::string> FibLines(uint32_t n, uint32_t first, const std::string& nexthop,
                                  const std::string& protocol) {
  std::vector<std::string> out;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t a = first + (i << 8);
    out.push_back(absl::StrCat(a >> 24, ".", (a >> 16) & 255, ".", (a >> 8) & 255, ".0/24 via ",
                               nexthop, " dev eth0 proto ", protocol));
  }
  return out;
}

TEST_F(RibSystemTest, AStoppedFeaLagsWhileTheRibStaysBoundedThenGetsExactlyTheRibsTable) {
  ASSERT_TRUE(p_.StartFinder());
  ASSERT_TRUE(p_.StartFea(FeaArgs()));
  auto ebgp = StartBoundedRibWithEbgpTable();
  ASSERT_NE(ebgp, nullptr);
  ASSERT_TRUE(FibIs(FibLines(20000, 0x14000000u, "192.0.2.7", "ebgp"), 60000))
      << last_fib_.size() << " routes";

  // The FEA stops answering. Meanwhile ebgp's owner dies (20,000 deletions) and an ibgp owner
  // adds 20,000 other routes: 40,000 changes for the FEA, past the RIB's bound of 25,000.
  p_.fea()->Signal(SIGSTOP);
  ebgp->Signal(SIGKILL);
  auto ibgp =
      StartClient("bgp-2", {"--protocol", "ibgp", "--routes", "20000,30.0.0.0/24,192.0.2.8"});
  ASSERT_NE(ibgp, nullptr);
  ASSERT_TRUE(ibgp->WaitForOutput("added 20000", 20000)) << ibgp->Output();
  ASSERT_TRUE(FeaRibProcesses::WaitFor(
      [&] {
        std::vector<std::string> winners = p_.RibRoutes();
        return winners.size() == 20002 && winners.front().find("ebgp") == std::string::npos;
      },
      60000))
      << "the RIB goes on while the FEA is stopped";
  CommandResult plumbing = p_.Sluice({"show", "plumbing", "rib"});
  ASSERT_EQ(plumbing.exit_code, 0) << plumbing.err;
  EXPECT_THAT(plumbing.out, HasSubstr("lagging")) << plumbing.out;
  // What an operator sees of the queue's high-water mark: never past the bound (+1 change).
  std::smatch peak;
  ASSERT_TRUE(std::regex_search(plumbing.out, peak, std::regex("ipv4/fea-out.*peak_queued=(\\d+)")))
      << plumbing.out;
  EXPECT_LE(std::stoul(peak[1]), 25001u) << plumbing.out;

  // It answers again: once it has caught up, a full push leaves it exactly the RIB's table.
  p_.fea()->Signal(SIGCONT);
  ASSERT_TRUE(FibIs(FibLines(20000, 0x1e000000u, "192.0.2.8", "ibgp"), 60000))
      << last_fib_.size() << " routes, the first "
      << (last_fib_.empty() ? std::string() : last_fib_.front());
  plumbing = p_.Sluice({"show", "plumbing", "rib"});
  EXPECT_THAT(plumbing.out, HasSubstr("2 full pushes")) << plumbing.out;
  EXPECT_THAT(plumbing.out, Not(HasSubstr(" lagging"))) << plumbing.out;
}

// One RIB, two FEAs: each gets the table; one stopped lags alone and catches up alone; one
// killed and restarted is re-sent the table alone.
TEST_F(RibSystemTest, EveryFeaGetsTheTableAndOneStoppedOrKilledHoldsUpNoOther) {
  ASSERT_TRUE(p_.StartFinder());
  ASSERT_TRUE(p_.StartFea(FeaArgs()));
  ASSERT_TRUE(p_.StartOtherFea("fea-2", FeaArgs()));
  auto ebgp = StartBoundedRibWithEbgpTable();
  ASSERT_NE(ebgp, nullptr);
  const std::vector<std::string> first = FibLines(20000, 0x14000000u, "192.0.2.7", "ebgp");
  ASSERT_TRUE(FibIs(first, 60000, "fea")) << last_fib_.size() << " routes";
  ASSERT_TRUE(FibIs(first, 60000, "fea-2")) << last_fib_.size() << " routes";

  // fea-2 stops answering while 40,000 changes pass: fea applies all of them meanwhile.
  p_.other_fea("fea-2")->Signal(SIGSTOP);
  ebgp->Signal(SIGKILL);
  auto ibgp =
      StartClient("bgp-2", {"--protocol", "ibgp", "--routes", "20000,30.0.0.0/24,192.0.2.8"});
  ASSERT_NE(ibgp, nullptr);
  ASSERT_TRUE(ibgp->WaitForOutput("added 20000", 20000)) << ibgp->Output();
  const std::vector<std::string> second = FibLines(20000, 0x1e000000u, "192.0.2.8", "ibgp");
  ASSERT_TRUE(FibIs(second, 60000, "fea")) << "while fea-2 is stopped: " << last_fib_.size();
  CommandResult plumbing = p_.Sluice({"show", "plumbing", "rib"});
  ASSERT_EQ(plumbing.exit_code, 0) << plumbing.err;
  EXPECT_TRUE(std::regex_search(plumbing.out, std::regex("ipv4/fea-out/fea-2 .* lagging")))
      << plumbing.out;
  EXPECT_FALSE(std::regex_search(plumbing.out, std::regex("ipv4/fea-out/fea .* lagging")))
      << plumbing.out;
  // What an operator sees (no router manager here: the FEA table alone): 20,003 routes with
  // the connected ones; fea-2's backlog is what it was sent before it stopped. On a loaded
  // machine fea itself may fall past the bound during the burst; each lag costs it one full
  // push, and nothing else does.
  CommandResult processes = p_.Sluice({"show", "processes"});
  ASSERT_EQ(processes.exit_code, 0) << processes.err;
  std::smatch row;
  ASSERT_TRUE(std::regex_search(processes.out, row,
                                std::regex("\\nfea +up +20003 +0 +([0-9]+) +([0-9]+) +known\\n")))
      << processes.out;
  EXPECT_EQ(std::stoul(row[1]), 1 + std::stoul(row[2])) << processes.out;
  EXPECT_TRUE(std::regex_search(processes.out,
                                std::regex("\\nfea-2 +lagging +- +[0-9]+ +1 +[12] +known\\n")))
      << processes.out;
  p_.other_fea("fea-2")->Signal(SIGCONT);
  ASSERT_TRUE(FibIs(second, 60000, "fea-2")) << last_fib_.size() << " routes";
  CommandResult fib = p_.Sluice({"show", "fib", "fea", "fea-2", "--json"});
  ASSERT_EQ(fib.exit_code, 0) << fib.err;
  EXPECT_THAT(fib.out, HasSubstr("\"30.0.0.0/24\"")) << fib.out.substr(0, 300);
  processes = p_.Sluice({"show", "processes", "--json"});
  EXPECT_THAT(processes.out, HasSubstr("{\"name\":\"fea-2\",\"state\":\"up\",\"routes\":20003,"))
      << processes.out;

  // fea-2 is killed; 1,000 routes come meanwhile; a new fea-2 ends with exactly fea's table,
  // and fea is re-sent nothing.
  ASSERT_TRUE(p_.Stop(p_.other_fea("fea-2"), SIGKILL).has_value());
  auto more =
      StartClient("bgp-3", {"--protocol", "ebgp", "--routes", "1000,40.0.0.0/24,192.0.2.9"});
  ASSERT_NE(more, nullptr);
  ASSERT_TRUE(more->WaitForOutput("added 1000", 20000)) << more->Output();
  std::vector<std::string> third = second;
  for (const std::string& line : FibLines(1000, 0x28000000u, "192.0.2.9", "ebgp")) {
    third.push_back(line);
  }
  ASSERT_TRUE(FibIs(third, 60000, "fea")) << last_fib_.size() << " routes";
  ASSERT_TRUE(p_.StartOtherFea("fea-2", FeaArgs()));
  ASSERT_TRUE(FibIs(third, 60000, "fea-2")) << last_fib_.size() << " routes";
  processes = p_.Sluice({"show", "processes"});
  ASSERT_TRUE(std::regex_search(processes.out, row,
                                std::regex("\\nfea +up +21003 +0 +([0-9]+) +([0-9]+) +known\\n")))
      << processes.out;
  EXPECT_EQ(std::stoul(row[1]), 1 + std::stoul(row[2])) << "fea was re-sent for fea-2\n"
                                                        << processes.out;
  plumbing = p_.Sluice({"show", "plumbing", "rib"});
  EXPECT_TRUE(std::regex_search(plumbing.out, std::regex("FEA fea-2: [^\\n]* 3 full pushes")))
      << plumbing.out;
}

TEST_F(RibSystemTest, BadOptionsExitWithAMessage) {
  for (const auto& [program, option] :
       std::vector<std::pair<std::string, std::string>>{{"rib/sluice-rib", "--bogus"},
                                                        {"fea/sluice-fea", "--backend"},
                                                        {"fea/sluice-fea", "--table"}}) {
    std::vector<std::string> argv = {BuildPath(program), option};
    if (option != "--bogus") argv.push_back("nonsense");
    CommandResult r = testing::RunCommand(argv, p_.Env(), 10000);
    EXPECT_EQ(r.exit_code, 2) << program << " " << option;
    EXPECT_THAT(r.err, HasSubstr("usage:")) << r.err;
    EXPECT_THAT(r.err, HasSubstr(option == "--bogus" ? "--bogus" : "nonsense")) << r.err;
  }
}

}  // namespace
}  // namespace sluice
