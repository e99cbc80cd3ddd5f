#include "rtrmgr/config/policy_text.h"

#include "absl/strings/str_cat.h"
#include "policy/lexer.h"

namespace sluice::rtrmgr {

using policy::Token;
using policy::TokenKind;

std::string QuoteString(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
  return out;
}

namespace {

std::string TokenText(const Token& t) {
  switch (t.kind) {
    case TokenKind::kWord:
      return t.text;
    case TokenKind::kString:
      return QuoteString(t.text);
    case TokenKind::kLBrace:
      return "{";
    case TokenKind::kRBrace:
      return "}";
    case TokenKind::kLBracket:
      return "[";
    case TokenKind::kRBracket:
      return "]";
    case TokenKind::kSemicolon:
      return ";";
    case TokenKind::kEnd:
      return "";
  }
  return "";
}

}  // namespace

absl::StatusOr<std::vector<PolicyItemText>> SplitPolicyItems(std::string_view body) {
  auto tokens = policy::Lex(body, policy::SourceLocation{"<policy>", 1, 1});
  if (!tokens.ok()) return tokens.status();
  std::vector<PolicyItemText> items;
  size_t i = 0;
  while ((*tokens)[i].kind != TokenKind::kEnd) {
    const Token& kind = (*tokens)[i];
    const Token& name = (*tokens)[i + 1];  // kEnd at worst: the vector ends with it
    if (kind.kind != TokenKind::kWord || name.kind != TokenKind::kWord) {
      return absl::InvalidArgumentError(
          absl::StrCat("policy item at line ", kind.line, " is not KIND NAME { ... }"));
    }
    PolicyItemText item{kind.text, name.text, ""};
    int depth = 0;
    for (; (*tokens)[i].kind != TokenKind::kEnd; ++i) {
      const Token& t = (*tokens)[i];
      if (!item.canonical.empty()) item.canonical += ' ';
      item.canonical += TokenText(t);
      if (t.kind == TokenKind::kLBrace) ++depth;
      if (t.kind == TokenKind::kRBrace && --depth == 0) break;
    }
    if (depth != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("policy item '", name.text, "' is not closed"));
    }
    ++i;
    items.push_back(std::move(item));
  }
  return items;
}

void PrintPolicyItem(const PolicyItemText& item, int indent, std::string* out) {
  auto tokens = policy::Lex(item.canonical, policy::SourceLocation{"<policy>", 1, 1});
  if (!tokens.ok()) return;  // canonical text always lexes
  bool line_start = true;
  int depth = 0;
  auto begin_line = [&] {
    if (line_start) out->append(static_cast<size_t>(indent + 4 * depth), ' ');
  };
  for (const Token& t : *tokens) {
    switch (t.kind) {
      case TokenKind::kEnd:
        break;
      case TokenKind::kLBrace:
        begin_line();
        out->append(line_start ? "{\n" : " {\n");
        ++depth;
        line_start = true;
        break;
      case TokenKind::kRBrace:
        if (!line_start) out->append("\n");
        if (depth > 0) --depth;
        line_start = true;
        begin_line();
        out->append("}\n");
        break;
      case TokenKind::kSemicolon:
        out->append(";\n");
        line_start = true;
        break;
      default:
        begin_line();
        if (!line_start) out->append(" ");
        out->append(TokenText(t));
        line_start = false;
        break;
    }
  }
}

}  // namespace sluice::rtrmgr
