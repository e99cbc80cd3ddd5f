// The router manager's own restart with real processes (DESIGN.md § Restarts): a SIGKILL of
// sluice-rtrmgr leaves sluice-finder, sluice-fea (dummy), sluice-rib, sluice-bgp and
// sluice-static running with their routes; a new sluice-rtrmgr on the same run directory adopts
// them (same pids, no copies), restarts an adopted process that dies (the Finder too, on a new
// socket), applies a changed file as a delta, and stops everything on SIGTERM. A corrupt or stale
// record of the children starts every process afresh and never adopts a process that is not ours.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "rtrmgr/process/saved_state.h"
#include "tests/system/rtrmgr_processes.h"

namespace sluice::testing {
namespace {

net::Prefix P(const char* text) { return *net::Prefix::Parse(text); }

std::string Config(int port, const std::string& statics) {
  return absl::StrCat(R"(
interfaces {
    interface eth0 { address 10.1.0.1/24; }
}
fea { backend dummy; }
protocols {
    static {
)",
                      statics, R"(
    }
    bgp {
        local-as 4200000001;
        bgp-id 10.255.0.1;
        listen 127.0.0.1 port )",
                      port, R"(;
        peer 127.0.0.2 { as 4200000002; local-ip 127.0.0.1; passive; }
    }
}
)");
}

constexpr char kStatic1[] = "        route 192.0.2.0/24 { next-hop 10.1.0.254; }";
constexpr char kStatic2[] = "        route 198.51.100.0/24 { next-hop 10.1.0.254; }";
const char* const kChildren[] = {"finder", "fea", "rib", "bgp", "static_routes"};

bool Alive(pid_t pid) { return rtrmgr::ProcessStartTime(pid).has_value(); }

// The live processes whose command line names `rundir`, counted by program name
// ("sluice-fea" -> 1).
std::map<std::string, int> ProcessesOf(const std::string& rundir) {
  std::map<std::string, int> count;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = std::stoi(name);
    std::ifstream in(entry.path() / "cmdline", std::ios::binary);
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmdline.find(rundir) == std::string::npos || !Alive(pid)) continue;
    const std::string program = cmdline.c_str();
    ++count[program.substr(program.rfind('/') + 1)];
  }
  return count;
}

// Kills whatever still runs from `rundir` when a test ends early (the processes of a killed
// router manager have no one else to stop them).
struct KillLeftovers {
  std::string rundir;
  ~KillLeftovers() {
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
      const std::string name = entry.path().filename();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::ifstream in(entry.path() / "cmdline", std::ios::binary);
      std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (cmdline.find(rundir) != std::string::npos) kill(std::stoi(name), SIGKILL);
    }
  }
};

bool HasFibRoute(RtrmgrProcess& r, const char* prefix) {
  auto fib = r.FibPrefixes("static");
  return fib && fib->count(P(prefix));
}

TEST(RtrmgrRestart, ASuccessorAdoptsTheProcessesOfAKilledRouterManager) {
  RtrmgrProcess r;
  KillLeftovers leftovers{r.rundir()};
  const int port = FreeTcpPort();
  const std::string conf = r.WriteConfig("router.conf", Config(port, kStatic1));
  ASSERT_TRUE(r.Start(conf)) << r.process()->Output();
  ASSERT_TRUE(Eventually([&] { return HasFibRoute(r, "192.0.2.0/24"); })) << r.Logs("fea");
  std::map<std::string, int> pids;
  for (const char* name : kChildren) {
    pids[name] = r.ChildPid(name);
    ASSERT_GT(pids[name], 0) << name;
  }
  const std::map<std::string, int> one_each = {{"sluice-bgp", 1},    {"sluice-fea", 1},
                                               {"sluice-finder", 1}, {"sluice-rib", 1},
                                               {"sluice-rtrmgr", 1}, {"sluice-static", 1}};
  EXPECT_EQ(ProcessesOf(r.rundir()), one_each);

  // kill -9 the router manager: every process runs on, the FEA keeps its routes.
  r.process()->Signal(SIGKILL);
  ASSERT_TRUE(r.process()->Wait(10000).has_value());
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  for (const auto& [name, pid] : pids) EXPECT_TRUE(Alive(pid)) << name << " died with rtrmgr";
  EXPECT_TRUE(HasFibRoute(r, "192.0.2.0/24"));
  EXPECT_FALSE(std::filesystem::exists(r.rundir() + "/rtrmgr/running.conf.new"));
  struct stat st {};
  ASSERT_EQ(stat((r.rundir() + "/rtrmgr/running.conf").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  // A new router manager on the same run directory adopts them: the same pids, no copies.
  ASSERT_TRUE(r.Start(conf)) << r.process()->Output();
  for (const auto& [name, pid] : pids) EXPECT_EQ(r.ChildPid(name), pid) << name;
  EXPECT_EQ(ProcessesOf(r.rundir()), one_each);
  EXPECT_TRUE(HasFibRoute(r, "192.0.2.0/24"));

  // An adopted process that dies is started again, and configured: the RIB has the route.
  kill(pids["rib"], SIGKILL);
  ASSERT_TRUE(Eventually([&] {
    int restarts = 0;
    const int pid = r.ChildPid("rib", &restarts);
    return pid > 0 && pid != pids["rib"] && restarts == 1;
  })) << r.Logs("rib");
  pids["rib"] = r.ChildPid("rib");
  ASSERT_TRUE(Eventually([&] {
    auto in_rib = r.RibPrefixes("static");
    return in_rib && in_rib->count(P("192.0.2.0/24"));
  })) << r.Logs("rib");
  EXPECT_EQ(ProcessesOf(r.rundir()), one_each);

  // The adopted Finder dies: a new one gets a new socket, and everyone registers with it.
  kill(pids["finder"], SIGKILL);
  ASSERT_TRUE(Eventually([&] {
    const int pid = r.ChildPid("finder");
    return pid > 0 && pid != pids["finder"];
  })) << r.Logs("finder");
  pids["finder"] = r.ChildPid("finder");
  ASSERT_TRUE(Eventually([&] { return HasFibRoute(r, "192.0.2.0/24"); })) << r.Logs("fea");
  EXPECT_EQ(ProcessesOf(r.rundir()), one_each);

  // A changed file (one more static route) and SIGHUP: applied as a delta, nothing restarts.
  r.WriteConfig("router.conf", Config(port, absl::StrCat(kStatic1, "\n", kStatic2)));
  r.process()->Signal(SIGHUP);
  ASSERT_TRUE(Eventually([&] { return HasFibRoute(r, "198.51.100.0/24"); }))
      << r.Logs("static_routes");
  EXPECT_TRUE(HasFibRoute(r, "192.0.2.0/24"));
  for (const auto& [name, pid] : pids) EXPECT_EQ(r.ChildPid(name), pid) << name;

  // SIGTERM: everything stops, adopted or not, and nothing is left to adopt.
  EXPECT_EQ(r.Stop(), 0);
  for (const auto& [name, pid] : pids) {
    EXPECT_TRUE(Eventually([&] { return !Alive(pid); }, 10)) << name << " still runs";
  }
  EXPECT_TRUE(ProcessesOf(r.rundir()).empty());
  EXPECT_FALSE(std::filesystem::exists(r.rundir() + "/rtrmgr/children"));
}

// A successor started with a changed file applies the change as a delta to the processes it
// adopted.
TEST(RtrmgrRestart, AFileChangedWhileNoRouterManagerRanIsAppliedOnAdoption) {
  RtrmgrProcess r;
  KillLeftovers leftovers{r.rundir()};
  const int port = FreeTcpPort();
  const std::string conf = r.WriteConfig("router.conf", Config(port, kStatic1));
  ASSERT_TRUE(r.Start(conf)) << r.process()->Output();
  const int fea = r.ChildPid("fea");
  const int statics = r.ChildPid("static_routes");
  r.process()->Signal(SIGKILL);
  ASSERT_TRUE(r.process()->Wait(10000).has_value());

  r.WriteConfig("router.conf", Config(port, kStatic2));
  ASSERT_TRUE(r.Start(conf)) << r.process()->Output();
  ASSERT_TRUE(Eventually([&] {
    return HasFibRoute(r, "198.51.100.0/24") && !HasFibRoute(r, "192.0.2.0/24");
  })) << r.Logs("static_routes");
  EXPECT_EQ(r.ChildPid("fea"), fea);
  EXPECT_EQ(r.ChildPid("static_routes"), statics);
  EXPECT_EQ(r.Stop(), 0);
  EXPECT_TRUE(ProcessesOf(r.rundir()).empty());
}

// A second router manager on the run directory of a live one is refused and touches nothing.
TEST(RtrmgrRestart, ASecondRouterManagerBesideALiveOneIsRefused) {
  RtrmgrProcess r;
  KillLeftovers leftovers{r.rundir()};
  const std::string conf = r.WriteConfig("router.conf", Config(FreeTcpPort(), kStatic1));
  ASSERT_TRUE(r.Start(conf)) << r.process()->Output();
  std::map<std::string, int> pids;
  for (const char* name : kChildren) pids[name] = r.ChildPid(name);
  CommandResult second = RunCommand(
      {BuildPath("rtrmgr/process/sluice-rtrmgr"), "--config", conf, "--rundir", r.rundir()});
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_THAT(second.err, ::testing::HasSubstr("another sluice-rtrmgr runs on"));
  for (const auto& [name, pid] : pids) {
    EXPECT_TRUE(Alive(pid)) << name;
    EXPECT_EQ(r.ChildPid(name), pid) << name;
  }
  EXPECT_EQ(r.Stop(), 0);
}

// Records that are corrupt, or that name a process that is not ours (a recycled pid), start
// every process afresh.
TEST(RtrmgrRestart, CorruptOrStaleRecordsStartEverythingAfresh) {
  for (const bool corrupt : {true, false}) {
    SCOPED_TRACE(corrupt ? "corrupt" : "stale");
    RtrmgrProcess r;
    KillLeftovers leftovers{r.rundir()};
    std::filesystem::create_directory(r.rundir() + "/rtrmgr");
    // This test process, recorded as the FEA: alive, but started at another time.
    const rtrmgr::ChildRecord stale{
        "fea", getpid(), rtrmgr::ProcessStartTime(getpid()).value_or(0) + 1, true,
        std::filesystem::absolute(rtrmgr::ProcessProgram(getpid()).value_or("/x")).string()};
    ASSERT_TRUE(rtrmgr::WriteFileAtomically(
                    r.rundir() + "/rtrmgr/children",
                    corrupt ? "fea 1 2 3 4 5\ngarbage\n" : rtrmgr::FormatChildren({stale}))
                    .ok());
    ASSERT_TRUE(r.Start(r.WriteConfig("router.conf", Config(FreeTcpPort(), kStatic1))))
        << r.process()->Output();
    const int fea = r.ChildPid("fea");
    EXPECT_GT(fea, 0);
    EXPECT_NE(fea, getpid());
    EXPECT_EQ(ProcessesOf(r.rundir())["sluice-fea"], 1);
    EXPECT_TRUE(Eventually([&] { return HasFibRoute(r, "192.0.2.0/24"); }));
    EXPECT_EQ(r.Stop(), 0);
    EXPECT_TRUE(Alive(getpid()));
  }
}

}  // namespace
}  // namespace sluice::testing
