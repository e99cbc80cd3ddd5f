#pragma once
// What the interactive shell's TAB and `?` keys do to the line being edited (shell.h), decided
// from the line up to the cursor and the grammar, without a terminal.
//
// TAB: a unique keyword is inserted with a blank after it; several are extended to their common
// start and listed; where only a VALUE may follow, it is listed with its help, and where that is
// a FILE, the paths that fit complete instead (a directory with '/', a file with a blank).
// `?`: "Possible completions:" with each keyword or VALUE and its help line, and <Enter> when
// the words so far are a whole command; or which word fits no form. Inside quotes, or in a value
// being typed (an XRL's query string), `?` is the character itself.

#include <string>

#include "rtrmgr/cli/grammar.h"
#include "rtrmgr/cli/shell_words.h"

namespace sluice::rtrmgr::cli {

struct KeyAction {
  std::string insert;   // to type at the cursor, escaped as the line needs
  std::string listing;  // to print under the line (which is then drawn again); "" for none
  bool beep = false;    // nothing fits
};

KeyAction OnTab(const Grammar& grammar, const LineSoFar& line);
KeyAction OnQuestion(const Grammar& grammar, const LineSoFar& line);

}  // namespace sluice::rtrmgr::cli
