#pragma once
// The forms grammar of command.h, parsed, and what the interactive shell's TAB and `?` offer.
//
//   absl::StatusOr<Grammar> g = Grammar::Build(Commands());
//   Completion c = g->Complete({"show", "bgp"}, "pe");
//   // c.next: {"peers", keyword, "BGP peers: state, uptime, messages, prefixes"}
//
// A form compiles to a small nondeterministic automaton (one state per position between
// tokens); completion walks it over the words typed so far. A word is a keyword only when it is
// typed in full (no abbreviations: the shell runs a line exactly as `sluice WORDS...` would). A
// word that is one of the keywords possible at its position is taken as that keyword, never as
// a VALUE; any other word is taken as a VALUE.

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "rtrmgr/cli/command.h"

namespace sluice::rtrmgr::cli {

// One form parsed: a tree of keywords, VALUEs and the brackets around them.
struct FormNode {
  enum class Kind { kKeyword, kValue, kSequence, kOptional, kChoice };
  Kind kind = Kind::kSequence;
  std::string text;  // kKeyword, kValue: the token as written ("peers", "ADDR")
  // kSequence: its items, in order. kOptional ([ ]) and kChoice ({ }): the alternatives, each a
  // non-empty kSequence.
  std::vector<FormNode> children;
};

// Parses one form ("show bgp routes [ PREFIX ] [ in | out ]"). A VALUE is a token of upper case
// letters, digits, '-' and '_' that starts with a letter; a keyword is any other token without
// upper case letters. Errors (InvalidArgument, naming the token): an empty form, an unbalanced or
// mismatched bracket, an empty alternative, '|' outside brackets, a bracket glued to a word
// ("[--json]"), a token in mixed case ("Peers").
absl::StatusOr<FormNode> ParseForm(std::string_view syntax);

// What may come next at the cursor.
struct Candidate {
  std::string word;  // a keyword ("peers") or a VALUE placeholder ("ADDR")
  bool is_value = false;
  // One line: the command's summary for a first word; the form's help; for a keyword several
  // forms share, the help of the one form that may end right after it, else the words that may
  // follow it ("damping | peers | routes").
  std::string help;
};

struct Completion {
  bool matched = false;   // the complete words fit the start of some form
  bool complete = false;  // ... and are a whole form (Enter would run it)
  // Keywords starting with the partial word, then VALUEs (whatever the partial word: it may be
  // the start of a value). Sorted: plain keywords, then "-" options, then VALUEs, each by name.
  std::vector<Candidate> next;
};

class Grammar {
 public:
  // Every form of every command. Errors (InvalidArgument, naming the command and form): a form
  // that does not parse or whose first token is not the command's name.
  static absl::StatusOr<Grammar> Build(const std::vector<Command>& commands);

  // `words`: the complete words typed so far; `partial`: the word being typed ("" after a space).
  Completion Complete(const std::vector<std::string>& words, std::string_view partial) const;

 private:
  struct Token {
    std::string text;
    bool is_value = false;
    int form = 0;  // index into forms_
    int to = 0;    // the state it leads to
  };
  struct State {
    std::vector<int> epsilon;  // states reached without consuming a word
    std::vector<Token> moves;
    int accepts = -1;  // the form that ends here, if one does
  };
  struct FormInfo {
    std::string help;
    int command = 0;  // index into summaries_
  };

  int AddState();
  // Adds `node` between `from` and a new state it returns.
  int Compile(const FormNode& node, int from, int form);
  std::vector<int> Closure(std::vector<int> states) const;
  // The states after `words`, keyword moves first (see the header comment); empty when none fit.
  std::vector<int> Walk(const std::vector<std::string>& words) const;
  struct Next {
    std::string text;
    bool is_value = false;
    std::vector<int> forms;  // the forms whose moves these are, ascending, no repeats
    std::vector<int> to;     // the states they lead to
  };
  // The moves out of `states` (keywords only when they start with `partial`), in the order of
  // Completion::next.
  std::vector<Next> Moves(const std::vector<int>& states, std::string_view partial) const;
  std::string HelpFor(bool first_word, const Next& next) const;

  std::vector<State> states_;  // states_[0] is the start
  std::vector<FormInfo> forms_;
  std::vector<std::string> summaries_;
};

}  // namespace sluice::rtrmgr::cli
