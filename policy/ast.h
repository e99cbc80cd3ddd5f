#pragma once
// The parsed form of a policy block: named sets and policy statements, each piece with the
// location it came from so that the compiler's errors name file, line and column too.
// Values are already checked and converted here (prefixes, communities, regular-expression
// syntax); what the parser cannot know — whether a named set exists and is of the right kind,
// whether a bank may write a variable — the compiler checks.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "net/prefix.h"
#include "policy/community.h"
#include "policy/lexer.h"
#include "policy/prefix_set.h"
#include "policy/var.h"

namespace sluice::policy {

enum class SetKind { kPrefix, kCommunity, kExtCommunity, kLargeCommunity, kAsPath };
std::string_view SetKindName(SetKind kind);  // "prefix-list", "community-list", ...

struct RegexText {
  std::string text;
  SourceLocation loc;  // of the string token
};

// prefix-list / community-list / ext-community-list / large-community-list / as-path-list.
struct NamedSet {
  SetKind kind = SetKind::kPrefix;
  std::string name;
  SourceLocation loc;
  std::vector<PrefixEntry> prefixes;                     // kPrefix
  std::vector<CommunityPattern> communities;             // kCommunity
  std::vector<ExtCommunityPattern> ext_communities;      // kExtCommunity
  std::vector<LargeCommunityPattern> large_communities;  // kLargeCommunity
  std::vector<RegexText> as_paths;                       // kAsPath
};

// A numeric test: "N" (==), "OP N" with OP one of == != < <= > >=, or "LO-HI" (inclusive).
enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe, kRange };
struct Comparison {
  CompareOp op = CompareOp::kEq;
  uint32_t a = 0;
  uint32_t b = 0;  // kRange: the high end
  bool Test(uint32_t v) const {
    switch (op) {
      case CompareOp::kEq:
        return v == a;
      case CompareOp::kNe:
        return v != a;
      case CompareOp::kLt:
        return v < a;
      case CompareOp::kLe:
        return v <= a;
      case CompareOp::kGt:
        return v > a;
      case CompareOp::kGe:
        return v >= a;
      case CompareOp::kRange:
        return v >= a && v <= b;
    }
    return false;
  }
};

// One line of a `from { }` or `to { }` block. All lines of a block must match (AND); a list
// inside one line matches when any member does (OR).
enum class MatchKind {
  kProtocol,        // protocol NAME | [ NAME ... ]
  kNetwork4,        // network4 PREFIX [MODIFIER] | [ PREFIX [MODIFIER] ... ]
  kNetwork6,        // network6 likewise
  kPrefixList,      // prefix-list NAME
  kNexthop,         // nexthop ADDRESS|PREFIX | [ ... ]
  kNeighbor,        // neighbor ADDRESS|PREFIX | [ ... ]   (also spelt neighbour)
  kTag,             // tag COMPARISON
  kAsPath,          // as-path "REGEX" | NAME | [ "REGEX" ... ]
  kAsPathLength,    // as-path-length COMPARISON
  kCommunity,       // community [all] NAME | PATTERN | [ PATTERN ... ]
  kExtCommunity,    // ext-community likewise
  kLargeCommunity,  // large-community likewise
  kOrigin,          // origin igp|egp|incomplete
  kMed,             // med COMPARISON
  kLocalPref,       // local-pref COMPARISON
  kRpki,            // rpki valid|invalid|not-found   (RFC 6811 §2; read-only)
};
inline constexpr int kMatchKindCount = 16;
std::string_view MatchKindName(MatchKind kind);

struct Condition {
  MatchKind kind = MatchKind::kProtocol;
  SourceLocation loc;
  bool in_to_block = false;  // protocol and neighbor read kToProtocol / kToNeighbor there
  std::string set_name;      // a named set, when referenced by name
  SourceLocation set_loc;
  std::vector<std::string> names;     // kProtocol
  std::vector<PrefixEntry> prefixes;  // kNetwork4/6, kNexthop, kNeighbor
  Comparison comparison;              // kTag, kMed, kLocalPref, kAsPathLength, kOrigin, kRpki (==)
  std::vector<CommunityPattern> communities;  // kCommunity (inline)
  std::vector<ExtCommunityPattern> ext_communities;
  std::vector<LargeCommunityPattern> large_communities;
  std::vector<RegexText> regexes;  // kAsPath (inline)
  bool match_all = false;          // community all: every pattern present
};

enum class ActionKind {
  kAccept,           // accept
  kReject,           // reject
  kNextTerm,         // next term
  kNextPolicy,       // next policy
  kCommunitySet,     // community set NAME | [ COMMUNITY ... ]
  kCommunityAdd,     // community add ...
  kCommunityDelete,  // community delete NAME | [ PATTERN ... ]
  kExtCommunitySet,  // ext-community set/add/delete likewise
  kExtCommunityAdd,
  kExtCommunityDelete,
  kLargeCommunitySet,  // large-community set/add/delete likewise
  kLargeCommunityAdd,
  kLargeCommunityDelete,
  kLocalPref,       // local-pref N
  kMedSet,          // med N
  kMedAdd,          // med add N        (saturates at 4294967295)
  kMedSubtract,     // med subtract N   (saturates at 0)
  kOrigin,          // origin igp|egp|incomplete
  kNexthopSelf,     // nexthop self
  kNexthopPeer,     // nexthop peer
  kNexthopAddress,  // nexthop ADDRESS
  kAsPathPrepend,   // as-path prepend ASN|local-as [COUNT]
  kTag,             // tag N
};
inline constexpr int kActionKindCount = 23;
std::string_view ActionKindName(ActionKind kind);
bool IsFlowAction(ActionKind kind);  // accept, reject, next term, next policy

struct Action {
  ActionKind kind = ActionKind::kAccept;
  SourceLocation loc;
  uint32_t number = 0;  // local-pref, med, origin, tag, prepend ASN
  uint32_t count = 1;   // prepend count
  bool prepend_local_as = false;
  net::IPAddress address;  // kNexthopAddress
  std::string set_name;    // community actions by name
  SourceLocation set_loc;
  std::vector<CommunityPattern> communities;  // inline; exact for set/add
  std::vector<ExtCommunityPattern> ext_communities;
  std::vector<LargeCommunityPattern> large_communities;
};

struct Term {
  std::string name;
  SourceLocation loc;
  std::vector<Condition> from;
  std::vector<Condition> to;
  std::vector<Action> then;
};

struct PolicyStatement {
  std::string name;
  SourceLocation loc;
  std::vector<Term> terms;
};

struct PolicyConfig {
  std::vector<NamedSet> sets;
  std::vector<PolicyStatement> statements;

  const NamedSet* FindSet(std::string_view name) const;
  const PolicyStatement* FindStatement(std::string_view name) const;
};

}  // namespace sluice::policy
