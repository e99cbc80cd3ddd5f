#include "policy/lexer.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace sluice::policy {

std::string SourceLocation::ToString() const {
  return absl::StrCat(file.empty() ? "<policy>" : file, ":", line, ":", column);
}

std::string_view TokenKindName(TokenKind kind) {
  switch (kind) {
    case TokenKind::kWord:
      return "a word";
    case TokenKind::kString:
      return "a string";
    case TokenKind::kLBrace:
      return "'{'";
    case TokenKind::kRBrace:
      return "'}'";
    case TokenKind::kLBracket:
      return "'['";
    case TokenKind::kRBracket:
      return "']'";
    case TokenKind::kSemicolon:
      return "';'";
    case TokenKind::kEnd:
      return "end of input";
  }
  return "?";
}

std::string Token::Describe() const {
  switch (kind) {
    case TokenKind::kWord:
      return absl::StrCat("'", text, "'");
    case TokenKind::kString:
      return absl::StrCat("\"", text, "\"");
    default:
      return std::string(TokenKindName(kind));
  }
}

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ','; }
bool IsSpecial(char c) {
  return c == '{' || c == '}' || c == '[' || c == ']' || c == ';' || c == '"' || c == '#';
}

}  // namespace

absl::StatusOr<std::vector<Token>> Lex(std::string_view text, const SourceLocation& start,
                                       bool stop_at_unmatched_brace) {
  std::vector<Token> tokens;
  int depth = 0;
  int line = start.line;
  int column = start.column;
  size_t i = 0;
  auto error = [&](int l, int c, std::string_view what) {
    SourceLocation at{start.file, l, c};
    return absl::InvalidArgumentError(absl::StrFormat("%s: %s", at.ToString(), what));
  };
  auto advance = [&](size_t n) {
    for (size_t k = 0; k < n && i < text.size(); ++k, ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
  };
  while (i < text.size()) {
    const char c = text[i];
    if (IsSpace(c)) {
      advance(1);
      continue;
    }
    if (c == '#' || (c == '/' && i + 1 < text.size() && text[i + 1] == '/')) {
      while (i < text.size() && text[i] != '\n') advance(1);
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      const int l = line, col = column;
      advance(2);
      while (i < text.size() && !(text[i] == '*' && i + 1 < text.size() && text[i + 1] == '/')) {
        advance(1);
      }
      if (i >= text.size()) return error(l, col, "unterminated comment (missing '*/')");
      advance(2);
      continue;
    }
    Token t;
    t.line = line;
    t.column = column;
    t.offset = i;
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return error(line, column, absl::StrFormat("unexpected control character 0x%02x", c));
    }
    switch (c) {
      case '{':
        t.kind = TokenKind::kLBrace;
        break;
      case '}':
        t.kind = TokenKind::kRBrace;
        break;
      case '[':
        t.kind = TokenKind::kLBracket;
        break;
      case ']':
        t.kind = TokenKind::kRBracket;
        break;
      case ';':
        t.kind = TokenKind::kSemicolon;
        break;
      default:
        break;
    }
    if (c == '{' || c == '}' || c == '[' || c == ']' || c == ';') {
      advance(1);
      tokens.push_back(std::move(t));
      depth += c == '{' ? 1 : c == '}' ? -1 : 0;
      if (depth < 0 && stop_at_unmatched_brace) break;
      continue;
    }
    if (c == '"') {
      t.kind = TokenKind::kString;
      advance(1);
      while (true) {
        if (i >= text.size() || text[i] == '\n') {
          return error(t.line, t.column, "unterminated string (missing '\"')");
        }
        if (text[i] == '"') {
          advance(1);
          break;
        }
        if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == '"' || text[i + 1] == '\\')) {
          t.text += text[i + 1];
          advance(2);
          continue;
        }
        t.text += text[i];
        advance(1);
      }
      tokens.push_back(std::move(t));
      continue;
    }
    t.kind = TokenKind::kWord;
    while (i < text.size() && !IsSpace(text[i]) && !IsSpecial(text[i]) &&
           static_cast<unsigned char>(text[i]) >= 0x20 && text[i] != 0x7f &&
           !(text[i] == '/' && i + 1 < text.size() && (text[i + 1] == '*' || text[i + 1] == '/'))) {
      t.text += text[i];
      advance(1);
    }
    tokens.push_back(std::move(t));
  }
  Token end;
  end.kind = TokenKind::kEnd;
  end.line = line;
  end.column = column;
  end.offset = text.size();
  tokens.push_back(std::move(end));
  return tokens;
}

}  // namespace sluice::policy
