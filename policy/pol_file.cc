#include "policy/pol_file.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "policy/parser.h"
#include "policy/strings.h"

namespace sluice::policy {
namespace {

// One "NAME VALUE;" line of a route or expect block into *r. In an expect block, VALUE may be
// "none" (absent) and nexthop may be self or peer.
absl::Status ParseAttribute(Parser& p, bool expect, SimpleRoute* r) {
  ASSIGN_OR_RETURN(Token key, p.ExpectAnyWord("a route attribute or '}'"));
  const std::string& k = key.text;
  if (expect && p.PeekWord("none")) {
    p.Next();
    if (k == "nexthop") {
      r->nexthop.reset();
      r->nexthop_keyword.reset();
    } else if (k == "neighbor") {
      r->neighbor.reset();
    } else if (k == "tag") {
      r->tag.reset();
    } else if (k == "origin") {
      r->origin.reset();
    } else if (k == "med") {
      r->med.reset();
    } else if (k == "local-pref") {
      r->local_pref.reset();
    } else if (k == "as-path") {
      r->as_path.reset();
    } else {
      return p.ErrorAt(key, absl::StrCat("'", k, "' cannot be none"));
    }
    return p.Expect(TokenKind::kSemicolon);
  }
  auto community_list = [&](MatchKind kind) -> absl::Status {
    if (kind == MatchKind::kCommunity) r->communities.clear();
    if (kind == MatchKind::kExtCommunity) r->ext_communities.clear();
    if (kind == MatchKind::kLargeCommunity) r->large_communities.clear();
    return p.OneOrList([&]() -> absl::Status {
      ASSIGN_OR_RETURN(Token t, p.ExpectAnyWord("a community"));
      absl::Status s;
      if (kind == MatchKind::kCommunity) {
        auto c = ParseCommunity(t.text);
        if (c.ok()) r->communities.push_back(*c);
        s = c.status();
      } else if (kind == MatchKind::kExtCommunity) {
        auto c = ParseExtCommunity(t.text);
        if (c.ok()) r->ext_communities.push_back(*c);
        s = c.status();
      } else {
        auto c = ParseLargeCommunity(t.text);
        if (c.ok()) r->large_communities.push_back(*c);
        s = c.status();
      }
      return s.ok() ? s : p.ErrorAt(t, Sv(s.message()));
    });
  };
  if (k == "protocol" || k == "to-protocol") {
    ASSIGN_OR_RETURN(Token name, p.ExpectName("a protocol name"));
    (k == "protocol" ? r->protocol : r->to_protocol.emplace()) = name.text;
  } else if (k == "network" || k == "network4" || k == "network6") {
    const Token t = p.Peek();
    auto prefix = net::Prefix::Parse(t.text);
    if (t.kind != TokenKind::kWord || !prefix.ok()) return p.Expected("a prefix");
    if ((k == "network4" && !prefix->is_v4()) || (k == "network6" && !prefix->is_v6())) {
      return p.ErrorAt(t,
                       absl::StrCat("expected an ", k == "network4" ? "IPv4" : "IPv6", " prefix"));
    }
    p.Next();
    r->network = *prefix;
  } else if (k == "nexthop") {
    if (expect && (p.PeekWord("self") || p.PeekWord("peer"))) {
      r->nexthop_keyword = p.Next().text == "self" ? NexthopKeyword::kSelf : NexthopKeyword::kPeer;
      r->nexthop.reset();
    } else {
      ASSIGN_OR_RETURN(r->nexthop, p.ExpectAddress());
      r->nexthop_keyword.reset();
    }
  } else if (k == "neighbor" || k == "neighbour") {
    ASSIGN_OR_RETURN(r->neighbor, p.ExpectAddress());
  } else if (k == "to-neighbor") {
    ASSIGN_OR_RETURN(r->to_neighbor, p.ExpectAddress());
  } else if (k == "tag") {
    ASSIGN_OR_RETURN(r->tag, p.ExpectNumber("a tag"));
  } else if (k == "med") {
    ASSIGN_OR_RETURN(r->med, p.ExpectNumber("a MED"));
  } else if (k == "local-pref") {
    ASSIGN_OR_RETURN(r->local_pref, p.ExpectNumber("a LOCAL_PREF"));
  } else if (k == "local-as") {
    ASSIGN_OR_RETURN(r->local_as, p.ExpectNumber("an AS number"));
  } else if (k == "origin") {
    ASSIGN_OR_RETURN(Origin o, p.ExpectOrigin());
    r->origin = static_cast<uint32_t>(o);
  } else if (k == "rpki") {
    ASSIGN_OR_RETURN(RpkiValidation s, p.ExpectRpkiState());
    r->rpki = static_cast<uint32_t>(s);
  } else if (k == "as-path") {
    const Token t = p.Peek();
    if (t.kind != TokenKind::kString) return p.Expected("an AS path in quotes");
    auto path = AsPath::Parse(t.text);
    if (!path.ok()) return p.ErrorAt(t, Sv(path.status().message()));
    p.Next();
    r->as_path = *path;
  } else if (k == "community") {
    RETURN_IF_ERROR(community_list(MatchKind::kCommunity));
  } else if (k == "ext-community") {
    RETURN_IF_ERROR(community_list(MatchKind::kExtCommunity));
  } else if (k == "large-community") {
    RETURN_IF_ERROR(community_list(MatchKind::kLargeCommunity));
  } else {
    return p.ErrorAt(key, absl::StrCat("unknown route attribute '", k, "'"));
  }
  return p.Expect(TokenKind::kSemicolon);
}

absl::Status ParseTest(Parser& p, PolFile* file) {
  p.Next();  // test
  ASSIGN_OR_RETURN(Token name, p.ExpectName("a test name"));
  for (const PolTest& old : file->tests) {
    if (old.name == name.text) {
      return p.ErrorAt(name, absl::StrFormat("test '%s' is already defined at %s", name.text,
                                             old.loc.ToString()));
    }
  }
  PolTest test;
  test.name = name.text;
  test.loc = p.Loc(name);
  bool have_route = false, have_filter = false, have_expect = false, have_verdict = false;
  RETURN_IF_ERROR(p.Expect(TokenKind::kLBrace));
  while (p.Peek().kind != TokenKind::kRBrace) {
    if (p.PeekWord("route")) {
      p.Next();
      have_route = true;
      RETURN_IF_ERROR(p.Expect(TokenKind::kLBrace));
      while (p.Peek().kind != TokenKind::kRBrace) {
        if (p.AtEnd()) return p.Expected("'}'");
        RETURN_IF_ERROR(ParseAttribute(p, false, &test.route));
      }
      p.Next();
    } else if (p.PeekWord("filter")) {
      p.Next();
      have_filter = true;
      RETURN_IF_ERROR(p.OneOrList([&]() -> absl::Status {
        ASSIGN_OR_RETURN(Token policy, p.ExpectName("a policy-statement name"));
        test.spec.policies.push_back(policy.text);
        return absl::OkStatus();
      }));
      test.spec.where = p.Loc(name);
      RETURN_IF_ERROR(p.Expect(TokenKind::kSemicolon));
    } else if (p.PeekWord("default")) {
      p.Next();
      if (p.PeekWord("accept") || p.PeekWord("reject")) {
        test.spec.default_verdict = p.Next().text == "accept" ? Verdict::kAccept : Verdict::kReject;
      } else {
        return p.Expected("'accept' or 'reject'");
      }
      RETURN_IF_ERROR(p.Expect(TokenKind::kSemicolon));
    } else if (p.PeekWord("expect")) {
      p.Next();
      have_expect = true;
      test.expected_route = test.route;
      RETURN_IF_ERROR(p.Expect(TokenKind::kLBrace));
      while (p.Peek().kind != TokenKind::kRBrace) {
        if (p.PeekWord("accept") || p.PeekWord("reject")) {
          test.expected_verdict = p.Next().text == "accept" ? Verdict::kAccept : Verdict::kReject;
          have_verdict = true;
          RETURN_IF_ERROR(p.Expect(TokenKind::kSemicolon));
          continue;
        }
        if (p.AtEnd()) return p.Expected("'}'");
        RETURN_IF_ERROR(ParseAttribute(p, true, &test.expected_route));
      }
      p.Next();
    } else {
      return p.Expected("'route', 'filter', 'default', 'expect' or '}'");
    }
  }
  if (!have_route || !have_filter || !have_expect || !have_verdict) {
    return p.ErrorAt(p.Peek(), absl::StrFormat("test '%s' needs a route block, a filter line and "
                                               "an expect block with accept or reject",
                                               test.name));
  }
  p.Next();
  file->tests.push_back(std::move(test));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<PolFile> ParsePolFile(std::string_view text, const std::string& file) {
  ASSIGN_OR_RETURN(std::vector<Token> tokens, Lex(text, SourceLocation{file, 1, 1}));
  Parser p(std::move(tokens), file);
  PolFile out;
  while (!p.AtEnd()) {
    if (p.PeekWord("test")) {
      RETURN_IF_ERROR(ParseTest(p, &out));
    } else {
      RETURN_IF_ERROR(p.ParseItem(&out.config));
    }
  }
  return out;
}

PolOutcome RunPolTest(const PolFile& file, const PolTest& test) {
  PolOutcome out;
  const std::string where = absl::StrCat(test.loc.ToString(), ": test ", test.name, ": ");
  auto program = CompileProgram(file.config, test.spec);
  if (!program.ok()) {
    out.failure = absl::StrCat(where, "filter does not compile: ", program.status().message());
    return out;
  }
  SimpleRouteVarRW rw(test.route);
  std::vector<bool> executed;
  out.result = RunProgramTraced(**program, rw, &executed);
  out.route_after = rw.route();
  for (size_t pc = 0; pc < executed.size(); ++pc) {
    if (!executed[pc]) continue;
    const int m = (*program)->match_kinds[pc];
    const int a = (*program)->action_kinds[pc];
    if (m >= 0) out.matches_run[m] = true;
    if (a >= 0) out.actions_run[a] = true;
  }
  std::string problems;
  if (out.result.verdict != test.expected_verdict) {
    absl::StrAppend(&problems, "expected ", Av(VerdictName(test.expected_verdict)), ", got ",
                    Av(VerdictName(out.result.verdict)), "\n");
  }
  for (int i = 0; i < kVarCount; ++i) {
    const VarId id = static_cast<VarId>(i);
    const std::string want = test.expected_route.Get(id).ToString();
    const std::string got = out.route_after.Get(id).ToString();
    if (want != got) {
      absl::StrAppend(&problems, "  ", Av(VarName(id)), ": expected ", want, ", got ", got, "\n");
    }
  }
  if (!problems.empty()) {
    out.failure = absl::StrCat(where, problems, "program:\n", (*program)->Disassemble());
    return out;
  }
  out.passed = true;
  return out;
}

}  // namespace sluice::policy
