// Runs the policy-language tests in tests/policy/*.pol: one gtest case per `test` block, plus a
// coverage check that the .pol tests together execute every match and every action.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "gtest/gtest.h"
#include "policy/pol_file.h"

namespace sluice::policy {
namespace {

struct Case {
  std::string file;  // path
  std::string test;  // test name; empty when the file did not parse
  std::string parse_error;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> PolFiles() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(SLUICE_POL_DIR)) {
    if (entry.path().extension() == ".pol") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  for (const std::string& path : PolFiles()) {
    auto file = ParsePolFile(ReadFile(path), std::filesystem::path(path).filename().string());
    if (!file.ok()) {
      cases.push_back(Case{path, "", std::string(file.status().message())});
      continue;
    }
    for (const PolTest& t : file->tests) cases.push_back(Case{path, t.name, ""});
  }
  return cases;
}

class PolTestCase : public testing::TestWithParam<Case> {};

TEST_P(PolTestCase, Passes) {
  const Case& c = GetParam();
  ASSERT_TRUE(c.parse_error.empty()) << c.parse_error;
  auto file = ParsePolFile(ReadFile(c.file), std::filesystem::path(c.file).filename().string());
  ASSERT_TRUE(file.ok()) << file.status();
  for (const PolTest& t : file->tests) {
    if (t.name != c.test) continue;
    PolOutcome outcome = RunPolTest(*file, t);
    EXPECT_TRUE(outcome.passed) << outcome.failure;
    return;
  }
  FAIL() << "test " << c.test << " vanished from " << c.file;
}

std::string CaseName(const testing::TestParamInfo<Case>& info) {
  std::string name = std::filesystem::path(info.param.file).stem().string() + "_" +
                     (info.param.test.empty() ? "parse" : info.param.test);
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Pol, PolTestCase, testing::ValuesIn(AllCases()), CaseName);

TEST(PolFiles, ThereAreSome) { EXPECT_GE(PolFiles().size(), 3u); }

// The .pol tests cover every match and every action — checked by tracing which instructions
// each test executed.
TEST(PolFiles, ExecuteEveryMatchAndAction) {
  std::vector<bool> matches(kMatchKindCount), actions(kActionKindCount);
  std::set<PrefixModifier> modifiers;
  bool community_all = false, prepend_local_as = false, to_protocol = false, to_neighbor = false;
  for (const std::string& path : PolFiles()) {
    auto file = ParsePolFile(ReadFile(path), path);
    ASSERT_TRUE(file.ok()) << file.status();
    for (const PolTest& t : file->tests) {
      PolOutcome o = RunPolTest(*file, t);
      for (int i = 0; i < kMatchKindCount; ++i) matches[i] = matches[i] || o.matches_run[i];
      for (int i = 0; i < kActionKindCount; ++i) actions[i] = actions[i] || o.actions_run[i];
    }
    // Variants of one kind that the trace cannot tell apart: declared somewhere in the files.
    for (const NamedSet& s : file->config.sets) {
      for (const PrefixEntry& e : s.prefixes) modifiers.insert(e.modifier);
    }
    for (const PolicyStatement& st : file->config.statements) {
      for (const Term& term : st.terms) {
        for (const auto* block : {&term.from, &term.to}) {
          for (const Condition& c : *block) {
            for (const PrefixEntry& e : c.prefixes) modifiers.insert(e.modifier);
            community_all = community_all || c.match_all;
            to_protocol = to_protocol || (c.in_to_block && c.kind == MatchKind::kProtocol);
            to_neighbor = to_neighbor || (c.in_to_block && c.kind == MatchKind::kNeighbor);
          }
        }
        for (const Action& a : term.then) prepend_local_as = prepend_local_as || a.prepend_local_as;
      }
    }
  }
  for (int i = 0; i < kMatchKindCount; ++i) {
    EXPECT_TRUE(matches[i]) << "no .pol test executes the match '"
                            << MatchKindName(static_cast<MatchKind>(i)) << "'";
  }
  for (int i = 0; i < kActionKindCount; ++i) {
    EXPECT_TRUE(actions[i]) << "no .pol test executes the action '"
                            << ActionKindName(static_cast<ActionKind>(i)) << "'";
  }
  EXPECT_EQ(modifiers.size(), 6u) << "every prefix modifier (exact, longer, orlonger, shorter, "
                                     "orshorter, prefix-length) appears in some .pol file";
  EXPECT_TRUE(community_all);
  EXPECT_TRUE(prepend_local_as);
  EXPECT_TRUE(to_protocol);
  EXPECT_TRUE(to_neighbor);
}

}  // namespace
}  // namespace sluice::policy
