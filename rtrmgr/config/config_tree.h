#pragma once
// The configuration file as a tree of statements, before any keyword has a meaning. Every
// statement of the router manager's language has one shape (XORP / Junos braces):
//
//   file       := statement*
//   statement  := KEYWORD argument* ( ';' | '{' statement* '}' )
//   argument   := WORD | "STRING" | '[' (WORD | "STRING")* ']'
//
// Words, strings and comments (#, //, /* */) are those of the policy language's lexer
// (policy/lexer.h): a word is a run of characters other than white space, commas, { } [ ] ; "
// and #, so addresses, prefixes and "65000:100" are single words.
//
// One statement is different: a top-level `policy { ... }` holds the policy language itself
// (policy/parser.h), which the policy parser reads; the tree keeps its result and its text.
//
// Syntax errors (a missing ';' before '}', an unclosed brace or list, a stray token) are
// collected with their location and the parser resumes at the next statement, so that several
// are reported at once.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "policy/ast.h"
#include "rtrmgr/config/diagnostics.h"

namespace sluice::rtrmgr {

struct ConfigValue {
  enum class Kind { kWord, kString, kList };
  Kind kind = Kind::kWord;
  std::string text;                // a word, or a string without its quotes
  std::vector<ConfigValue> items;  // kList: its words and strings
  Location loc;
  // How the value reads in an error message: 'word', "string", '[ ... ]'.
  std::string Describe() const;
};

struct ConfigNode {
  std::string keyword;
  Location loc;  // of the keyword
  std::vector<ConfigValue> args;
  bool has_block = false;
  std::vector<ConfigNode> children;  // the block's statements

  // The top-level `policy { ... }` block only: the policy parser's result (null when the block
  // has an error, which is then among the diagnostics) and the body's text and location.
  bool is_policy = false;
  std::shared_ptr<const policy::PolicyConfig> policy;
  std::string policy_text;
  Location policy_text_loc;

  // "keyword arg arg" (for messages; long argument lists are shortened).
  std::string Summary() const;
};

struct ConfigTree {
  std::vector<ConfigNode> statements;
  // False when the file has syntax errors (the tree is then incomplete). Errors inside the
  // policy block leave the rest of the tree whole: syntax_ok stays true.
  bool syntax_ok = true;
};

// Reads `text` (the contents of `file`) into a tree. Errors go to `diags`.
ConfigTree ParseConfigTree(std::string_view text, std::string_view file, Diagnostics* diags);

}  // namespace sluice::rtrmgr
