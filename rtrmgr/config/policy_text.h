#pragma once
// The policy block's items (named sets and policy statements) as canonical text: their tokens
// separated by single spaces, comments and layout dropped. Two items with the same canonical
// text mean the same thing, which is how a configuration change tells which policies changed
// (config_delta.h); and the text pretty-prints back into the policy language for
// `sluice show configuration`.

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace sluice::rtrmgr {

struct PolicyItemText {
  std::string kind;       // "prefix-list", "community-list", ..., "policy-statement"
  std::string name;       // the set's or statement's name
  std::string canonical;  // "prefix-list bogons { 10.0.0.0/8 orlonger ; }"
  friend bool operator==(const PolicyItemText&, const PolicyItemText&) = default;
};

// Splits the body of a policy block that the policy parser accepted into its items, in order.
// Errors: InvalidArgument when the text does not lex or an item is not KIND NAME { ... }.
absl::StatusOr<std::vector<PolicyItemText>> SplitPolicyItems(std::string_view body);

// A string in double quotes with '"' and '\' escaped (the lexer's string syntax).
std::string QuoteString(std::string_view text);

// Appends `item` in the policy language, one statement per line, blocks indented by four
// spaces from `indent` columns.
void PrintPolicyItem(const PolicyItemText& item, int indent, std::string* out);

}  // namespace sluice::rtrmgr
