#pragma once
// The policy language parser: the body of a `policy { ... }` block (the router manager's
// configuration embeds one) into a PolicyConfig. Grammar (XORP / Junos brace style):
//
//   body      := item*
//   item      := prefix-list NAME { (PREFIX [MODIFIER] ;)* }
//              | community-list NAME { (PATTERN ;)* }          also ext-community-list,
//              | as-path-list NAME { ("REGEX" ;)* }             large-community-list
//              | policy-statement NAME { term* }
//   term      := term NAME { [from { match* }] [to { match* }] [then { action* }] }
//   MODIFIER  := exact | longer | orlonger | shorter | orshorter | prefix-length A[-B]
//   match     := see MatchKind in policy/ast.h, each ending in ';'
//   action    := see ActionKind in policy/ast.h, each ending in ';'; a flow action (accept,
//                reject, next term, next policy) may only come last in its block
//
// Example:
//
//   prefix-list bogons { 10.0.0.0/8 orlonger; 0.0.0.0/0 prefix-length 25-32; }
//   policy-statement upstream-in {
//     term no-bogons { from { prefix-list bogons; } then { reject; } }
//     term customers {
//       from { community 65000:100; as-path-length <= 10; }
//       then { local-pref 200; community add [ 65000:200 ]; accept; }
//     }
//   }
//
// Errors are InvalidArgument "FILE:LINE:COL: expected X, found Y" (or what is wrong with a
// value); the first error stops the parse.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "policy/ast.h"
#include "policy/lexer.h"

namespace sluice::policy {

// Parses `text` as the body of a policy block; locations count from `start` (the position of
// text[0] in its file). When `end_offset` is given, parsing stops at the first '}' that closes
// nothing (the router manager's closing brace of `policy { ... }`) and *end_offset is set to its
// byte offset in `text` (nothing after it is read); without it such a brace is an error.
absl::StatusOr<PolicyConfig> ParsePolicy(std::string_view text, const SourceLocation& start,
                                         size_t* end_offset = nullptr);

// The token-level parser, public so that other grammars built on the language (the .pol test
// files) reuse its pieces. Every method returns an error naming the location on bad input.
class Parser {
 public:
  Parser(std::vector<Token> tokens, std::string file)
      : tokens_(std::move(tokens)), file_(std::move(file)) {}

  const Token& Peek(size_t ahead = 0) const;
  Token Next();
  bool AtEnd() const { return Peek().kind == TokenKind::kEnd; }
  bool PeekWord(std::string_view word) const;
  SourceLocation Loc(const Token& t) const { return SourceLocation{file_, t.line, t.column}; }
  SourceLocation Here() const { return Loc(Peek()); }
  // "FILE:LINE:COL: message" at the token.
  absl::Status ErrorAt(const Token& t, std::string_view message) const;
  absl::Status Expected(std::string_view what) const;  // "expected WHAT, found TOKEN"

  absl::Status Expect(TokenKind kind);
  absl::Status ExpectWord(std::string_view word);
  absl::StatusOr<Token> ExpectAnyWord(std::string_view what);
  // A set, policy or term name: letters, digits, '-', '_', '.', starting with a letter or '_'.
  absl::StatusOr<Token> ExpectName(std::string_view what);
  absl::StatusOr<uint32_t> ExpectNumber(std::string_view what, uint64_t max = 0xffffffff);
  absl::StatusOr<Comparison> ParseComparison(std::string_view what);
  absl::StatusOr<net::IPAddress> ExpectAddress();
  // PREFIX [MODIFIER]; family must match when given.
  absl::StatusOr<PrefixEntry> ParsePrefixEntry(const net::Family* family);
  absl::StatusOr<Origin> ExpectOrigin();
  // valid | invalid | not-found.
  absl::StatusOr<RpkiValidation> ExpectRpkiState();
  // Calls item() for one item or for each item of "[ ... ]".
  template <typename F>
  absl::Status OneOrList(F&& item) {
    if (Peek().kind != TokenKind::kLBracket) return item();
    Next();
    while (Peek().kind != TokenKind::kRBracket) {
      if (AtEnd()) return Expected("']'");
      absl::Status s = item();
      if (!s.ok()) return s;
    }
    Next();
    return absl::OkStatus();
  }

  // One top-level item (a set or a policy statement) into *config.
  absl::Status ParseItem(PolicyConfig* config);
  absl::Status ParseMatch(bool to_block, Condition* out);
  absl::Status ParseAction(Action* out);

 private:
  absl::Status ParseSet(SetKind kind, PolicyConfig* config);
  absl::Status ParseStatement(PolicyConfig* config);
  absl::Status ParseTerm(Term* term);
  absl::Status ParseCommunityOperand(MatchKind kind, std::string* set_name, SourceLocation* set_loc,
                                     std::vector<CommunityPattern>* c,
                                     std::vector<ExtCommunityPattern>* e,
                                     std::vector<LargeCommunityPattern>* l);
  absl::StatusOr<RegexText> ParseRegex();

  std::vector<Token> tokens_;
  std::string file_;
  size_t pos_ = 0;
};

}  // namespace sluice::policy
