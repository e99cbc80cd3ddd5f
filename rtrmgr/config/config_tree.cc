#include "rtrmgr/config/config_tree.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "policy/lexer.h"
#include "policy/parser.h"

namespace sluice::rtrmgr {

using policy::Token;
using policy::TokenKind;

std::string ConfigValue::Describe() const {
  switch (kind) {
    case Kind::kWord:
      return absl::StrCat("'", text, "'");
    case Kind::kString:
      return absl::StrCat("\"", text, "\"");
    case Kind::kList:
      return "'[ ... ]'";
  }
  return "?";
}

std::string ConfigNode::Summary() const {
  std::string out = keyword;
  for (const ConfigValue& v : args) {
    if (out.size() > 40) {
      out += " ...";
      break;
    }
    out += " ";
    out += v.kind == ConfigValue::Kind::kList     ? "[ ... ]"
           : v.kind == ConfigValue::Kind::kString ? absl::StrCat("\"", v.text, "\"")
                                                  : v.text;
  }
  return out;
}

namespace {

// The language needs five levels; the limit keeps recursion (and the stack) bounded for any
// input.
constexpr int kMaxDepth = 32;

class TreeParser {
 public:
  TreeParser(std::string_view text, std::string_view file, std::vector<Token> tokens,
             Diagnostics* diags)
      : text_(text), file_(file), tokens_(std::move(tokens)), diags_(diags) {}

  // Statements until the '}' closing `owner` (consumed) or, at top level, the end.
  std::vector<ConfigNode> ParseBlock(const ConfigNode* owner) {
    std::vector<ConfigNode> out;
    while (!diags_->full()) {
      const Token& t = Peek();
      if (t.kind == TokenKind::kEnd) {
        if (owner != nullptr) {
          Error(t, absl::StrFormat("expected '}' closing '%s' opened at line %d, found %s",
                                   owner->Summary(), owner->loc.line, t.Describe()));
        }
        return out;
      }
      if (t.kind == TokenKind::kRBrace) {
        Next();
        if (owner != nullptr) return out;
        Error(t, "unmatched '}'");
        continue;
      }
      if (t.kind != TokenKind::kWord) {
        Error(t, absl::StrCat("expected a keyword, found ", t.Describe()));
        SkipStatement();
        continue;
      }
      out.push_back(ParseStatement(owner == nullptr));
    }
    return out;
  }

  bool syntax_ok() const { return syntax_ok_; }

 private:
  const Token& Peek() const { return tokens_[pos_]; }
  const Token& Next() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  Location Loc(const Token& t) const { return Location{std::string(file_), t.line, t.column}; }
  void Error(const Token& t, std::string message) {
    syntax_ok_ = false;
    diags_->Add(Loc(t), std::move(message));
  }

  // Skips to the '}' matching an already consumed '{' (consumed too). False when the input
  // ends first.
  bool SkipBlockBody() {
    int depth = 1;
    while (Peek().kind != TokenKind::kEnd) {
      const TokenKind k = Next().kind;
      if (k == TokenKind::kLBrace) ++depth;
      if (k == TokenKind::kRBrace && --depth == 0) return true;
    }
    return false;
  }

  // Skips what follows a statement that does not start with a keyword: up to and including
  // its ';' or its block, or up to (not including) the '}' that closes the enclosing block.
  void SkipStatement() {
    int depth = 0;
    bool first = true;
    while (Peek().kind != TokenKind::kEnd) {
      const TokenKind k = Peek().kind;
      if (k == TokenKind::kRBrace && depth == 0 && !first) return;
      Next();
      first = false;
      if (k == TokenKind::kLBrace) ++depth;
      if (k == TokenKind::kRBrace && depth > 0 && --depth == 0) return;
      if (k == TokenKind::kSemicolon && depth == 0) return;
    }
  }

  ConfigValue Value(const Token& t) const {
    ConfigValue v;
    v.kind = t.kind == TokenKind::kString ? ConfigValue::Kind::kString : ConfigValue::Kind::kWord;
    v.text = t.text;
    v.loc = Loc(t);
    return v;
  }

  ConfigNode ParseStatement(bool top_level) {
    ConfigNode node;
    const Token& kw = Next();
    node.keyword = kw.text;
    node.loc = Loc(kw);
    while (true) {
      const Token& t = Peek();
      switch (t.kind) {
        case TokenKind::kWord:
        case TokenKind::kString:
          node.args.push_back(Value(Next()));
          continue;
        case TokenKind::kLBracket:
          node.args.push_back(ParseList());
          continue;
        case TokenKind::kSemicolon:
          Next();
          return node;
        case TokenKind::kLBrace: {
          const Token& open = Next();
          node.has_block = true;
          if (top_level && node.keyword == "policy") {
            ParsePolicyBody(open, &node);
          } else if (depth_ >= kMaxDepth) {
            Error(open, absl::StrFormat("blocks nested deeper than %d levels", kMaxDepth));
            SkipBlockBody();
          } else {
            ++depth_;
            node.children = ParseBlock(&node);
            --depth_;
          }
          return node;
        }
        case TokenKind::kRBracket:
          Error(t, "unexpected ']' (no list is open)");
          Next();
          continue;
        case TokenKind::kRBrace:
        case TokenKind::kEnd:
          Error(t, absl::StrFormat("expected ';' or '{' after '%s', found %s", node.Summary(),
                                   t.Describe()));
          return node;
      }
    }
  }

  ConfigValue ParseList() {
    const Token& open = Next();
    ConfigValue list;
    list.kind = ConfigValue::Kind::kList;
    list.loc = Loc(open);
    while (true) {
      const Token& t = Peek();
      if (t.kind == TokenKind::kWord || t.kind == TokenKind::kString) {
        list.items.push_back(Value(Next()));
        continue;
      }
      if (t.kind == TokenKind::kRBracket) {
        Next();
        return list;
      }
      Error(t,
            absl::StrFormat("expected ']' closing the list opened at line %d column %d, found %s",
                            open.line, open.column, t.Describe()));
      return list;
    }
  }

  // The body of `policy {`, read by the policy parser; on return the closing '}' is consumed.
  void ParsePolicyBody(const Token& open, ConfigNode* node) {
    node->is_policy = true;
    const size_t body = open.offset + 1;
    node->policy_text_loc = Location{std::string(file_), open.line, open.column + 1};
    size_t end = 0;
    auto parsed = policy::ParsePolicy(text_.substr(body), node->policy_text_loc, &end);
    if (parsed.ok()) {
      node->policy = std::make_shared<const policy::PolicyConfig>(*std::move(parsed));
      node->policy_text = std::string(text_.substr(body, end));
      while (Peek().kind != TokenKind::kEnd && Peek().offset < body + end) Next();
      if (Peek().kind == TokenKind::kRBrace && Peek().offset == body + end) {
        Next();
        return;
      }
      // Not reached with one lexer for both; resynchronise by braces if it ever is.
      Error(Peek(), "the policy block ends where the configuration parser does not expect it");
      return;
    }
    diags_->AddPolicyError(parsed.status(), file_, node->loc);
    // Skip to the brace closing the block (the policy error already says if there is none; the
    // rest of the file is then inside the block, and later checks would only guess).
    if (!SkipBlockBody()) syntax_ok_ = false;
  }

  std::string_view text_;
  std::string_view file_;
  std::vector<Token> tokens_;
  Diagnostics* diags_;
  size_t pos_ = 0;
  int depth_ = 0;  // of the block being read
  bool syntax_ok_ = true;
};

}  // namespace

ConfigTree ParseConfigTree(std::string_view text, std::string_view file, Diagnostics* diags) {
  ConfigTree tree;
  const Location start{std::string(file), 1, 1};
  auto tokens = policy::Lex(text, start);
  if (!tokens.ok()) {
    diags->AddPolicyError(tokens.status(), file, start);
    tree.syntax_ok = false;
    return tree;
  }
  TreeParser parser(text, file, *std::move(tokens), diags);
  tree.statements = parser.ParseBlock(nullptr);
  tree.syntax_ok = parser.syntax_ok();
  return tree;
}

}  // namespace sluice::rtrmgr
