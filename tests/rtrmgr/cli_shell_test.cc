#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rtrmgr/cli/grammar.h"
#include "rtrmgr/cli/shell.h"
#include "rtrmgr/cli/shell_keys.h"
#include "rtrmgr/cli/shell_line.h"

namespace sluice::rtrmgr::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// Records the lines it is given; fails those whose first word is "targets".
struct Recorder {
  std::vector<std::vector<std::string>> lines;
  RunWords run() {
    return [this](const std::vector<std::string>& words) {
      lines.push_back(words);
      return words[0] == "targets" ? kFailed : kOk;
    };
  }
};

TEST(CliShellTest, ALineRunsAsItsWords) {
  Recorder r;
  std::ostringstream err;
  bool leave = false;
  EXPECT_EQ(RunLine("  show bgp 'peers' --json ", r.run(), err, &leave), kOk);
  EXPECT_EQ(RunLine("targets", r.run(), err, &leave), kFailed);
  EXPECT_THAT(r.lines,
              ElementsAre(ElementsAre("show", "bgp", "peers", "--json"), ElementsAre("targets")));
  EXPECT_FALSE(leave);
  EXPECT_EQ(err.str(), "");
}

TEST(CliShellTest, BlankLinesAndCommentsDoNothingAndExitLeaves) {
  for (const char* leaving : {"exit", " quit "}) {
    Recorder r;
    std::ostringstream err;
    bool leave = false;
    EXPECT_EQ(RunLine("", r.run(), err, &leave), kOk);
    EXPECT_EQ(RunLine(" \t", r.run(), err, &leave), kOk);
    EXPECT_EQ(RunLine("# show bgp peers", r.run(), err, &leave), kOk);
    EXPECT_FALSE(leave);
    EXPECT_EQ(RunLine(leaving, r.run(), err, &leave), kOk);
    EXPECT_TRUE(leave);
    EXPECT_THAT(r.lines, IsEmpty());
  }
}

TEST(CliShellTest, UnknownCommandsAndOpenQuotesAreUsageErrorsThatRunNothing) {
  Recorder r;
  std::ostringstream err;
  bool leave = false;
  EXPECT_EQ(RunLine("frobnicate now", r.run(), err, &leave), kUsage);
  EXPECT_THAT(err.str(), HasSubstr("unknown command frobnicate"));
  EXPECT_EQ(RunLine("call 'finder://x", r.run(), err, &leave), kUsage);
  EXPECT_THAT(err.str(), HasSubstr("unterminated '"));
  EXPECT_THAT(r.lines, IsEmpty());
  // help is the shell's and the one-shot form's: it is run.
  EXPECT_EQ(RunLine("help", r.run(), err, &leave), kOk);
  EXPECT_THAT(r.lines, ElementsAre(ElementsAre("help")));
}

TEST(CliShellTest, AScriptRunsEveryLineAndFailsIfOneFailed) {
  Recorder r;
  std::ostringstream err;
  std::istringstream ok("show fib\n\n# note\nshow route\n");
  EXPECT_EQ(RunScriptShell(r.run(), ok, err), kOk);
  EXPECT_EQ(r.lines.size(), 2u);
  std::istringstream failing("targets\nshow fib\nexit\nshow route\n");
  EXPECT_EQ(RunScriptShell(r.run(), failing, err), kFailed);
  EXPECT_EQ(r.lines.size(), 4u);  // targets and show fib; nothing after exit
}

// Sets an environment variable for the test's duration, restoring it after.
class ScopedEnv {
 public:
  explicit ScopedEnv(const char* name) : name_(name) {
    const char* value = std::getenv(name);
    if (value != nullptr) saved_ = value;
  }
  ~ScopedEnv() {
    if (saved_) {
      setenv(name_, saved_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

TEST(CliShellTest, HistoryLivesUnderXdgStateHome) {
  ScopedEnv home("HOME"), state("XDG_STATE_HOME");
  setenv("HOME", "/home/op", 1);
  setenv("XDG_STATE_HOME", "/var/state/op", 1);
  EXPECT_EQ(HistoryPath(), "/var/state/op/sluice/history");
  setenv("XDG_STATE_HOME", "relative/is/ignored", 1);  // as the XDG specification says
  EXPECT_EQ(HistoryPath(), "/home/op/.local/state/sluice/history");
  unsetenv("XDG_STATE_HOME");
  EXPECT_EQ(HistoryPath(), "/home/op/.local/state/sluice/history");
  unsetenv("HOME");
  EXPECT_EQ(HistoryPath(), "");
}

TEST(CliShellTest, TheShellTableAddsItsOwnWordsToTheCommands) {
  EXPECT_EQ(ShellCommands().size(), Commands().size() + 3);
  EXPECT_STREQ(ShellCommands().back().name, "quit");
}

const Grammar& KeysGrammar() {
  static const std::vector<Command> table = {
      {"show",
       "operational views",
       {
           {"show bgp peers [ --json ]", "help: peers"},
           {"show plumbing { bgp | rib }", "help: plumbing"},
           {"show processes", "help: processes"},
       },
       nullptr},
      {"configure",
       "change the configuration",
       {
           {"configure load FILE [ --check ]", "help: load"},
           {"configure rollback [ N ]", "help: rollback"},
       },
       nullptr},
      {"call", "call a method", {{"call XRL", "help: call"}}, nullptr},
  };
  static const Grammar grammar = *Grammar::Build(table);
  return grammar;
}

KeyAction Tab(const std::string& line) { return OnTab(KeysGrammar(), SplitForCompletion(line)); }
KeyAction Question(const std::string& line) {
  return OnQuestion(KeysGrammar(), SplitForCompletion(line));
}

TEST(CliShellKeysTest, TabCompletesAUniqueKeywordWithABlank) {
  KeyAction a = Tab("show bgp pe");
  EXPECT_EQ(a.insert, "ers ");
  EXPECT_EQ(a.listing, "");
  EXPECT_FALSE(a.beep);
  EXPECT_EQ(Tab("co").insert, "nfigure ");
  EXPECT_EQ(Tab("show plumbing r").insert, "ib ");
}

TEST(CliShellKeysTest, TabListsSeveralKeywordsAndExtendsWhatTheyShare) {
  KeyAction a = Tab("show p");
  EXPECT_EQ(a.insert, "");
  EXPECT_THAT(a.listing, HasSubstr("plumbing"));
  EXPECT_THAT(a.listing, HasSubstr("processes"));
  a = Tab("show pr");
  EXPECT_EQ(a.insert, "ocesses ");
}

TEST(CliShellKeysTest, TabWhereOnlyAValueFitsListsItOrBeeps) {
  KeyAction a = Tab("configure rollback ");
  EXPECT_EQ(a.insert, "");
  EXPECT_THAT(a.listing, HasSubstr("N"));
  EXPECT_THAT(a.listing, HasSubstr("help: rollback"));
  EXPECT_TRUE(Tab("configure rollback 3").beep);
  EXPECT_TRUE(Tab("show nonsense ").beep);
  EXPECT_TRUE(Tab("call 'finder://x").beep);
}

TEST(CliShellKeysTest, TabCompletesPathsWhereAFileIsExpected) {
  char dir_template[] = "/tmp/sluice-keys-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  std::ofstream(dir + "/main.conf") << "";
  std::ofstream(dir + "/main-job.conf") << "";
  std::ofstream(dir + "/my file.conf") << "";
  std::ofstream(dir + "/.hidden") << "";
  std::filesystem::create_directory(dir + "/other");

  KeyAction a = Tab("configure load " + dir + "/ma");
  EXPECT_EQ(a.insert, "in");
  EXPECT_THAT(a.listing, HasSubstr("main.conf"));
  EXPECT_THAT(a.listing, HasSubstr("main-job.conf"));
  EXPECT_EQ(Tab("configure load " + dir + "/main.").insert, "conf ");
  EXPECT_EQ(Tab("configure load " + dir + "/o").insert, "ther/");
  EXPECT_EQ(Tab("configure load " + dir + "/my").insert, "\\ file.conf ");
  EXPECT_EQ(Tab("configure load " + dir + "/.h").insert, "idden ");
  EXPECT_THAT(Tab("configure load " + dir + "/").listing, Not(HasSubstr("hidden")));
  EXPECT_TRUE(Tab("configure load " + dir + "/zzz").beep);
  std::filesystem::remove_all(dir);
}

TEST(CliShellKeysTest, QuestionListsWhatMayComeNextWithHelpAndEnter) {
  KeyAction a = Question("");
  EXPECT_EQ(a.insert, "");
  EXPECT_THAT(a.listing, HasSubstr("Possible completions:"));
  EXPECT_THAT(a.listing, HasSubstr("  configure   change the configuration\n"));
  EXPECT_THAT(Question("show bgp peers ").listing, HasSubstr("<Enter>"));
  EXPECT_THAT(Question("show bgp ").listing, Not(HasSubstr("<Enter>")));
  a = Question("show p");
  EXPECT_THAT(a.listing, HasSubstr("plumbing"));
  EXPECT_THAT(a.listing, Not(HasSubstr("bgp")));
  EXPECT_THAT(Question("show nonsense more ").listing,
              HasSubstr("\"nonsense\" does not fit here; `show ?` lists what does"));
  EXPECT_THAT(Question("show bgp zz").listing, HasSubstr("nothing starts with \"zz\""));
}

TEST(CliShellKeysTest, QuestionIsACharacterInsideQuotesAndValues) {
  EXPECT_EQ(Question("call finder://rib/common/1.0/get_status").insert, "?");
  EXPECT_EQ(Question("call finder://rib/common/1.0/get_status").listing, "");
  EXPECT_EQ(Question("show 'a").insert, "?");
  EXPECT_THAT(Question("call ").listing, HasSubstr("XRL"));
}

}  // namespace
}  // namespace sluice::rtrmgr::cli
