#include "rtrmgr/cli/shell.h"

#include <histedit.h>
#include <signal.h>
#include <sys/stat.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "rtrmgr/cli/grammar.h"
#include "rtrmgr/cli/shell_keys.h"
#include "rtrmgr/cli/shell_line.h"
#include "rtrmgr/cli/shell_words.h"

namespace sluice::rtrmgr::cli {
namespace {

constexpr int kHistoryLines = 1000;
constexpr const char* kHint = "TAB completes, ? lists what may come next, exit or Ctrl-D leaves";

volatile std::sig_atomic_t interrupted = 0;
void OnInterrupt(int) { interrupted = 1; }

char* Prompt(EditLine*) { return const_cast<char*>("sluice> "); }

// The libedit session: line editing, history, and the TAB and `?` keys over the grammar.
class Shell {
 public:
  Shell(const RunWords& run, FILE* in, FILE* out, const Grammar& grammar)
      : run_(run), out_(out), grammar_(grammar), history_path_(HistoryPath()) {
    history_ = history_init();
    editline_ = el_init("sluice", in, out, stderr);
    if (!ok()) return;
    HistEvent event;
    history(history_, &event, H_SETSIZE, kHistoryLines);
    history(history_, &event, H_SETUNIQUE, 1);
    if (!history_path_.empty()) history(history_, &event, H_LOAD, history_path_.c_str());
    el_set(editline_, EL_CLIENTDATA, this);
    el_set(editline_, EL_EDITOR, "emacs");
    el_set(editline_, EL_SIGNAL, 1);
    el_set(editline_, EL_PROMPT, &Prompt);
    el_set(editline_, EL_HIST, history, history_);
    el_set(editline_, EL_ADDFN, "sluice-complete", "complete a keyword", &Tab);
    el_set(editline_, EL_ADDFN, "sluice-help", "list what may come next", &Question);
    el_set(editline_, EL_BIND, "^I", "sluice-complete", nullptr);
    el_set(editline_, EL_BIND, "?", "sluice-help", nullptr);
    el_source(editline_, nullptr);  // ~/.editrc
  }
  ~Shell() {
    if (editline_ != nullptr) el_end(editline_);
    if (history_ != nullptr) history_end(history_);
  }
  Shell(const Shell&) = delete;
  Shell& operator=(const Shell&) = delete;

  bool ok() const { return editline_ != nullptr && history_ != nullptr; }

  void Loop() {
    std::fprintf(out_, "sluice shell: %s.\n", kHint);
    bool leave = false;
    while (!leave) {
      interrupted = 0;
      int count = 0;
      const char* line = el_gets(editline_, &count);
      if (line == nullptr) {
        std::fputs("\n", out_);
        if (count < 0 && (interrupted || errno == EINTR)) continue;  // Ctrl-C: a new line
        break;                                                       // Ctrl-D
      }
      std::string text(line);
      text.erase(text.find_last_not_of(" \t\r\n") + 1);  // npos + 1 == 0: all blank
      Remember(text);
      std::fflush(out_);
      RunLine(text, run_, std::cerr, &leave);
      std::cout.flush();
      if (text == "help") std::fprintf(out_, "In this shell: %s.\n", kHint);
    }
  }

 private:
  static Shell& Of(EditLine* e) {
    void* self = nullptr;
    el_get(e, EL_CLIENTDATA, &self);
    return *static_cast<Shell*>(self);
  }
  static unsigned char Tab(EditLine* e, int) {
    Shell& shell = Of(e);
    return shell.Apply(OnTab(shell.grammar_, shell.BeforeCursor()));
  }
  static unsigned char Question(EditLine* e, int) {
    Shell& shell = Of(e);
    return shell.Apply(OnQuestion(shell.grammar_, shell.BeforeCursor()));
  }

  LineSoFar BeforeCursor() const {
    const LineInfo* info = el_line(editline_);
    return SplitForCompletion(std::string_view(info->buffer, info->cursor - info->buffer));
  }

  // Applies what a key decided: types its text, prints its listing under the line.
  unsigned char Apply(const KeyAction& action) {
    if (action.beep) return CC_ERROR;
    if (!action.insert.empty() && el_insertstr(editline_, action.insert.c_str()) != 0) {
      return CC_ERROR;
    }
    if (action.listing.empty()) return CC_REFRESH;
    std::fputs(("\n" + action.listing).c_str(), out_);
    std::fflush(out_);
    return CC_REDISPLAY;
  }

  void Remember(const std::string& line) {
    if (line.find_first_not_of(" \t") == std::string::npos) return;
    HistEvent event;
    history(history_, &event, H_ENTER, line.c_str());
    if (history_path_.empty() || history_unsaved_) return;
    std::error_code ignored;
    const std::filesystem::path dir = std::filesystem::path(history_path_).parent_path();
    if (std::filesystem::create_directories(dir, ignored)) ::chmod(dir.c_str(), 0700);
    if (history(history_, &event, H_SAVE, history_path_.c_str()) < 0) {
      std::fprintf(stderr, "sluice: cannot save the history in %s\n", history_path_.c_str());
      history_unsaved_ = true;  // say it once
      return;
    }
    ::chmod(history_path_.c_str(), 0600);
  }

  const RunWords& run_;
  FILE* out_;
  const Grammar& grammar_;
  const std::string history_path_;
  bool history_unsaved_ = false;
  History* history_ = nullptr;
  EditLine* editline_ = nullptr;
};

}  // namespace

std::string HistoryPath() {
  const char* state = std::getenv("XDG_STATE_HOME");
  if (state != nullptr && state[0] == '/') return absl::StrCat(state, "/sluice/history");
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] != '\0') {
    return absl::StrCat(home, "/.local/state/sluice/history");
  }
  return "";
}

int RunInteractiveShell(const RunWords& run, FILE* in, FILE* out) {
  absl::StatusOr<Grammar> grammar = Grammar::Build(ShellCommands());
  if (!grammar.ok()) {  // a bug in the command table; the unit test over every row catches it
    std::cerr << "sluice: " << grammar.status().message() << "\n";
    return kFailed;
  }
  struct sigaction on_interrupt = {}, before = {};
  on_interrupt.sa_handler = &OnInterrupt;  // no SA_RESTART: el_gets returns, the line goes
  sigemptyset(&on_interrupt.sa_mask);
  sigaction(SIGINT, &on_interrupt, &before);
  int status = kOk;
  {
    Shell shell(run, in, out, *grammar);
    if (shell.ok()) {
      shell.Loop();
    } else {
      std::cerr << "sluice: cannot set up line editing on this terminal\n";
      status = kFailed;
    }
  }
  sigaction(SIGINT, &before, nullptr);
  return status;
}

}  // namespace sluice::rtrmgr::cli
