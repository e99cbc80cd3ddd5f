// The match and action lines of a term (see policy/ast.h for each form).
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "policy/parser.h"
#include "policy/strings.h"

namespace sluice::policy {
namespace {

bool Exact(const CommunityPattern& p) { return p.IsExact(); }
bool Exact(const ExtCommunityPattern& p) { return p.IsExact(); }
bool Exact(const LargeCommunityPattern& p) { return p.IsExact(); }

}  // namespace

absl::Status Parser::ParseCommunityOperand(MatchKind kind, std::string* set_name,
                                           SourceLocation* set_loc,
                                           std::vector<CommunityPattern>* c,
                                           std::vector<ExtCommunityPattern>* e,
                                           std::vector<LargeCommunityPattern>* l) {
  const char* what = kind == MatchKind::kCommunity      ? "community"
                     : kind == MatchKind::kExtCommunity ? "extended community"
                                                        : "large community";
  // One pattern into its list; false when the word is not a pattern at all.
  auto pattern = [&](const Token& t, absl::Status* error) {
    absl::Status s;
    if (kind == MatchKind::kCommunity) {
      auto p = ParseCommunityPattern(t.text);
      if (p.ok()) c->push_back(*p);
      s = p.status();
    } else if (kind == MatchKind::kExtCommunity) {
      auto p = ParseExtCommunityPattern(t.text);
      if (p.ok()) e->push_back(*p);
      s = p.status();
    } else {
      auto p = ParseLargeCommunityPattern(t.text);
      if (p.ok()) l->push_back(*p);
      s = p.status();
    }
    *error = s.ok() ? s : ErrorAt(t, Sv(s.message()));
    return s.ok();
  };
  if (Peek().kind == TokenKind::kLBracket) {
    return OneOrList([&]() -> absl::Status {
      if (Peek().kind != TokenKind::kWord) return Expected(absl::StrCat("a ", what, " or ']'"));
      absl::Status error;
      pattern(Peek(), &error);
      if (error.ok()) Next();
      return error;
    });
  }
  if (Peek().kind != TokenKind::kWord) {
    return Expected(absl::StrCat("a ", what, ", a list [ ... ] or the name of a set"));
  }
  absl::Status error;
  if (pattern(Peek(), &error)) {
    Next();
    return absl::OkStatus();
  }
  if (Peek().text.find(':') != std::string::npos) return error;
  ASSIGN_OR_RETURN(Token name, ExpectName(absl::StrCat("a ", what, " or the name of a set")));
  *set_name = name.text;
  *set_loc = Loc(name);
  return absl::OkStatus();
}

absl::Status Parser::ParseMatch(bool to_block, Condition* out) {
  ASSIGN_OR_RETURN(Token key,
                   ExpectAnyWord("a match condition (protocol, network4, network6, "
                                 "prefix-list, nexthop, neighbor, tag, as-path, "
                                 "as-path-length, community, ext-community, "
                                 "large-community, origin, med, local-pref, rpki) or '}'"));
  out->loc = Loc(key);
  out->in_to_block = to_block;
  const std::string& k = key.text;
  auto address_or_prefix = [&]() -> absl::Status {
    if (Peek().kind == TokenKind::kWord && Peek().text.find('/') != std::string::npos) {
      // An address matches a bare prefix when the prefix contains it.
      const Token& after = Peek(1);
      const bool modifier =
          after.kind == TokenKind::kWord &&
          (after.text == "exact" || after.text == "longer" || after.text == "orlonger" ||
           after.text == "shorter" || after.text == "orshorter" || after.text == "prefix-length");
      ASSIGN_OR_RETURN(PrefixEntry e, ParsePrefixEntry(nullptr));
      if (!modifier) e.modifier = PrefixModifier::kOrLonger;
      out->prefixes.push_back(e);
      return absl::OkStatus();
    }
    ASSIGN_OR_RETURN(net::IPAddress a, ExpectAddress());
    out->prefixes.push_back(PrefixEntry{net::Prefix(a, a.bits()), PrefixModifier::kExact, 0, 0});
    return absl::OkStatus();
  };
  if (k == "protocol") {
    out->kind = MatchKind::kProtocol;
    RETURN_IF_ERROR(OneOrList([&]() -> absl::Status {
      ASSIGN_OR_RETURN(Token name, ExpectName("a protocol name (bgp, static, connected, ...)"));
      out->names.push_back(name.text);
      return absl::OkStatus();
    }));
  } else if (k == "network4" || k == "network6") {
    out->kind = k == "network4" ? MatchKind::kNetwork4 : MatchKind::kNetwork6;
    const net::Family family = k == "network4" ? net::Family::kIPv4 : net::Family::kIPv6;
    RETURN_IF_ERROR(OneOrList([&]() -> absl::Status {
      ASSIGN_OR_RETURN(PrefixEntry e, ParsePrefixEntry(&family));
      out->prefixes.push_back(e);
      return absl::OkStatus();
    }));
  } else if (k == "prefix-list") {
    out->kind = MatchKind::kPrefixList;
    ASSIGN_OR_RETURN(Token name, ExpectName("a prefix-list name"));
    out->set_name = name.text;
    out->set_loc = Loc(name);
  } else if (k == "nexthop" || k == "neighbor" || k == "neighbour") {
    out->kind = k == "nexthop" ? MatchKind::kNexthop : MatchKind::kNeighbor;
    RETURN_IF_ERROR(OneOrList(address_or_prefix));
  } else if (k == "tag" || k == "med" || k == "local-pref" || k == "as-path-length") {
    out->kind = k == "tag"          ? MatchKind::kTag
                : k == "med"        ? MatchKind::kMed
                : k == "local-pref" ? MatchKind::kLocalPref
                                    : MatchKind::kAsPathLength;
    ASSIGN_OR_RETURN(out->comparison, ParseComparison(absl::StrCat("a ", k, " value")));
  } else if (k == "as-path") {
    out->kind = MatchKind::kAsPath;
    if (Peek().kind == TokenKind::kString || Peek().kind == TokenKind::kLBracket) {
      RETURN_IF_ERROR(OneOrList([&]() -> absl::Status {
        ASSIGN_OR_RETURN(RegexText r, ParseRegex());
        out->regexes.push_back(std::move(r));
        return absl::OkStatus();
      }));
    } else {
      if (Peek().kind != TokenKind::kWord) {
        return Expected("an AS-path regular expression in quotes, a list or an as-path-list name");
      }
      ASSIGN_OR_RETURN(Token name, ExpectName("an as-path-list name"));
      out->set_name = name.text;
      out->set_loc = Loc(name);
    }
  } else if (k == "community" || k == "ext-community" || k == "large-community") {
    out->kind = k == "community"       ? MatchKind::kCommunity
                : k == "ext-community" ? MatchKind::kExtCommunity
                                       : MatchKind::kLargeCommunity;
    if (PeekWord("all") || PeekWord("any")) out->match_all = Next().text == "all";
    RETURN_IF_ERROR(ParseCommunityOperand(out->kind, &out->set_name, &out->set_loc,
                                          &out->communities, &out->ext_communities,
                                          &out->large_communities));
  } else if (k == "origin") {
    out->kind = MatchKind::kOrigin;
    ASSIGN_OR_RETURN(Origin o, ExpectOrigin());
    out->comparison = Comparison{CompareOp::kEq, static_cast<uint32_t>(o), 0};
  } else if (k == "rpki") {
    out->kind = MatchKind::kRpki;
    ASSIGN_OR_RETURN(RpkiValidation s, ExpectRpkiState());
    out->comparison = Comparison{CompareOp::kEq, static_cast<uint32_t>(s), 0};
  } else {
    return ErrorAt(
        key, absl::StrFormat("unknown match condition '%s' (expected protocol, network4, "
                             "network6, prefix-list, nexthop, neighbor, tag, as-path, "
                             "as-path-length, community, ext-community, large-community, origin, "
                             "med, local-pref or rpki)",
                             k));
  }
  return Expect(TokenKind::kSemicolon);
}

absl::Status Parser::ParseAction(Action* out) {
  ASSIGN_OR_RETURN(Token key, ExpectAnyWord("an action (accept, reject, next, community, "
                                            "ext-community, large-community, local-pref, med, "
                                            "origin, nexthop, as-path, tag) or '}'"));
  out->loc = Loc(key);
  const std::string& k = key.text;
  if (k == "accept" || k == "reject") {
    out->kind = k == "accept" ? ActionKind::kAccept : ActionKind::kReject;
  } else if (k == "next") {
    if (PeekWord("term")) {
      out->kind = ActionKind::kNextTerm;
    } else if (PeekWord("policy")) {
      out->kind = ActionKind::kNextPolicy;
    } else {
      return Expected("'term' or 'policy' after 'next'");
    }
    Next();
  } else if (k == "community" || k == "ext-community" || k == "large-community") {
    const MatchKind mk = k == "community"       ? MatchKind::kCommunity
                         : k == "ext-community" ? MatchKind::kExtCommunity
                                                : MatchKind::kLargeCommunity;
    const int base = static_cast<int>(k == "community"       ? ActionKind::kCommunitySet
                                      : k == "ext-community" ? ActionKind::kExtCommunitySet
                                                             : ActionKind::kLargeCommunitySet);
    int op;
    if (PeekWord("set")) {
      op = 0;
    } else if (PeekWord("add")) {
      op = 1;
    } else if (PeekWord("delete")) {
      op = 2;
    } else {
      return Expected(absl::StrCat("'set', 'add' or 'delete' after '", k, "'"));
    }
    Next();
    out->kind = static_cast<ActionKind>(base + op);
    const Token operand = Peek();
    RETURN_IF_ERROR(ParseCommunityOperand(mk, &out->set_name, &out->set_loc, &out->communities,
                                          &out->ext_communities, &out->large_communities));
    if (op != 2) {
      bool exact = true;
      for (const auto& p : out->communities) exact = exact && Exact(p);
      for (const auto& p : out->ext_communities) exact = exact && Exact(p);
      for (const auto& p : out->large_communities) exact = exact && Exact(p);
      if (!exact) {
        return ErrorAt(
            operand, absl::StrCat("wildcards and ranges are allowed only in '", k, " delete'; '", k,
                                  (op == 0 ? " set" : " add"), "' needs exact values"));
      }
    }
  } else if (k == "local-pref" || k == "tag") {
    out->kind = k == "tag" ? ActionKind::kTag : ActionKind::kLocalPref;
    ASSIGN_OR_RETURN(out->number, ExpectNumber(absl::StrCat("a ", k, " value")));
  } else if (k == "med") {
    out->kind = ActionKind::kMedSet;
    if (PeekWord("add") || PeekWord("subtract")) {
      out->kind = Next().text == "add" ? ActionKind::kMedAdd : ActionKind::kMedSubtract;
    }
    ASSIGN_OR_RETURN(out->number, ExpectNumber("a MED value, 'add N' or 'subtract N'"));
  } else if (k == "origin") {
    out->kind = ActionKind::kOrigin;
    ASSIGN_OR_RETURN(Origin o, ExpectOrigin());
    out->number = static_cast<uint32_t>(o);
  } else if (k == "nexthop") {
    if (PeekWord("self") || PeekWord("peer")) {
      out->kind = Next().text == "self" ? ActionKind::kNexthopSelf : ActionKind::kNexthopPeer;
    } else {
      out->kind = ActionKind::kNexthopAddress;
      if (Peek().kind != TokenKind::kWord || !net::IPAddress::Parse(Peek().text).ok()) {
        return Expected("'self', 'peer' or an address after 'nexthop'");
      }
      ASSIGN_OR_RETURN(out->address, ExpectAddress());
    }
  } else if (k == "as-path") {
    RETURN_IF_ERROR(ExpectWord("prepend"));
    out->kind = ActionKind::kAsPathPrepend;
    if (PeekWord("local-as")) {
      Next();
      out->prepend_local_as = true;
    } else {
      ASSIGN_OR_RETURN(out->number, ExpectNumber("an AS number or 'local-as' to prepend"));
    }
    out->count = 1;
    if (Peek().kind == TokenKind::kWord) {
      const Token t = Peek();
      ASSIGN_OR_RETURN(out->count, ExpectNumber("a prepend count 1..64", 64));
      if (out->count == 0) return ErrorAt(t, "a prepend count must be 1..64");
    }
  } else if (k == "rpki") {
    return ErrorAt(key,
                   "'rpki' cannot be set: a route's RPKI state is the result of origin "
                   "validation (RFC 6811); a policy can only match it, in 'from { rpki valid; }' "
                   "(valid, invalid or not-found)");
  } else {
    return ErrorAt(
        key, absl::StrFormat("unknown action '%s' (expected accept, reject, next term, next "
                             "policy, community, ext-community, large-community, local-pref, med, "
                             "origin, nexthop, as-path prepend or tag)",
                             k));
  }
  return Expect(TokenKind::kSemicolon);
}

}  // namespace sluice::policy
