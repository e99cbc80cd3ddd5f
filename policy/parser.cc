#include "policy/parser.h"

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "policy/as_path_regex.h"
#include "policy/strings.h"

namespace sluice::policy {

const Token& Parser::Peek(size_t ahead) const {
  const size_t i = std::min(pos_ + ahead, tokens_.size() - 1);
  return tokens_[i];
}

Token Parser::Next() {
  Token t = Peek();
  if (pos_ < tokens_.size() - 1) ++pos_;
  return t;
}

bool Parser::PeekWord(std::string_view word) const {
  return Peek().kind == TokenKind::kWord && Peek().text == word;
}

absl::Status Parser::ErrorAt(const Token& t, std::string_view message) const {
  return absl::InvalidArgumentError(absl::StrFormat("%s: %s", Loc(t).ToString(), message));
}

absl::Status Parser::Expected(std::string_view what) const {
  return ErrorAt(Peek(), absl::StrFormat("expected %s, found %s", what, Peek().Describe()));
}

absl::Status Parser::Expect(TokenKind kind) {
  if (Peek().kind != kind) return Expected(TokenKindName(kind));
  Next();
  return absl::OkStatus();
}

absl::Status Parser::ExpectWord(std::string_view word) {
  if (!PeekWord(word)) return Expected(absl::StrCat("'", std::string(word), "'"));
  Next();
  return absl::OkStatus();
}

absl::StatusOr<Token> Parser::ExpectAnyWord(std::string_view what) {
  if (Peek().kind != TokenKind::kWord) return Expected(what);
  return Next();
}

absl::StatusOr<Token> Parser::ExpectName(std::string_view what) {
  const Token& t = Peek();
  bool ok = t.kind == TokenKind::kWord && !t.text.empty() &&
            (std::isalpha(static_cast<unsigned char>(t.text[0])) || t.text[0] == '_');
  for (char c : t.text) {
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.');
  }
  if (!ok) {
    return Expected(
        absl::StrCat(Av(what), " (letters, digits, '-', '_', '.', starting with a letter)"));
  }
  return Next();
}

absl::StatusOr<uint32_t> Parser::ExpectNumber(std::string_view what, uint64_t max) {
  const Token& t = Peek();
  uint64_t v = 0;
  bool digits = t.kind == TokenKind::kWord && !t.text.empty() && t.text.size() <= 10;
  for (char c : t.text) digits = digits && c >= '0' && c <= '9';
  if (!digits || !absl::SimpleAtoi(t.text, &v) || v > max) {
    return Expected(absl::StrCat(Av(what), " (a number 0..", max, ")"));
  }
  Next();
  return static_cast<uint32_t>(v);
}

absl::StatusOr<Comparison> Parser::ParseComparison(std::string_view what) {
  Comparison c;
  const Token& t = Peek();
  if (t.kind == TokenKind::kWord) {
    static constexpr std::pair<std::string_view, CompareOp> kOps[] = {
        {"==", CompareOp::kEq}, {"!=", CompareOp::kNe}, {"<", CompareOp::kLt},
        {"<=", CompareOp::kLe}, {">", CompareOp::kGt},  {">=", CompareOp::kGe}};
    for (const auto& [text, op] : kOps) {
      if (t.text == text) {
        Next();
        c.op = op;
        ASSIGN_OR_RETURN(c.a, ExpectNumber(what));
        return c;
      }
    }
    const size_t dash = t.text.find('-');
    if (dash != std::string::npos) {
      uint64_t lo = 0, hi = 0;
      const std::string a = t.text.substr(0, dash), b = t.text.substr(dash + 1);
      if (a.empty() || b.empty() || !absl::SimpleAtoi(a, &lo) || !absl::SimpleAtoi(b, &hi) ||
          lo > 0xffffffff || hi > 0xffffffff || a[0] == '-' || a[0] == '+' || b[0] == '-' ||
          b[0] == '+') {
        return Expected(absl::StrCat(Av(what), " range LO-HI"));
      }
      if (lo > hi) return ErrorAt(t, absl::StrCat("empty range ", t.text, " (low above high)"));
      Next();
      c.op = CompareOp::kRange;
      c.a = static_cast<uint32_t>(lo);
      c.b = static_cast<uint32_t>(hi);
      return c;
    }
  }
  c.op = CompareOp::kEq;
  ASSIGN_OR_RETURN(
      c.a, ExpectNumber(absl::StrCat(Av(what), " or a comparison (== != < <= > >= LO-HI)")));
  return c;
}

absl::StatusOr<net::IPAddress> Parser::ExpectAddress() {
  const Token& t = Peek();
  if (t.kind != TokenKind::kWord) return Expected("an IPv4 or IPv6 address");
  auto a = net::IPAddress::Parse(t.text);
  if (!a.ok()) return Expected("an IPv4 or IPv6 address");
  Next();
  return *a;
}

absl::StatusOr<PrefixEntry> Parser::ParsePrefixEntry(const net::Family* family) {
  const Token t = Peek();
  const char* want = family == nullptr               ? "a prefix"
                     : *family == net::Family::kIPv4 ? "an IPv4 prefix"
                                                     : "an IPv6 prefix";
  if (t.kind != TokenKind::kWord) return Expected(want);
  auto p = net::Prefix::Parse(t.text);
  if (!p.ok()) {
    if (t.text.find('/') == std::string::npos) return Expected(want);
    return ErrorAt(t, Sv(p.status().message()));
  }
  if (family != nullptr && p->family() != *family) {
    return ErrorAt(t, absl::StrFormat("expected %s, found %s", want, t.Describe()));
  }
  Next();
  PrefixEntry e;
  e.prefix = *p;
  e.modifier = PrefixModifier::kExact;
  if (Peek().kind != TokenKind::kWord) return e;
  const std::string& m = Peek().text;
  if (m == "exact") {
    e.modifier = PrefixModifier::kExact;
  } else if (m == "longer") {
    e.modifier = PrefixModifier::kLonger;
  } else if (m == "orlonger") {
    e.modifier = PrefixModifier::kOrLonger;
  } else if (m == "shorter") {
    e.modifier = PrefixModifier::kShorter;
  } else if (m == "orshorter") {
    e.modifier = PrefixModifier::kOrShorter;
  } else if (m == "prefix-length") {
    Next();
    const Token r = Peek();
    ASSIGN_OR_RETURN(Comparison c, ParseComparison("a prefix length"));
    if (c.op != CompareOp::kEq && c.op != CompareOp::kRange) {
      return ErrorAt(r, "expected a prefix length A or range A-B");
    }
    if (c.op == CompareOp::kEq) c.b = c.a;
    if (static_cast<int>(c.a) < p->length() || static_cast<int>(c.b) > p->max_length()) {
      return ErrorAt(
          r, absl::StrFormat("prefix-length %s outside %d-%d (the prefix's length to %d)", r.text,
                             p->length(), p->max_length(), p->max_length()));
    }
    e.modifier = PrefixModifier::kRange;
    e.min_length = static_cast<int>(c.a);
    e.max_length = static_cast<int>(c.b);
    return e;
  } else {
    return e;
  }
  if (e.modifier == PrefixModifier::kLonger && p->length() == p->max_length()) {
    return ErrorAt(Peek(),
                   absl::StrCat("'longer' can match nothing: ", t.text, " is a host route"));
  }
  if (e.modifier == PrefixModifier::kShorter && p->length() == 0) {
    return ErrorAt(Peek(), absl::StrCat("'shorter' can match nothing: ", t.text, " has length 0"));
  }
  Next();
  return e;
}

absl::StatusOr<Origin> Parser::ExpectOrigin() {
  if (Peek().kind == TokenKind::kWord) {
    if (auto o = OriginFromName(Peek().text)) {
      Next();
      return *o;
    }
  }
  return Expected("an origin (igp, egp or incomplete)");
}

absl::StatusOr<RpkiValidation> Parser::ExpectRpkiState() {
  if (Peek().kind == TokenKind::kWord) {
    if (auto s = RpkiValidationFromName(Peek().text)) {
      Next();
      return *s;
    }
  }
  return Expected("an RPKI state (valid, invalid or not-found)");
}

absl::StatusOr<RegexText> Parser::ParseRegex() {
  const Token t = Peek();
  if (t.kind != TokenKind::kString) return Expected("an AS-path regular expression in quotes");
  size_t offset = 0;
  auto re = AsPathRegex::Compile(t.text, &offset);
  if (!re.ok()) {
    // The string's text starts one column after its quote (escapes aside).
    Token at = t;
    at.column += 1 + static_cast<int>(offset);
    return ErrorAt(at, Sv(re.status().message()));
  }
  Next();
  return RegexText{t.text, Loc(t)};
}

absl::Status Parser::ParseItem(PolicyConfig* config) {
  const Token& t = Peek();
  if (t.kind == TokenKind::kWord) {
    if (t.text == "prefix-list") return ParseSet(SetKind::kPrefix, config);
    if (t.text == "community-list") return ParseSet(SetKind::kCommunity, config);
    if (t.text == "ext-community-list") return ParseSet(SetKind::kExtCommunity, config);
    if (t.text == "large-community-list") return ParseSet(SetKind::kLargeCommunity, config);
    if (t.text == "as-path-list") return ParseSet(SetKind::kAsPath, config);
    if (t.text == "policy-statement") return ParseStatement(config);
  }
  return Expected(
      "prefix-list, community-list, ext-community-list, large-community-list, as-path-list or "
      "policy-statement");
}

absl::Status Parser::ParseSet(SetKind kind, PolicyConfig* config) {
  Next();
  ASSIGN_OR_RETURN(Token name, ExpectName(absl::StrCat(Av(SetKindName(kind)), " name")));
  if (const NamedSet* old = config->FindSet(name.text)) {
    return ErrorAt(
        name, absl::StrFormat("set '%s' is already defined at %s", name.text, old->loc.ToString()));
  }
  if (ParseCommunityPattern(name.text).ok()) {
    return ErrorAt(name, absl::StrCat("'", name.text, "' is a community, not a set name"));
  }
  NamedSet set;
  set.kind = kind;
  set.name = name.text;
  set.loc = Loc(name);
  RETURN_IF_ERROR(Expect(TokenKind::kLBrace));
  while (Peek().kind != TokenKind::kRBrace) {
    if (AtEnd()) return Expected("'}'");
    const Token item = Peek();
    switch (kind) {
      case SetKind::kPrefix: {
        ASSIGN_OR_RETURN(PrefixEntry e, ParsePrefixEntry(nullptr));
        set.prefixes.push_back(e);
        break;
      }
      case SetKind::kAsPath: {
        ASSIGN_OR_RETURN(RegexText r, ParseRegex());
        set.as_paths.push_back(std::move(r));
        break;
      }
      default: {
        if (item.kind != TokenKind::kWord) return Expected("a community");
        if (kind == SetKind::kCommunity) {
          auto p = ParseCommunityPattern(item.text);
          if (!p.ok()) return ErrorAt(item, Sv(p.status().message()));
          set.communities.push_back(*p);
        } else if (kind == SetKind::kExtCommunity) {
          auto p = ParseExtCommunityPattern(item.text);
          if (!p.ok()) return ErrorAt(item, Sv(p.status().message()));
          set.ext_communities.push_back(*p);
        } else {
          auto p = ParseLargeCommunityPattern(item.text);
          if (!p.ok()) return ErrorAt(item, Sv(p.status().message()));
          set.large_communities.push_back(*p);
        }
        Next();
        break;
      }
    }
    RETURN_IF_ERROR(Expect(TokenKind::kSemicolon));
  }
  Next();
  config->sets.push_back(std::move(set));
  return absl::OkStatus();
}

absl::Status Parser::ParseStatement(PolicyConfig* config) {
  Next();
  ASSIGN_OR_RETURN(Token name, ExpectName("policy-statement name"));
  if (const PolicyStatement* old = config->FindStatement(name.text)) {
    return ErrorAt(name, absl::StrFormat("policy-statement '%s' is already defined at %s",
                                         name.text, old->loc.ToString()));
  }
  PolicyStatement st;
  st.name = name.text;
  st.loc = Loc(name);
  RETURN_IF_ERROR(Expect(TokenKind::kLBrace));
  while (Peek().kind != TokenKind::kRBrace) {
    if (!PeekWord("term")) return Expected("'term' or '}'");
    Next();
    ASSIGN_OR_RETURN(Token term_name, ExpectName("term name"));
    for (const Term& old : st.terms) {
      if (old.name == term_name.text) {
        return ErrorAt(term_name, absl::StrFormat("term '%s' is already defined at %s",
                                                  term_name.text, old.loc.ToString()));
      }
    }
    Term term;
    term.name = term_name.text;
    term.loc = Loc(term_name);
    RETURN_IF_ERROR(ParseTerm(&term));
    st.terms.push_back(std::move(term));
  }
  Next();
  config->statements.push_back(std::move(st));
  return absl::OkStatus();
}

absl::Status Parser::ParseTerm(Term* term) {
  RETURN_IF_ERROR(Expect(TokenKind::kLBrace));
  bool seen_from = false, seen_to = false, seen_then = false;
  while (Peek().kind != TokenKind::kRBrace) {
    const Token block = Peek();
    const bool is_from = PeekWord("from"), is_to = PeekWord("to"), is_then = PeekWord("then");
    if (!is_from && !is_to && !is_then) return Expected("'from', 'to', 'then' or '}'");
    bool& seen = is_from ? seen_from : is_to ? seen_to : seen_then;
    if (seen) return ErrorAt(block, absl::StrCat("a second '", block.text, "' block in one term"));
    seen = true;
    Next();
    RETURN_IF_ERROR(Expect(TokenKind::kLBrace));
    while (Peek().kind != TokenKind::kRBrace) {
      if (AtEnd()) return Expected("'}'");
      if (is_then) {
        if (!term->then.empty() && IsFlowAction(term->then.back().kind)) {
          return ErrorAt(Peek(), absl::StrCat("nothing may follow '",
                                              Av(ActionKindName(term->then.back().kind)),
                                              "' in a then block"));
        }
        Action a;
        RETURN_IF_ERROR(ParseAction(&a));
        term->then.push_back(std::move(a));
      } else {
        Condition c;
        RETURN_IF_ERROR(ParseMatch(is_to, &c));
        (is_to ? term->to : term->from).push_back(std::move(c));
      }
    }
    Next();
  }
  Next();
  return absl::OkStatus();
}

absl::StatusOr<PolicyConfig> ParsePolicy(std::string_view text, const SourceLocation& start,
                                         size_t* end_offset) {
  ASSIGN_OR_RETURN(std::vector<Token> tokens, Lex(text, start, end_offset != nullptr));
  Parser parser(std::move(tokens), start.file);
  PolicyConfig config;
  while (!parser.AtEnd()) {
    if (parser.Peek().kind == TokenKind::kRBrace && end_offset != nullptr) {
      *end_offset = parser.Peek().offset;
      return config;
    }
    RETURN_IF_ERROR(parser.ParseItem(&config));
  }
  if (end_offset != nullptr) return parser.Expected("'}' closing the policy block");
  return config;
}

}  // namespace sluice::policy
