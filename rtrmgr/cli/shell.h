#pragma once
// The interactive `sluice` shell: `sluice` with no command on a terminal, or `sluice shell`.
//
//   sluice> show bgp pe<TAB>        completes to "show bgp peers " (one candidate), lists several
//   sluice> show bgp ?              what may come next, each with its help line; <Enter> when
//                                   the words so far are a whole command
//   sluice> help | exit | quit      (Ctrl-D leaves too; Ctrl-C abandons the line)
//
// Each line is split into words (shell_words.h) and run exactly as `sluice WORDS...` would be,
// through the caller's `run`; errors are printed and the shell goes on. Completion and `?` come
// from the same command table (grammar.h). `?` is a literal character inside quotes, inside a
// value being typed (an XRL's query string), or after Ctrl-V.
//
// History: one line per command, kept across sessions in HistoryPath(), at most 1000 lines,
// consecutive repeats once. Editing keys are libedit's emacs bindings (Up/Down recall); a user's
// ~/.editrc applies.

#include <cstdio>
#include <functional>
#include <istream>
#include <string>
#include <vector>

namespace sluice::rtrmgr::cli {

// Runs one command line's words (`sluice WORDS...`); returns its exit status (command.h).
using RunWords = std::function<int(const std::vector<std::string>& words)>;

// $XDG_STATE_HOME/sluice/history, $XDG_STATE_HOME defaulting to $HOME/.local/state; "" when
// neither variable is set.
std::string HistoryPath();

// The interactive shell on a terminal (`in` and `out`): until exit, quit or end of input.
// Returns 0; 1 (kFailed) when line editing cannot be set up.
int RunInteractiveShell(const RunWords& run, FILE* in, FILE* out);

// The shell without a terminal: one command per line from `in`, no prompt, no history; blank
// lines and lines starting with '#' are skipped; exit and quit stop. Each command's output and
// errors go where `run` sends them; a line that does not split prints its error to `err`.
// Returns 0 when every line succeeded, 1 (kFailed) otherwise.
int RunScriptShell(const RunWords& run, std::istream& in, std::ostream& err);

}  // namespace sluice::rtrmgr::cli
