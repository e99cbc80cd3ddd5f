// The router as a local attacker finds it (DESIGN.md § Security): sluice-rtrmgr started as root
// with its children as user `sluice`, a sluice-replay upstream feeding a table, and people of
// every kind trying the CLI. Runs as root (it creates its users and groups); skipped otherwise.
#include <gmock/gmock.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tests/system/rtrmgr_processes.h"

namespace sluice::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kOperator[] = "sluice-t-op";      // in sluice-ops and the readers' group
constexpr char kNoRole[] = "sluice-t-norole";    // in sluice-ops, in no role's group
constexpr char kOutsider[] = "sluice-t-out";     // in none of our groups
constexpr char kReaders[] = "sluice-t-readers";  // the operator group of the test config
constexpr int kPrefixes = 2000;

bool Sh(const std::string& command) {
  return RunCommand({"/bin/sh", "-c", command}).exit_code == 0;
}

// The accounts a packaged install has (sluice, sluice-ops, sluice-admin) and the test's people.
bool EnsureAccounts() {
  bool ok = true;
  for (const char* group : {"sluice-ops", "sluice-admin", kReaders}) {
    ok = ok && Sh(absl::StrCat("getent group ", group, " || groupadd --system ", group));
  }
  ok = ok && Sh("getent passwd sluice || useradd --system --user-group --no-create-home "
                "--home-dir /nonexistent --shell /usr/sbin/nologin sluice");
  auto user = [&](const char* name, const char* groups) {
    return Sh(absl::StrCat("getent passwd ", name, " || useradd --no-create-home --home-dir ",
                           "/nonexistent --shell /usr/sbin/nologin ", name)) &&
           Sh(absl::StrCat("usermod -G '", groups, "' ", name));
  };
  ok = ok && user(kOperator, absl::StrCat("sluice-ops,", kReaders).c_str());
  ok = ok && user(kNoRole, "sluice-ops");
  ok = ok && user(kOutsider, "");
  return ok;
}

std::string Config(int port) {
  return absl::StrCat(R"(
interfaces { interface eth0 { address 10.1.0.1/24; } }
fea { backend dummy; }
protocols {
    bgp {
        local-as 4200000001;
        bgp-id 10.255.0.1;
        listen 127.0.0.1 port )",
                      port, R"(;
        peer 127.0.0.2 { as 4200000002; local-ip 127.0.0.1; passive; }
    }
}
finder { access { operator-group )",
                      kReaders, R"(; admin-group sluice-admin; } }
)");
}

// "Uid:", "CapEff:" ... of /proc/PID/status.
std::string StatusField(int pid, const std::string& field) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) {
      std::string value = line.substr(field.size() + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      return value;
    }
  }
  return "";
}

class SecuritySystemTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root: it creates users and starts rtrmgr as root";
    if (ServiceUserCannotReachBuild()) {
      GTEST_SKIP() << "user sluice cannot execute the programs under " << BuildPath("")
                   << ": clone into a directory every user can search (not mktemp -d or /root) "
                      "to test the privilege model";
    }
    ASSERT_TRUE(EnsureAccounts()) << "cannot create the test's users and groups";
  }

  // Starts the router and feeds it kPrefixes routes from a sluice-replay upstream.
  void StartRouterWithTable() {
    const int port = FreeTcpPort();
    const std::string conf = r_.WriteConfig("router.conf", Config(port));
    ASSERT_TRUE(r_.Start(conf)) << r_.Logs("rtrmgr") << r_.process()->Output();
    replay_ = ChildProcess::Start(
        {BuildPath("bgp/replay/sluice-replay"), "--connect", absl::StrCat("127.0.0.1:", port),
         "--local-address", "127.0.0.2", "--local-as", "4200000002", "--prepend-own-as",
         "--next-hop-self", "--synthetic", absl::StrCat(kPrefixes), "--linger", "--quiet"});
    ASSERT_TRUE(replay_);
    ASSERT_TRUE(Eventually([&] { return FibEbgp() == kPrefixes; }, 60))
        << "FIB " << FibEbgp() << "\n"
        << r_.Logs("bgp") << r_.Logs("rib");
  }
  void TearDown() override {
    if (replay_) replay_->Signal(SIGTERM);
  }

  size_t FibEbgp() {
    auto fib = r_.FibPrefixes("ebgp");
    return fib ? fib->size() : 0;
  }
  // The CLI as `user` (runuser), against the router's Finder.
  CommandResult SluiceAs(const std::string& user, std::vector<std::string> args) {
    std::vector<std::string> argv = {"/usr/sbin/runuser",
                                     "-u",
                                     user,
                                     "--",
                                     std::filesystem::absolute(BuildPath("rtrmgr/cli/sluice")),
                                     "--finder",
                                     r_.finder()};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(argv, {}, 30000);
  }

  RtrmgrProcess r_;
  std::unique_ptr<ChildProcess> replay_;
};

TEST_F(SecuritySystemTest, PeopleGetWhatTheirGroupsAllowAndNoCallCanEmptyTheFib) {
  ASSERT_NO_FATAL_FAILURE(StartRouterWithTable());
  struct stat st {};
  ASSERT_EQ(stat((r_.rundir() + "/finder.sock").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0660u) << "the Finder's socket, whatever the umask";
  EXPECT_EQ(st.st_gid, getgrnam("sluice-ops")->gr_gid);

  // Outside sluice-ops: the file mode keeps them out.
  CommandResult outsider = SluiceAs(kOutsider, {"targets"});
  EXPECT_NE(outsider.exit_code, 0);
  EXPECT_THAT(outsider.err, HasSubstr("Permission denied")) << outsider.err;

  // In sluice-ops but in no role's group: the socket lets them connect, the Finder refuses.
  CommandResult no_role = SluiceAs(kNoRole, {"targets"});
  EXPECT_NE(no_role.exit_code, 0);
  EXPECT_THAT(no_role.err, HasSubstr("has no Sluice role")) << no_role.err;
  no_role = SluiceAs(kNoRole, {"show", "bgp", "peers"});
  EXPECT_NE(no_role.exit_code, 0);
  EXPECT_THAT(no_role.err, HasSubstr("has no Sluice role")) << no_role.err;

  // An operator reads, and a method that changes state is refused.
  CommandResult shown = SluiceAs(kOperator, {"show", "bgp", "peers"});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_THAT(shown.out, HasSubstr("127.0.0.2"));
  CommandResult write =
      SluiceAs(kOperator, {"call",
                           "finder://rib/rib/1.0/set_admin_distance?protocol:txt=ebgp&admin_"
                           "distance:u32=250"});
  EXPECT_NE(write.exit_code, 0);
  EXPECT_THAT(write.err, HasSubstr("PERMISSION_DENIED")) << write.err;
  EXPECT_THAT(write.err, HasSubstr("needs role admin")) << write.err;

  // Even root cannot hand BGP's protocol to a CLI that then exits: the RIB binds ownership to
  // the authenticated caller, not to the request's target.
  CommandResult spoof = RunCommand(
      {"/bin/bash", "-c",
       absl::StrCat("exec ", std::filesystem::absolute(BuildPath("rtrmgr/cli/sluice")).string(),
                    " --finder ", r_.finder(),
                    " call \"finder://rib/rib/1.0/register_protocol?protocol:txt=ebgp&target:txt="
                    "sluice-$$\"")});
  EXPECT_NE(spoof.exit_code, 0);
  EXPECT_THAT(spoof.err, HasSubstr("PERMISSION_DENIED")) << spoof.err;
  sleep(2);  // the CLI is gone: had it taken ebgp, its routes would be leaving now
  EXPECT_EQ(FibEbgp(), static_cast<size_t>(kPrefixes));
  // Nor can root make the FEA sweep the FIB.
  CommandResult sweep = SluiceAs("root", {"call", "finder://fea/fea_fib/1.0/start_full_push"});
  EXPECT_THAT(sweep.err, HasSubstr("PERMISSION_DENIED")) << sweep.err;
  EXPECT_EQ(FibEbgp(), static_cast<size_t>(kPrefixes));
}

TEST_F(SecuritySystemTest, AClassNeedsItsCredential) {
  ASSERT_NO_FATAL_FAILURE(StartRouterWithTable());
  // Root itself, without the credential the router manager gives its FEA.
  auto fake = ChildProcess::Start({BuildPath("tests/ipc/sluice-test-component"), "--class", "fea",
                                   "--instance", "fea-2", "--finder", r_.finder()});
  ASSERT_TRUE(fake);
  EXPECT_TRUE(fake->WaitForOutput("may not register class fea", 10000)) << fake->Output();
  CommandResult targets = r_.Sluice({"targets"});
  EXPECT_THAT(targets.out, Not(HasSubstr("fea-2")));
  EXPECT_THAT(r_.Logs("finder"), HasSubstr("refused registration of fea"));
}

TEST_F(SecuritySystemTest, ChildrenRunAsSluiceWithOnlyTheirCapabilities) {
  ASSERT_NO_FATAL_FAILURE(StartRouterWithTable());
  const uid_t sluice = getpwnam("sluice")->pw_uid;
  // CAP_NET_BIND_SERVICE is bit 10; the dummy FEA needs nothing.
  const std::map<std::string, std::string> caps = {{"finder", "0000000000000000"},
                                                   {"fea", "0000000000000000"},
                                                   {"rib", "0000000000000000"},
                                                   {"bgp", "0000000000000400"}};
  std::map<std::string, int> pids;
  for (const auto& [name, cap] : caps) {
    const int pid = r_.ChildPid(name);
    ASSERT_GT(pid, 0) << name;
    pids[name] = pid;
    const std::vector<std::string> uids = absl::StrSplit(StatusField(pid, "Uid"), '\t');
    ASSERT_EQ(uids.size(), 4u) << name;
    for (const std::string& uid : uids) EXPECT_EQ(uid, std::to_string(sluice)) << name;
    EXPECT_EQ(StatusField(pid, "CapEff"), cap) << name;
    EXPECT_EQ(StatusField(pid, "CapPrm"), cap) << name;
    EXPECT_EQ(StatusField(pid, "NoNewPrivs"), "1") << name;
  }
  // Same user, but non-dumpable: one child cannot read another's descriptors (its credential).
  CommandResult peek = RunCommand({"/usr/sbin/runuser", "-u", "sluice", "--", "ls",
                                   absl::StrCat("/proc/", pids["rib"], "/fd")});
  EXPECT_NE(peek.exit_code, 0);
  EXPECT_THAT(peek.err, HasSubstr("Permission denied")) << peek.out;
}

TEST_F(SecuritySystemTest, AHostileRunDirectoryOrASymlinkedLogStopsTheStart) {
  // A run directory that is not ours and writable by all.
  char hostile[] = "/tmp/sluice-hostile.XXXXXX";
  ASSERT_NE(mkdtemp(hostile), nullptr);
  ASSERT_EQ(chown(hostile, getpwnam("nobody")->pw_uid, getgrnam("nogroup")->gr_gid), 0);
  ASSERT_EQ(chmod(hostile, 0777), 0);
  const std::string conf = r_.WriteConfig("router.conf", Config(FreeTcpPort()));
  CommandResult refused = RunCommand(
      {BuildPath("rtrmgr/process/sluice-rtrmgr"), "--config", conf, "--rundir", hostile});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr(absl::StrCat("refusing run directory ", hostile)));
  std::filesystem::remove_all(hostile);

  // A log planted as a symbolic link to a file of root's is not followed.
  char rundir[] = "/tmp/sluice-symlink.XXXXXX";
  ASSERT_NE(mkdtemp(rundir), nullptr);
  const std::string target = std::string(rundir) + "-victim";
  std::ofstream(target) << "untouched\n";
  ASSERT_EQ(symlink(target.c_str(), (std::string(rundir) + "/fea.log").c_str()), 0);
  refused =
      RunCommand({BuildPath("rtrmgr/process/sluice-rtrmgr"), "--config", conf, "--rundir", rundir});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr("fea.log is a symbolic link")) << refused.err;
  std::ifstream in(target);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "untouched\n");
  std::filesystem::remove_all(rundir);
  std::filesystem::remove(target);
}

}  // namespace
}  // namespace sluice::testing
