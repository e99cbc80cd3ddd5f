// The Debian package on this machine, as an operator gets it: cpack makes it from this build,
// dpkg -i installs it, the installed sluice-rtrmgr runs a router of the main job's shape with
// the build tree out of reach and tells a service manager it is ready, and dpkg -r / --purge
// take everything away again.
//
// Runs as root with dpkg and cpack; skipped otherwise, and when a package named sluice is
// installed already (it would be replaced). The suite leaves the machine as it found it: it
// purges the package even when a test failed, and restores /run/sluice and the accounts
// (which the package, as Debian packages do, keeps on purge) when it created them.
#include <gmock/gmock.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "rtrmgr/cli/queries.h"
#include "tests/system/notify_socket.h"
#include "tests/system/rtrmgr_processes.h"

namespace sluice::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr char kRtrmgr[] = "/usr/sbin/sluice-rtrmgr";
constexpr char kDaemonDir[] = "/usr/lib/sluice";
constexpr char kShippedConfig[] = "/etc/sluice/sluice.conf";
constexpr char kUnit[] = "/lib/systemd/system/sluice.service";
// A forwarding engine for a control plane elsewhere; installed, not enabled.
constexpr char kRemoteFeaUnit[] = "/lib/systemd/system/sluice-fea-remote.service";

bool Installed() {
  return RunCommand({"/usr/bin/dpkg-query", "-W", "-f=${Status}", "sluice"}).out ==
         "install ok installed";
}

// The main job's topology (rtrmgr/examples/main-job.conf) on a free port.
std::string MainJobConfig(int port) {
  return absl::StrCat(R"(
fea { backend dummy; }
protocols {
    bgp {
        local-as 4200000001;
        bgp-id 10.255.0.1;
        listen 127.0.0.1 port )",
                      port, R"(;
        peer 127.0.0.2 { as 4200000002; local-ip 127.0.0.1; passive; }
        peer 127.0.0.3 { as 4200000003; local-ip 127.0.0.1; passive; }
    }
}
)");
}

// Processes running an installed Sluice program (their /proc/PID/exe, "(deleted)" once the
// package is gone).
std::vector<std::string> InstalledProcesses() {
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::error_code ec;
    const std::string exe = fs::read_symlink(entry.path() / "exe", ec).string();
    if (ec) continue;
    if (exe.rfind(std::string(kDaemonDir) + "/", 0) == 0 || exe.rfind(kRtrmgr, 0) == 0) {
      found.push_back(entry.path().filename().string() + " " + exe);
    }
  }
  return found;
}

// `sluice show processes` of the installed CLI: process name → pid.
std::map<std::string, int> ShownProcesses(const std::string& rundir) {
  CommandResult r = RunCommand(
      {"/usr/bin/sluice", "--finder", "unix:" + rundir + "/finder.sock", "show", "processes"});
  std::map<std::string, int> pids;
  for (absl::string_view line : absl::StrSplit(r.out, '\n')) {
    std::vector<std::string> words = absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (words.size() < 2 || words[0].rfind("sluice-", 0) != 0) continue;
    pids[words[0]] = std::atoi(words[1].c_str());
  }
  return pids;
}

// An installed router manager with its own run directory; SIGTERM when it goes.
class InstalledRouter {
 public:
  InstalledRouter() {
    char dir[] = "/tmp/sluice-pkg-test.XXXXXX";
    rundir_ = mkdtemp(dir);
    char conf[] = "/tmp/sluice-pkg-conf.XXXXXX";
    confdir_ = mkdtemp(conf);
  }
  ~InstalledRouter() {
    if (process_) {
      process_->Signal(SIGTERM);
      process_->Wait(30000);
    }
    fs::remove_all(rundir_);
    fs::remove_all(confdir_);
  }
  const std::string& rundir() const { return rundir_; }
  const std::string& confdir() const { return confdir_; }
  std::string WriteConfig(const std::string& text) {
    const std::string path = confdir_ + "/router.conf";
    std::ofstream(path) << text;
    return path;
  }
  // Starts `prefix... sluice-rtrmgr --config CONFIG --rundir RUNDIR` from /, with an
  // environment of PATH (without the build tree) and `env` only. True once it says "ready".
  bool Start(const std::string& config, const std::vector<std::string>& env,
             const std::vector<std::string>& prefix = {}) {
    std::vector<std::string> argv = {"/usr/bin/env", "-i", "-C", "/",
                                     "PATH=/usr/sbin:/usr/bin:/sbin:/bin"};
    argv.insert(argv.end(), env.begin(), env.end());
    argv.insert(argv.end(), prefix.begin(), prefix.end());
    argv.insert(argv.end(), {kRtrmgr, "--config", config, "--rundir", rundir_});
    process_ = ChildProcess::Start(argv);
    return process_ != nullptr && process_->WaitForOutput("ready", 60000);
  }
  ChildProcess* process() { return process_.get(); }
  std::string Log(const std::string& name) {
    std::ifstream in(rundir_ + "/" + name + ".log");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

 private:
  std::string rundir_;
  std::string confdir_;
  std::unique_ptr<ChildProcess> process_;
};

class PackageTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite();
  static void TearDownTestSuite();
  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    ASSERT_TRUE(error_.empty()) << error_;
  }

  static std::string skip_;
  static std::string error_;
  static std::string workdir_;
  // What was there before the suite, to put back.
  static bool had_run_dir_;
  static mode_t run_dir_mode_;
  static std::vector<std::string> missing_groups_;
  static bool missing_user_;
};

std::string PackageTest::skip_;
std::string PackageTest::error_;
std::string PackageTest::workdir_;
bool PackageTest::had_run_dir_ = false;
mode_t PackageTest::run_dir_mode_ = 0;
std::vector<std::string> PackageTest::missing_groups_;
bool PackageTest::missing_user_ = false;

void PackageTest::SetUpTestSuite() {
  if (geteuid() != 0) {
    skip_ = "needs root: installs the Debian package with dpkg";
    return;
  }
  if (::access("/usr/bin/dpkg", X_OK) != 0 || ::access(SLUICE_CPACK, X_OK) != 0) {
    skip_ =
        absl::StrCat("needs /usr/bin/dpkg and ", SLUICE_CPACK, " (Debian packages dpkg, cmake)");
    return;
  }
  if (Installed()) {
    skip_ = "a package named sluice is installed on this machine; this test would replace it";
    return;
  }
  struct stat st {};
  had_run_dir_ = stat("/run/sluice", &st) == 0;
  run_dir_mode_ = st.st_mode & 07777;
  for (const char* group : {"sluice-ops", "sluice-admin", "sluice"}) {
    if (getgrnam(group) == nullptr) missing_groups_.push_back(group);
  }
  missing_user_ = getpwnam("sluice") == nullptr;

  char dir[] = "/tmp/sluice-pkg-build.XXXXXX";
  workdir_ = mkdtemp(dir);
  CommandResult made = RunCommand(
      {SLUICE_CPACK, "-G", "DEB", "--config", BuildPath("CPackConfig.cmake"), "-B", workdir_}, {},
      300000);
  std::string deb;
  for (const auto& entry : fs::directory_iterator(workdir_)) {
    if (entry.path().extension() == ".deb") deb = entry.path();
  }
  if (made.exit_code != 0 || deb.empty()) {
    error_ = "cpack made no package:\n" + made.out + made.err;
    return;
  }
  std::cerr << "package " << deb << ": " << fs::file_size(deb) << " octets\n";
  CommandResult installed = RunCommand({"/usr/bin/dpkg", "-i", deb}, {}, 120000);
  if (installed.exit_code != 0) error_ = "dpkg -i failed:\n" + installed.out + installed.err;
}

void PackageTest::TearDownTestSuite() {
  if (!skip_.empty()) return;
  if (RunCommand({"/usr/bin/dpkg-query", "-W", "sluice"}).exit_code == 0) {
    CommandResult purged = RunCommand({"/usr/bin/dpkg", "--purge", "sluice"}, {}, 120000);
    if (purged.exit_code != 0) std::cerr << "dpkg --purge sluice: " << purged.out << purged.err;
  }
  if (!had_run_dir_) {
    std::error_code ec;
    fs::remove("/run/sluice", ec);  // only when empty: nothing of anybody else's goes
  } else {
    chmod("/run/sluice", run_dir_mode_);
  }
  if (missing_user_) RunCommand({"/usr/sbin/userdel", "sluice"});
  for (const std::string& group : missing_groups_) RunCommand({"/usr/sbin/groupdel", group});
  if (!workdir_.empty()) fs::remove_all(workdir_);
}

TEST_F(PackageTest, ShippedConfigurationPassesCheck) {
  CommandResult r = RunCommand({kRtrmgr, "--check", "--config", kShippedConfig});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("backend netlink;"));
  // What the service needs that the package makes: the accounts and the directories.
  EXPECT_NE(getpwnam("sluice"), nullptr);
  EXPECT_NE(getgrnam("sluice-ops"), nullptr);
  EXPECT_NE(getgrnam("sluice-admin"), nullptr);
  EXPECT_TRUE(fs::is_directory("/var/lib/sluice"));
  EXPECT_TRUE(fs::is_directory("/run/sluice"));
}

TEST_F(PackageTest, CarriesTheManPages) {
  std::string deb;
  for (const auto& entry : fs::directory_iterator(workdir_)) {
    if (entry.path().extension() == ".deb") deb = entry.path();
  }
  CommandResult listed = RunCommand({"/usr/bin/dpkg-deb", "--contents", deb});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  for (const char* page :
       {"./usr/share/man/man8/sluice.8.gz", "./usr/share/man/man8/sluice-rtrmgr.8.gz",
        "./usr/share/man/man5/sluice.conf.5.gz"}) {
    EXPECT_THAT(listed.out, HasSubstr(page)) << listed.out;
  }
}

TEST_F(PackageTest, SystemdAcceptsTheUnits) {
  if (::access("/usr/bin/systemd-analyze", X_OK) != 0) {
    GTEST_SKIP() << "no systemd-analyze (Debian package systemd): the units are not verified";
  }
  for (const char* unit : {kUnit, kRemoteFeaUnit}) {
    CommandResult r = RunCommand({"/usr/bin/systemd-analyze", "verify", unit}, {}, 60000);
    EXPECT_EQ(r.exit_code, 0) << unit << "\n" << r.out << r.err;
    // Warnings about other units may appear; none may be about ours.
    const std::string name = fs::path(unit).filename().string();
    EXPECT_THAT(r.out + r.err, ::testing::Not(HasSubstr(name + ":")));
  }
}

TEST_F(PackageTest, InstalledRouterRunsTheMainJobAndNotifiesReady) {
  InstalledRouter router;
  NotifySocket notify(router.confdir() + "/notify.sock");
  ASSERT_TRUE(notify.ok());
  const int port = FreeTcpPort();
  const std::string conf = router.WriteConfig(MainJobConfig(port));
  ASSERT_TRUE(router.Start(conf, {"NOTIFY_SOCKET=" + notify.path()})) << router.Log("rtrmgr");
  EXPECT_TRUE(notify.WaitFor("READY=1", 10000)) << "received: " << notify.Received();

  // Every process runs from the package, none from the build tree; only the router manager
  // speaks to the service manager.
  const std::map<std::string, int> shown = ShownProcesses(router.rundir());
  ASSERT_EQ(shown.size(), 4u) << "sluice show processes gave " << shown.size() << " processes";
  for (const auto& [name, pid] : shown) {
    std::error_code ec;
    EXPECT_EQ(fs::read_symlink(absl::StrCat("/proc/", pid, "/exe"), ec).string(),
              std::string(kDaemonDir) + "/" + name);
    std::ifstream environ(absl::StrCat("/proc/", pid, "/environ"));
    const std::string env((std::istreambuf_iterator<char>(environ)), {});
    EXPECT_THAT(env, HasSubstr("PATH=")) << name;
    EXPECT_THAT(env, ::testing::Not(HasSubstr("NOTIFY_SOCKET="))) << name;
  }

  // The upstream peer's table reaches the FIB (the synthetic table's 127.0.0.0/8 loses to the
  // connected route).
  constexpr int kPrefixes = 1000;
  auto upstream = ChildProcess::Start(
      {"/usr/bin/sluice-replay", "--connect", absl::StrCat("127.0.0.1:", port), "--local-address",
       "127.0.0.2", "--local-as", "4200000002", "--prepend-own-as", "--next-hop-self",
       "--synthetic", absl::StrCat(kPrefixes), "--linger", "--quiet"});
  ASSERT_TRUE(upstream);
  rtrmgr::cli::SyncClient client("unix:" + router.rundir() + "/finder.sock", 30000, "test");
  size_t in_fib = 0;
  EXPECT_TRUE(Eventually(
      [&] {
        auto routes = rtrmgr::cli::AllFibRoutes(client);
        if (!routes.ok()) return false;
        in_fib = 0;
        for (const auto& r : *routes) in_fib += r.protocol() == "ebgp";
        return in_fib >= kPrefixes - 1u;
      },
      60))
      << in_fib << " eBGP routes in the FIB\n"
      << router.Log("bgp");
  upstream->Signal(SIGTERM);
  upstream->Wait(10000);

  // The unit's ExecReload: SIGHUP. systemd waits for READY=1 after RELOADING=1.
  notify.Forget();
  router.process()->Signal(SIGHUP);
  EXPECT_TRUE(notify.WaitFor("RELOADING=1", 10000)) << "received: " << notify.Received();
  EXPECT_TRUE(notify.WaitFor("READY=1", 30000)) << "received: " << notify.Received();

  router.process()->Signal(SIGTERM);
  EXPECT_EQ(router.process()->Wait(30000), 0);
  EXPECT_TRUE(notify.WaitFor("STOPPING=1", 10000)) << "received: " << notify.Received();
}

TEST_F(PackageTest, ShippedConfigurationStartsAnIdleRouter) {
  // In a network namespace of its own: the netlink FEA reads a kernel no one else uses.
  InstalledRouter router;
  ASSERT_TRUE(router.Start(kShippedConfig, {}, {"/usr/bin/unshare", "-n"})) << router.Log("rtrmgr");
  const std::map<std::string, int> shown = ShownProcesses(router.rundir());
  std::set<std::string> names;
  for (const auto& [name, pid] : shown) names.insert(name);
  EXPECT_EQ(names, (std::set<std::string>{"sluice-fea", "sluice-finder", "sluice-rib"}));
  router.process()->Signal(SIGTERM);
  EXPECT_EQ(router.process()->Wait(30000), 0);
}

TEST_F(PackageTest, RemoveStopsTheRouterAndPurgeLeavesNoFile) {
  CommandResult listed = RunCommand({"/usr/bin/dpkg", "-L", "sluice"});
  ASSERT_EQ(listed.exit_code, 0);
  std::vector<std::string> files;  // not the directories other packages share
  for (absl::string_view line : absl::StrSplit(listed.out, '\n', absl::SkipEmpty())) {
    if (!fs::is_directory(std::string(line))) files.emplace_back(line);
  }
  ASSERT_GT(files.size(), 10u);

  InstalledRouter router;
  ASSERT_TRUE(router.Start(router.WriteConfig(MainJobConfig(FreeTcpPort())), {}))
      << router.Log("rtrmgr");
  ASSERT_FALSE(InstalledProcesses().empty());

  CommandResult removed = RunCommand({"/usr/bin/dpkg", "-r", "sluice"}, {}, 180000);
  ASSERT_EQ(removed.exit_code, 0) << removed.out << removed.err;
  EXPECT_TRUE(router.process()->Wait(10000).has_value()) << "sluice-rtrmgr still runs";
  EXPECT_THAT(InstalledProcesses(), ::testing::IsEmpty());
  EXPECT_FALSE(fs::exists(kRtrmgr));
  EXPECT_TRUE(fs::exists(kShippedConfig));
  EXPECT_TRUE(fs::is_directory("/var/lib/sluice"));

  CommandResult purged = RunCommand({"/usr/bin/dpkg", "--purge", "sluice"}, {}, 120000);
  ASSERT_EQ(purged.exit_code, 0) << purged.out << purged.err;
  for (const std::string& file : files) {
    EXPECT_FALSE(fs::exists(fs::symlink_status(file))) << file << " is still there";
  }
  EXPECT_FALSE(fs::exists("/etc/sluice"));
  EXPECT_FALSE(fs::exists("/var/lib/sluice"));
  EXPECT_FALSE(fs::exists("/etc/systemd/system/sluice.service"));
  EXPECT_FALSE(fs::exists("/etc/systemd/system/multi-user.target.wants/sluice.service"));
  // The accounts stay: other files (and this machine's other tests) may use them.
  EXPECT_NE(getpwnam("sluice"), nullptr);
}

}  // namespace
}  // namespace sluice::testing
