// `--version` on every program, and common/1.0 get_version of a running process: all answer the
// project version of base/version.h. Every program's command line follows one convention
// (base/program_options.h): --help lists the options and exits 0, a bad option or value exits 2
// naming it; sluice-bgp's --help gives the default threads of where it runs. The manual pages of
// docs/man render without a warning.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "base/cpus.h"
#include "base/version.h"
#include "ipc/xrl_args.h"
#include "tests/system/child_process.h"
#include "tests/system/fea_rib_processes.h"

namespace sluice {
namespace {

using testing::CommandResult;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Key;
using testing::RunCommand;

// SLUICE_VERSION_PROGRAMS (set by CMake): "NAME=PATH,..." for every installed program and the
// ones we run ourselves.
std::map<std::string, std::string> Programs() {
  const char* text = std::getenv("SLUICE_VERSION_PROGRAMS");
  std::map<std::string, std::string> programs;
  if (text == nullptr) return programs;
  for (absl::string_view entry : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    std::pair<std::string, std::string> name_path = absl::StrSplit(entry, absl::MaxSplits('=', 1));
    programs.insert(std::move(name_path));
  }
  return programs;
}

TEST(VersionSystemTest, EveryProgramPrintsItsNameAndTheVersion) {
  const std::map<std::string, std::string> programs = Programs();
  for (const char* name :
       {"sluice-rtrmgr", "sluice-finder", "sluice-fea", "sluice-rib", "sluice-bgp", "sluice-static",
        "sluice", "sluice-replay", "sluice-mrtdump", "sluice-mainjob"}) {
    EXPECT_THAT(programs, Contains(Key(name)));
  }
  for (const auto& [name, path] : programs) {
    CommandResult r = RunCommand({path, "--version"}, {}, 5000);
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_EQ(r.out, name + " " + std::string(base::Version()) + "\n") << name;
  }
}

TEST(VersionSystemTest, EveryProgramListsItsOptionsOnHelp) {
  const std::map<std::string, std::string> programs = Programs();
  ASSERT_FALSE(programs.empty()) << "SLUICE_VERSION_PROGRAMS is not set";
  for (const auto& [name, path] : programs) {
    CommandResult r = RunCommand({path, "--help"}, {}, 5000);
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_THAT(r.out, HasSubstr(name)) << name;
    EXPECT_THAT(r.out, HasSubstr("--version")) << name << ": " << r.out;
  }
}

// sluice-bgp's default --threads is the number of CPUs it may use, not the machine's: under
// taskset(1) with one CPU of ours, 1.
TEST(VersionSystemTest, SluiceBgpDefaultThreadsAreTheCpusItMayUse) {
  const std::map<std::string, std::string> programs = Programs();
  auto bgp = programs.find("sluice-bgp");
  ASSERT_NE(bgp, programs.end());
  const std::string option = "--threads INT:INT in [1 - 256]=";
  CommandResult r = RunCommand({bgp->second, "--help"}, {}, 5000);
  EXPECT_THAT(r.out, HasSubstr(option + std::to_string(base::UsableCpus()) + "\n"));
  cpu_set_t ours;
  ASSERT_EQ(sched_getaffinity(0, sizeof(ours), &ours), 0);
  if (base::UsableCpus() < 2 || ::access("/usr/bin/taskset", X_OK) != 0) {
    GTEST_SKIP() << "one usable CPU, or no /usr/bin/taskset (util-linux): no smaller set to try";
  }
  int first = 0;
  while (!CPU_ISSET(first, &ours)) ++first;
  r = RunCommand({"/usr/bin/taskset", "-c", std::to_string(first), bgp->second, "--help"}, {},
                 5000);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(option + "1\n"));
}

TEST(VersionSystemTest, EveryProgramRefusesAnUnknownOptionWithStatus2) {
  for (const auto& [name, path] : Programs()) {
    CommandResult r = RunCommand({path, "--no-such-option"}, {}, 5000);
    EXPECT_EQ(r.exit_code, 2) << name << ": " << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr("--no-such-option")) << name;
    EXPECT_THAT(r.out, ::testing::IsEmpty()) << name;
  }
}

TEST(VersionSystemTest, ABadValueExits2NamingTheOption) {
  const std::map<std::string, std::string> programs = Programs();
  for (const auto& [name, option, value] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"sluice-mainjob", "--synthetic", "many"},
           {"sluice-mainjob", "--timeout", "soon"},
           {"sluice-finder", "--grace-ms", "x"},
           {"sluice-rib", "--restart-time", "86401"},
           {"sluice-fea", "--table", "255"},
           {"sluice-fea", "--backend", "bsd"},
           {"sluice-static", "--route", "10.0.0.0/33"},
           {"sluice-bgp", "--threads", "0"},
           {"sluice-bgp", "--listen", "127.0.0.1:65536"},
           {"sluice-replay", "--hold-time", "ninety"},
           {"sluice-replay", "--connect", "nowhere"},
           {"sluice", "--timeout", "0"}}) {
    auto program = programs.find(name);
    ASSERT_NE(program, programs.end()) << name;
    CommandResult r = RunCommand({program->second, option, value}, {}, 5000);
    EXPECT_EQ(r.exit_code, 2) << name << " " << option << " " << value << ": " << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr(option)) << name << " " << option << " " << value;
  }
}

// groff's warnings (-ww) about the manual pages, or why they cannot be checked.
TEST(ManPageTest, EveryPageRendersWithoutWarnings) {
  if (::access("/usr/bin/groff", X_OK) != 0) {
    GTEST_SKIP() << "no /usr/bin/groff (Debian package groff-base): the manual pages are not "
                    "checked";
  }
  const char* source = std::getenv("SLUICE_SOURCE_DIR");
  ASSERT_NE(source, nullptr);
  for (const char* page : {"sluice.8", "sluice-rtrmgr.8", "sluice.conf.5"}) {
    const std::string path = std::string(source) + "/docs/man/" + page;
    CommandResult r = RunCommand({"/usr/bin/groff", "-man", "-ww", "-z", path}, {}, 20000);
    EXPECT_EQ(r.exit_code, 0) << page << ": " << r.err;
    EXPECT_EQ(r.err, "") << page;
  }
  // A page groff warns about does fail: the check can fail.
  const std::string broken = ::testing::TempDir() + "/broken.8";
  FILE* f = std::fopen(broken.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs(".TH BROKEN 8\n.SH NAME\nbroken \\- a page\n.XYZZY unknown macro\n", f);
  std::fclose(f);
  CommandResult r = RunCommand({"/usr/bin/groff", "-man", "-ww", "-z", broken}, {}, 20000);
  EXPECT_NE(r.err, "");
}

TEST(VersionSystemTest, GetVersionOfARunningProcessAnswersTheVersion) {
  testing::FeaRibProcesses p;
  ASSERT_TRUE(p.StartFinder());
  ASSERT_TRUE(p.StartFea({"--backend", "dummy"}));
  CommandResult r = p.Call("finder://fea/common/1.0/get_version");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto args = ipc::XrlArgs::Parse(r.out.substr(0, r.out.find('\n')));
  ASSERT_TRUE(args.ok()) << args.status() << ": " << r.out;
  const ipc::XrlAtom* version = args->Find("version");
  ASSERT_NE(version, nullptr) << r.out;
  EXPECT_EQ(version->value().txt(), base::Version());
}

}  // namespace
}  // namespace sluice
