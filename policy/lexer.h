#pragma once
// The tokens of the policy language (and of the router manager's brace-style configuration,
// which embeds a policy block): words, "strings", { } [ ] and ;.
//
// A word is a maximal run of characters other than white space, commas and { } [ ] ; " # — so
// "10.0.0.0/8", "2001:db8::/32", "65000:100", "16-24", "<=" and "no-export" are single words and
// the parser gives them meaning by position. Commas separate like white space ("[a, b]" = "[a b]").
// Strings are in double quotes with \" and \\ escapes and do not span lines. Comments: '#' or
// '//' to the end of the line, and '/* ... */'.
//
// Every token carries its location: file, line and column (1-based; a tab is one column), counted
// from the location the text starts at, so a block cut out of a larger file reports positions in
// that file.

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace sluice::policy {

struct SourceLocation {
  std::string file;  // as given; "<policy>" when none
  int line = 1;
  int column = 1;
  // "FILE:LINE:COL"
  std::string ToString() const;
};

enum class TokenKind { kWord, kString, kLBrace, kRBrace, kLBracket, kRBracket, kSemicolon, kEnd };
std::string_view TokenKindName(TokenKind kind);  // "'{'", "a word", "end of input", ...

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;  // a word, or a string without quotes and escapes
  int line = 1;
  int column = 1;
  size_t offset = 0;  // byte offset in the lexed text (for embedding callers)
  // How the token reads in an error message: 'word', "string", '{', end of input.
  std::string Describe() const;
};

// Splits `text` into tokens ending with one kEnd token. Errors (InvalidArgument) name
// FILE:LINE:COL and the problem: an unterminated string or comment, a control character.
// With `stop_at_unmatched_brace`, lexing ends after the first '}' that closes nothing (the end
// of an embedded block), so what follows it in a larger file is not looked at.
absl::StatusOr<std::vector<Token>> Lex(std::string_view text, const SourceLocation& start,
                                       bool stop_at_unmatched_brace = false);

}  // namespace sluice::policy
