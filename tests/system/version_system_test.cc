// `--version` on every program, and common/1.0 get_version of a running process: all answer the
// project version of net/version.h.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "ipc/xrl_args.h"
#include "net/version.h"
#include "tests/system/child_process.h"
#include "tests/system/fea_rib_processes.h"

namespace sluice {
namespace {

using testing::CommandResult;
using ::testing::Contains;
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
    EXPECT_EQ(r.out, name + " " + std::string(net::Version()) + "\n") << name;
  }
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
  EXPECT_EQ(version->value().txt(), net::Version());
}

}  // namespace
}  // namespace sluice
