// The interactive `sluice` shell as a person meets it: the real binary on a terminal that tmux
// provides, keys sent with `tmux send-keys` and the screen read with `tmux capture-pane -p`.
// TAB completion, `?` help, history across two sessions, commands with and without a Finder; and
// `sluice shell` reading commands from a pipe. Skips when tmux is not installed.

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rtrmgr/cli/command.h"
#include "rtrmgr/cli/grammar.h"
#include "tests/system/child_process.h"

namespace sluice {
namespace {

using testing::BuildPath;
using testing::ChildProcess;
using testing::CommandResult;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::RunCommand;

// The full path of `program` on $PATH; "" when absent.
std::string FindInPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  for (absl::string_view dir : absl::StrSplit(path != nullptr ? path : "/usr/bin:/bin", ':')) {
    const std::string candidate = absl::StrCat(dir, "/", program);
    if (!dir.empty() && access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

std::vector<std::string> Lines(const std::string& screen) {
  std::vector<std::string> lines = absl::StrSplit(screen, '\n');
  for (std::string& line : lines) line.erase(line.find_last_not_of(' ') + 1);
  return lines;
}

// `sluice` in a detached tmux session on a private tmux server (its socket in `dir`).
class TmuxShell {
 public:
  TmuxShell(const std::string& tmux, const std::string& dir, const std::vector<std::string>& env,
            const std::string& name)
      : tmux_(tmux), socket_(dir + "/tmux-" + name) {
    std::string command = "env";
    for (const std::string& e : env) absl::StrAppend(&command, " ", e);
    // After sluice exits the pane stays, showing its exit status.
    absl::StrAppend(&command, " ", BuildPath("rtrmgr/cli/sluice"),
                    "; echo sluice-exited=$?; sleep 600");
    started_ =
        Tmux({"new-session", "-d", "-s", "sluice", "-x", "150", "-y", "80", command}).exit_code ==
        0;
  }
  ~TmuxShell() { Tmux({"kill-server"}); }

  bool started() const { return started_; }
  void Type(const std::string& text) { Tmux({"send-keys", "-t", "sluice", "-l", text}); }
  void Keys(const std::string& key) { Tmux({"send-keys", "-t", "sluice", key}); }
  std::string Screen() { return Tmux({"capture-pane", "-p", "-J", "-t", "sluice", "-S", "-"}).out; }

  // The last line that starts with the prompt (the line being edited), trailing blanks dropped.
  std::string PromptLine() {
    std::string last;
    for (const std::string& line : Lines(Screen())) {
      if (line.starts_with("sluice>")) last = line;
    }
    return last;
  }
  // Polls the screen until `done` holds for it (at most 20 s); the screen then.
  bool WaitForScreen(const std::function<bool(const std::string&)>& done) {
    for (int i = 0; i < 400; ++i) {
      if (done(Screen())) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
  bool WaitForText(const std::string& text) {
    return WaitForScreen([&](const std::string& s) { return s.find(text) != std::string::npos; });
  }
  bool WaitForPromptLine(const std::string& line) {
    return WaitForScreen([&](const std::string&) { return PromptLine() == line; });
  }
  // Waits until the screen holds `n` prompts (counting from the session's start).
  bool WaitForPrompts(size_t n) {
    return WaitForScreen([&](const std::string& s) {
      size_t count = 0;
      for (const std::string& line : Lines(s)) count += line.starts_with("sluice>");
      return count >= n;
    });
  }

 private:
  CommandResult Tmux(std::vector<std::string> args) {
    args.insert(args.begin(), {tmux_, "-S", socket_, "-f", "/dev/null"});
    return RunCommand(args);
  }

  std::string tmux_;
  std::string socket_;
  bool started_ = false;
};

class ShellSystemTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tmux_ = FindInPath("tmux");
    if (tmux_.empty()) GTEST_SKIP() << "tmux is not installed: the shell needs a terminal";
    char dir[] = "/tmp/sluice-shell-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  // HOME (no ~/.editrc), the history's directory and the run directory are all the test's.
  std::vector<std::string> Env() const {
    return {"HOME=" + dir_, "XDG_STATE_HOME=" + dir_ + "/state", "SLUICE_RUNDIR=" + dir_,
            "SLUICE_FINDER=unix:" + dir_ + "/finder.sock"};
  }
  std::unique_ptr<TmuxShell> Open(const std::string& name) {
    auto shell = std::make_unique<TmuxShell>(tmux_, dir_, Env(), name);
    EXPECT_TRUE(shell->started());
    EXPECT_TRUE(shell->WaitForPromptLine("sluice>")) << shell->Screen();
    return shell;
  }

  std::string tmux_;
  std::string dir_;
};

TEST_F(ShellSystemTest, TabCompletesAKeywordAndListsSeveral) {
  auto shell = Open("tab");
  shell->Type("show bgp pe");
  shell->Keys("Tab");
  EXPECT_TRUE(shell->WaitForPromptLine("sluice> show bgp peers")) << shell->Screen();

  // `show bgp su<TAB>`: one keyword starts so there.
  shell->Keys("C-u");
  shell->Type("show bgp su");
  shell->Keys("Tab");
  EXPECT_TRUE(shell->WaitForPromptLine("sluice> show bgp summary")) << shell->Screen();

  // Several candidates: listed, and the line stays as typed.
  shell->Keys("C-u");
  shell->Type("show p");
  shell->Keys("Tab");
  EXPECT_TRUE(shell->WaitForText("processes")) << shell->Screen();
  EXPECT_THAT(shell->Screen(), HasSubstr("plumbing"));
  EXPECT_EQ(shell->PromptLine(), "sluice> show p");
}

TEST_F(ShellSystemTest, QuestionMarkListsTheVerbsAndWhatMayFollow) {
  auto shell = Open("help");
  shell->Type("?");
  ASSERT_TRUE(shell->WaitForText("Possible completions:")) << shell->Screen();
  ASSERT_TRUE(shell->WaitForText("targets")) << shell->Screen();
  const std::string verbs = shell->Screen();
  for (const rtrmgr::cli::Command& command : rtrmgr::cli::Commands()) {
    EXPECT_THAT(verbs, HasSubstr(absl::StrCat("  ", command.name, " ")));
    EXPECT_THAT(verbs, HasSubstr(command.summary));
  }
  for (const char* own : {"help", "exit", "quit"}) {
    EXPECT_THAT(verbs, HasSubstr(absl::StrCat("  ", own, " ")));
  }
  // `?` is not typed into the line.
  EXPECT_EQ(shell->PromptLine(), "sluice>");

  shell->Type("show bgp ?");
  ASSERT_TRUE(shell->WaitForText("BGP peers: state")) << shell->Screen();
  EXPECT_EQ(shell->PromptLine(), "sluice> show bgp");

  // A value: listed with its form's help, and <Enter> once the words are a whole command.
  shell->Keys("C-u");
  shell->Type("configure load ?");
  ASSERT_TRUE(shell->WaitForText("FILE")) << shell->Screen();
  shell->Keys("C-u");
  shell->Type("show fib ?");
  EXPECT_TRUE(shell->WaitForText("<Enter>")) << shell->Screen();

  // Inside an XRL `?` is the character it is.
  shell->Keys("C-u");
  shell->Type("call finder://finder/common/1.0/get_status?");
  EXPECT_TRUE(shell->WaitForPromptLine("sluice> call finder://finder/common/1.0/get_status?"))
      << shell->Screen();
}

TEST_F(ShellSystemTest, EachLineRunsLikeTheOneShotFormAndTheShellGoesOn) {
  auto shell = Open("run");
  // No Finder yet: the command's error, then a new prompt.
  shell->Type("targets");
  shell->Keys("Enter");
  ASSERT_TRUE(shell->WaitForText("cannot reach the Finder")) << shell->Screen();
  ASSERT_TRUE(shell->WaitForPrompts(2)) << shell->Screen();
  EXPECT_EQ(shell->PromptLine(), "sluice>");

  shell->Type("frobnicate");
  shell->Keys("Enter");
  EXPECT_TRUE(shell->WaitForText("unknown command frobnicate")) << shell->Screen();
  ASSERT_TRUE(shell->WaitForPrompts(3)) << shell->Screen();

  // With a Finder and a component the same line lists it.
  const std::vector<std::string> env = {"SLUICE_RUNDIR=" + dir_};
  auto finder = ChildProcess::Start({BuildPath("finder/sluice-finder"), "--grace-ms", "200"}, env);
  ASSERT_NE(finder, nullptr);
  auto echo = ChildProcess::Start(
      {BuildPath("tests/ipc/sluice-test-component"), "--instance", "echo"}, env);
  ASSERT_NE(echo, nullptr);
  ASSERT_TRUE(echo->WaitForOutput("ready echo", 20000)) << echo->Output();
  shell->Type("targets");
  shell->Keys("Enter");
  EXPECT_TRUE(shell->WaitForText("echo (class test_echo)")) << shell->Screen();
  ASSERT_TRUE(shell->WaitForPrompts(4)) << shell->Screen();

  shell->Type("exit");
  shell->Keys("Enter");
  EXPECT_TRUE(shell->WaitForText("sluice-exited=0")) << shell->Screen();
}

TEST_F(ShellSystemTest, HistoryRecallsEarlierLinesAndOutlivesTheSession) {
  {
    auto first = Open("history1");
    first->Type("show fib");
    first->Keys("Enter");
    ASSERT_TRUE(first->WaitForPrompts(2)) << first->Screen();
    first->Type("targets");
    first->Keys("Enter");
    ASSERT_TRUE(first->WaitForPrompts(3)) << first->Screen();
    first->Keys("Up");
    EXPECT_TRUE(first->WaitForPromptLine("sluice> targets")) << first->Screen();
    first->Keys("Up");
    EXPECT_TRUE(first->WaitForPromptLine("sluice> show fib")) << first->Screen();
    first->Keys("C-u");
    first->Keys("C-d");  // end of input on an empty line
    EXPECT_TRUE(first->WaitForText("sluice-exited=0")) << first->Screen();
  }
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/state/sluice/history"));

  auto second = Open("history2");
  second->Keys("Up");
  EXPECT_TRUE(second->WaitForPromptLine("sluice> targets")) << second->Screen();
  second->Keys("Up");
  EXPECT_TRUE(second->WaitForPromptLine("sluice> show fib")) << second->Screen();
}

TEST_F(ShellSystemTest, WithoutATerminalShellReadsCommandsLineByLine) {
  const std::string sluice = BuildPath("rtrmgr/cli/sluice");
  std::vector<std::string> env = Env();
  // `sluice` alone keeps printing its usage.
  CommandResult bare = RunCommand({"/bin/sh", "-c", sluice + " < /dev/null"}, env);
  EXPECT_EQ(bare.exit_code, 2);
  EXPECT_THAT(bare.err, HasSubstr("Commands:"));

  // Comments and blank lines are skipped; a failing line is reported, the next still runs; the
  // exit status says one failed.
  const std::string script = dir_ + "/commands";
  std::ofstream(script) << "# a comment\n\nhelp\nfrobnicate\nshow bgp peers --help\n";
  CommandResult run = RunCommand({"/bin/sh", "-c", sluice + " shell < " + script}, env);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, HasSubstr("unknown command frobnicate"));
  EXPECT_THAT(run.out, HasSubstr("usage: sluice show bgp peers"));
  EXPECT_THAT(run.out, Not(HasSubstr("sluice>")));

  std::ofstream(script) << "help\nexit\nfrobnicate\n";
  run = RunCommand({"/bin/sh", "-c", sluice + " shell < " + script}, env);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.err, Not(HasSubstr("frobnicate")));
}

}  // namespace
}  // namespace sluice
