#include "policy/compiler.h"

#include <map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "policy/strings.h"

namespace sluice::policy {
namespace {

absl::Status ErrorAt(const SourceLocation& loc, std::string_view message) {
  return absl::InvalidArgumentError(absl::StrFormat("%s: %s", loc.ToString(), message));
}

std::string ModifierText(const PrefixEntry& e) {
  switch (e.modifier) {
    case PrefixModifier::kExact:
      return "exact";
    case PrefixModifier::kLonger:
      return "longer";
    case PrefixModifier::kOrLonger:
      return "orlonger";
    case PrefixModifier::kShorter:
      return "shorter";
    case PrefixModifier::kOrShorter:
      return "orshorter";
    case PrefixModifier::kRange:
      return absl::StrCat("prefix-length ", e.min_length, "-", e.max_length);
  }
  return "?";
}

std::string DescribePrefixes(std::string_view keyword, const std::vector<PrefixEntry>& entries) {
  std::string s(keyword);
  for (size_t i = 0; i < entries.size() && i < 3; ++i) {
    absl::StrAppend(&s, " ", entries[i].prefix.ToString(), " ", ModifierText(entries[i]));
  }
  if (entries.size() > 3) absl::StrAppend(&s, " ... (", entries.size(), " entries)");
  return s;
}

std::string DescribeComparison(std::string_view keyword, const Comparison& c) {
  static constexpr std::string_view kOps[] = {"==", "!=", "<", "<=", ">", ">="};
  if (c.op == CompareOp::kRange) return absl::StrCat(Av(keyword), " ", c.a, "-", c.b);
  return absl::StrCat(Av(keyword), " ", Av(kOps[static_cast<int>(c.op)]), " ", c.a);
}

class Compiler {
 public:
  Compiler(const PolicyConfig& config, const CompileOptions& options, Program* program)
      : config_(config), options_(options), p_(program) {}

  absl::Status Chain(const FilterSpec& spec) {
    for (const std::string& name : spec.policies) {
      const PolicyStatement* st = config_.FindStatement(name);
      if (st == nullptr) {
        const std::string message = absl::StrFormat("unknown policy-statement '%s'", name);
        if (spec.where.file.empty()) return absl::InvalidArgumentError(message);
        return ErrorAt(spec.where, message);
      }
      RETURN_IF_ERROR(Statement(*st));
    }
    origin_ = "default";
    Emit(spec.default_verdict == Verdict::kAccept ? Op::kAccept : Op::kReject);
    p_->max_stack = 3;
    return absl::OkStatus();
  }

  absl::Status Statement(const PolicyStatement& st) {
    std::vector<size_t> to_policy_end;
    for (const Term& term : st.terms) {
      std::vector<size_t> to_term_end;
      for (const Condition& c : term.from) {
        origin_ = absl::StrCat(st.name, "/", term.name, ": from ", Av(MatchKindName(c.kind)));
        RETURN_IF_ERROR(Match(c, &to_term_end));
      }
      for (const Condition& c : term.to) {
        origin_ = absl::StrCat(st.name, "/", term.name, ": to ", Av(MatchKindName(c.kind)));
        RETURN_IF_ERROR(Match(c, &to_term_end));
      }
      for (const Action& a : term.then) {
        origin_ = absl::StrCat(st.name, "/", term.name, ": ", Av(ActionKindName(a.kind)));
        action_kind_ = static_cast<int8_t>(a.kind);
        RETURN_IF_ERROR(DoAction(a, &to_term_end, &to_policy_end));
        action_kind_ = -1;
      }
      Patch(to_term_end);
    }
    Patch(to_policy_end);
    return absl::OkStatus();
  }

 private:
  size_t Emit(Op op, uint32_t a = 0, uint32_t b = 0, uint32_t c = 0) {
    p_->code.push_back(Instruction{op, a, b, c});
    p_->origins.push_back(origin_);
    p_->match_kinds.push_back(match_kind_);
    p_->action_kinds.push_back(action_kind_);
    return p_->code.size() - 1;
  }
  // Points the jumps at the next instruction to be emitted.
  void Patch(const std::vector<size_t>& jumps) {
    const uint32_t target = static_cast<uint32_t>(p_->code.size());
    for (size_t j : jumps) {
      Instruction& in = p_->code[j];
      (in.op == Op::kTest ? in.c : in.a) = target;
    }
  }
  uint32_t Constant(Value v) {
    p_->constants.push_back(v);
    return static_cast<uint32_t>(p_->constants.size() - 1);
  }
  uint32_t AddMatcher(std::unique_ptr<Matcher> m) {
    p_->matchers.push_back(std::move(m));
    return static_cast<uint32_t>(p_->matchers.size() - 1);
  }

  absl::Status Readable(VarId var, const SourceLocation& loc, std::string_view what) {
    if (!options_.readable.Contains(var)) {
      return ErrorAt(loc, absl::StrFormat("'%s' is not available in this filter: its routes "
                                          "have no %s",
                                          what, VarName(var)));
    }
    return absl::OkStatus();
  }
  absl::Status Writable(VarId var, const SourceLocation& loc, std::string_view what) {
    if (VarReadOnly(var) || !options_.writable.Contains(var)) {
      return ErrorAt(loc, absl::StrFormat("'%s' is not available in this filter: it cannot "
                                          "change %s",
                                          what, VarName(var)));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<const NamedSet*> Set(const std::string& name, const SourceLocation& loc,
                                      SetKind kind) {
    const NamedSet* set = config_.FindSet(name);
    if (set == nullptr) {
      return ErrorAt(loc, absl::StrFormat("unknown %s '%s'", SetKindName(kind), name));
    }
    if (set->kind != kind) {
      return ErrorAt(
          loc, absl::StrFormat("'%s' is a %s (defined at %s), not a %s", name,
                               SetKindName(set->kind), set->loc.ToString(), SetKindName(kind)));
    }
    return set;
  }

  // The parser has checked the text; an AST built by other means may still hold a bad one.
  absl::StatusOr<std::shared_ptr<const AsPathRegex>> Regex(const RegexText& r) {
    auto& slot = regexes_[r.text];
    if (!slot) {
      auto re = AsPathRegex::Compile(r.text);
      if (!re.ok()) return ErrorAt(r.loc, Sv(re.status().message()));
      slot = std::make_shared<const AsPathRegex>(std::move(*re));
    }
    return slot;
  }

  struct Built {
    VarId var;
    std::unique_ptr<Matcher> matcher;
  };

  absl::Status Match(const Condition& c, std::vector<size_t>* fail) {
    match_kind_ = static_cast<int8_t>(c.kind);
    ASSIGN_OR_RETURN(Built built, BuildMatcher(c));
    const uint32_t mi = AddMatcher(std::move(built.matcher));
    const uint32_t v = static_cast<uint32_t>(built.var);
    if (options_.fuse_tests) {
      fail->push_back(Emit(Op::kTest, v, mi, 0));
    } else {
      Emit(Op::kLoad, v);
      Emit(Op::kMatch, mi);
      fail->push_back(Emit(Op::kJumpIfFalse, 0));
    }
    match_kind_ = -1;
    return absl::OkStatus();
  }

  absl::StatusOr<Built> BuildMatcher(const Condition& c) {
    VarId var;
    std::unique_ptr<Matcher> m;
    switch (c.kind) {
      case MatchKind::kProtocol:
        var = c.in_to_block ? VarId::kToProtocol : VarId::kProtocol;
        m = std::make_unique<TextMatcher>(c.names,
                                          absl::StrCat("protocol ", absl::StrJoin(c.names, " ")));
        break;
      case MatchKind::kNetwork4:
      case MatchKind::kNetwork6:
      case MatchKind::kNexthop:
      case MatchKind::kNeighbor:
        var = c.kind == MatchKind::kNexthop ? VarId::kNexthop
              : c.kind == MatchKind::kNeighbor
                  ? (c.in_to_block ? VarId::kToNeighbor : VarId::kNeighbor)
                  : VarId::kNetwork;
        m = std::make_unique<PrefixMatcher>(std::make_shared<const PrefixSet>(c.prefixes),
                                            DescribePrefixes(MatchKindName(c.kind), c.prefixes));
        break;
      case MatchKind::kPrefixList: {
        var = VarId::kNetwork;
        ASSIGN_OR_RETURN(const NamedSet* set, Set(c.set_name, c.set_loc, SetKind::kPrefix));
        auto& slot = prefix_sets_[set->name];
        if (!slot) slot = std::make_shared<const PrefixSet>(set->prefixes);
        m = std::make_unique<PrefixMatcher>(slot, absl::StrCat("prefix-list ", set->name));
        break;
      }
      case MatchKind::kTag:
      case MatchKind::kMed:
      case MatchKind::kLocalPref:
      case MatchKind::kOrigin:
      case MatchKind::kRpki:
        var = c.kind == MatchKind::kTag      ? VarId::kTag
              : c.kind == MatchKind::kMed    ? VarId::kMed
              : c.kind == MatchKind::kOrigin ? VarId::kOrigin
              : c.kind == MatchKind::kRpki   ? VarId::kRpki
                                             : VarId::kLocalPref;
        m = std::make_unique<CompareMatcher>(
            c.comparison, c.kind == MatchKind::kOrigin
                              ? absl::StrCat("origin ", Av(OriginName(c.comparison.a)))
                          : c.kind == MatchKind::kRpki
                              ? absl::StrCat("rpki ", Av(RpkiValidationName(c.comparison.a)))
                              : DescribeComparison(MatchKindName(c.kind), c.comparison));
        break;
      case MatchKind::kAsPathLength:
        var = VarId::kAsPath;
        m = std::make_unique<AsPathLengthMatcher>(
            c.comparison, DescribeComparison("as-path-length", c.comparison));
        break;
      case MatchKind::kAsPath: {
        var = VarId::kAsPath;
        std::vector<std::shared_ptr<const AsPathRegex>> res;
        std::string description;
        const std::vector<RegexText>* list = &c.regexes;
        if (!c.set_name.empty()) {
          ASSIGN_OR_RETURN(const NamedSet* set, Set(c.set_name, c.set_loc, SetKind::kAsPath));
          list = &set->as_paths;
          description = absl::StrCat("as-path-list ", set->name);
        } else {
          description = "as-path";
          for (const auto& r : c.regexes) absl::StrAppend(&description, " \"", r.text, "\"");
        }
        for (const auto& r : *list) {
          ASSIGN_OR_RETURN(auto re, Regex(r));
          res.push_back(std::move(re));
        }
        m = std::make_unique<AsPathRegexMatcher>(std::move(res), description);
        break;
      }
      case MatchKind::kCommunity:
      case MatchKind::kExtCommunity:
      case MatchKind::kLargeCommunity: {
        var = c.kind == MatchKind::kCommunity      ? VarId::kCommunity
              : c.kind == MatchKind::kExtCommunity ? VarId::kExtCommunity
                                                   : VarId::kLargeCommunity;
        auto cs = c.communities;
        auto es = c.ext_communities;
        auto ls = c.large_communities;
        std::string description =
            absl::StrCat(Av(MatchKindName(c.kind)), c.match_all ? " all" : "");
        if (!c.set_name.empty()) {
          const SetKind kind = c.kind == MatchKind::kCommunity      ? SetKind::kCommunity
                               : c.kind == MatchKind::kExtCommunity ? SetKind::kExtCommunity
                                                                    : SetKind::kLargeCommunity;
          ASSIGN_OR_RETURN(const NamedSet* set, Set(c.set_name, c.set_loc, kind));
          cs = set->communities;
          es = set->ext_communities;
          ls = set->large_communities;
          absl::StrAppend(&description, " ", set->name);
        } else {
          absl::StrAppend(&description, " [", cs.size() + es.size() + ls.size(), " patterns]");
        }
        m = std::make_unique<CommunityMatcher>(std::move(cs), std::move(es), std::move(ls),
                                               c.match_all, description);
        break;
      }
      default:
        return ErrorAt(c.loc, "internal error: unknown match");
    }
    RETURN_IF_ERROR(Readable(var, c.loc, MatchKindName(c.kind)));
    return Built{var, std::move(m)};
  }

  // The members of a community set/add list, as a constant.
  absl::StatusOr<Value> ExactList(const Action& a, VarId var) {
    std::vector<CommunityPattern> cs = a.communities;
    std::vector<ExtCommunityPattern> es = a.ext_communities;
    std::vector<LargeCommunityPattern> ls = a.large_communities;
    if (!a.set_name.empty()) {
      const SetKind kind = var == VarId::kCommunity      ? SetKind::kCommunity
                           : var == VarId::kExtCommunity ? SetKind::kExtCommunity
                                                         : SetKind::kLargeCommunity;
      ASSIGN_OR_RETURN(const NamedSet* set, Set(a.set_name, a.set_loc, kind));
      cs = set->communities;
      es = set->ext_communities;
      ls = set->large_communities;
      bool exact = true;
      for (const auto& p : cs) exact = exact && p.IsExact();
      for (const auto& p : es) exact = exact && p.IsExact();
      for (const auto& p : ls) exact = exact && p.IsExact();
      if (!exact) {
        return ErrorAt(a.set_loc, absl::StrFormat("%s '%s' has wildcards or ranges; only delete "
                                                  "takes patterns",
                                                  SetKindName(kind), set->name));
      }
    }
    if (var == VarId::kCommunity) {
      auto& list = p_->u32_lists.emplace_back();
      for (const auto& p : cs) list.push_back((p.as.lo << 16) | p.value.lo);
      return Value::Communities(list);
    }
    if (var == VarId::kExtCommunity) {
      auto& list = p_->u64_lists.emplace_back();
      for (const auto& p : es) list.push_back(p.value);
      return Value::ExtCommunities(list);
    }
    auto& list = p_->large_lists.emplace_back();
    for (const auto& p : ls) {
      list.push_back(LargeCommunity{p.global_admin.lo, p.local1.lo, p.local2.lo});
    }
    return Value::LargeCommunities(list);
  }

  absl::Status DoAction(const Action& a, std::vector<size_t>* to_term_end,
                        std::vector<size_t>* to_policy_end) {
    const std::string_view what = ActionKindName(a.kind);
    auto store_constant = [&](VarId var, Value v) -> absl::Status {
      RETURN_IF_ERROR(Writable(var, a.loc, what));
      Emit(Op::kPush, Constant(v));
      Emit(Op::kStore, static_cast<uint32_t>(var));
      return absl::OkStatus();
    };
    switch (a.kind) {
      case ActionKind::kAccept:
        Emit(Op::kAccept);
        return absl::OkStatus();
      case ActionKind::kReject:
        Emit(Op::kReject);
        return absl::OkStatus();
      case ActionKind::kNextTerm:
        to_term_end->push_back(Emit(Op::kJump, 0));
        return absl::OkStatus();
      case ActionKind::kNextPolicy:
        to_policy_end->push_back(Emit(Op::kJump, 0));
        return absl::OkStatus();
      case ActionKind::kCommunitySet:
      case ActionKind::kCommunityAdd:
      case ActionKind::kCommunityDelete:
      case ActionKind::kExtCommunitySet:
      case ActionKind::kExtCommunityAdd:
      case ActionKind::kExtCommunityDelete:
      case ActionKind::kLargeCommunitySet:
      case ActionKind::kLargeCommunityAdd:
      case ActionKind::kLargeCommunityDelete: {
        const int k = static_cast<int>(a.kind);
        const int family = (k - static_cast<int>(ActionKind::kCommunitySet)) / 3;
        const int op = (k - static_cast<int>(ActionKind::kCommunitySet)) % 3;
        const VarId var = family == 0   ? VarId::kCommunity
                          : family == 1 ? VarId::kExtCommunity
                                        : VarId::kLargeCommunity;
        RETURN_IF_ERROR(Writable(var, a.loc, what));
        if (op == 2) {
          RETURN_IF_ERROR(Readable(var, a.loc, what));
          Condition c;
          c.kind = family == 0   ? MatchKind::kCommunity
                   : family == 1 ? MatchKind::kExtCommunity
                                 : MatchKind::kLargeCommunity;
          c.loc = a.loc;
          c.set_name = a.set_name;
          c.set_loc = a.set_loc;
          c.communities = a.communities;
          c.ext_communities = a.ext_communities;
          c.large_communities = a.large_communities;
          ASSIGN_OR_RETURN(Built built, BuildMatcher(c));
          const uint32_t mi = AddMatcher(std::move(built.matcher));
          Emit(Op::kLoad, static_cast<uint32_t>(var));
          Emit(Op::kListDelete, mi);
          Emit(Op::kStore, static_cast<uint32_t>(var));
          return absl::OkStatus();
        }
        ASSIGN_OR_RETURN(Value list, ExactList(a, var));
        if (op == 0) return store_constant(var, list);
        RETURN_IF_ERROR(Readable(var, a.loc, what));
        Emit(Op::kLoad, static_cast<uint32_t>(var));
        Emit(Op::kPush, Constant(list));
        Emit(Op::kListAdd);
        Emit(Op::kStore, static_cast<uint32_t>(var));
        return absl::OkStatus();
      }
      case ActionKind::kLocalPref:
        return store_constant(VarId::kLocalPref, Value::U32(a.number));
      case ActionKind::kMedSet:
        return store_constant(VarId::kMed, Value::U32(a.number));
      case ActionKind::kMedAdd:
      case ActionKind::kMedSubtract:
        RETURN_IF_ERROR(Writable(VarId::kMed, a.loc, what));
        RETURN_IF_ERROR(Readable(VarId::kMed, a.loc, what));
        Emit(Op::kLoad, static_cast<uint32_t>(VarId::kMed));
        Emit(Op::kPush, Constant(Value::U32(a.number)));
        Emit(a.kind == ActionKind::kMedAdd ? Op::kAdd : Op::kSubtract);
        Emit(Op::kStore, static_cast<uint32_t>(VarId::kMed));
        return absl::OkStatus();
      case ActionKind::kOrigin:
        return store_constant(VarId::kOrigin, Value::U32(a.number));
      case ActionKind::kTag:
        return store_constant(VarId::kTag, Value::U32(a.number));
      case ActionKind::kNexthopSelf:
        return store_constant(VarId::kNexthop, Value::Of(NexthopKeyword::kSelf));
      case ActionKind::kNexthopPeer:
        return store_constant(VarId::kNexthop, Value::Of(NexthopKeyword::kPeer));
      case ActionKind::kNexthopAddress:
        return store_constant(VarId::kNexthop, Value::Of(a.address));
      case ActionKind::kAsPathPrepend:
        RETURN_IF_ERROR(Writable(VarId::kAsPath, a.loc, what));
        RETURN_IF_ERROR(Readable(VarId::kAsPath, a.loc, what));
        Emit(Op::kLoad, static_cast<uint32_t>(VarId::kAsPath));
        if (a.prepend_local_as) {
          RETURN_IF_ERROR(Readable(VarId::kLocalAs, a.loc, "as-path prepend local-as"));
          Emit(Op::kLoad, static_cast<uint32_t>(VarId::kLocalAs));
        } else {
          Emit(Op::kPush, Constant(Value::U32(a.number)));
        }
        Emit(Op::kPush, Constant(Value::U32(a.count)));
        Emit(Op::kPrepend);
        Emit(Op::kStore, static_cast<uint32_t>(VarId::kAsPath));
        return absl::OkStatus();
    }
    return ErrorAt(a.loc, "internal error: unknown action");
  }

  const PolicyConfig& config_;
  const CompileOptions& options_;
  Program* p_;
  std::string origin_;
  int8_t match_kind_ = -1;
  int8_t action_kind_ = -1;
  std::map<std::string, std::shared_ptr<const PrefixSet>> prefix_sets_;
  std::map<std::string, std::shared_ptr<const AsPathRegex>> regexes_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Program>> CompileProgram(const PolicyConfig& config,
                                                        const FilterSpec& spec,
                                                        const CompileOptions& options) {
  auto program = std::make_unique<Program>();
  Compiler compiler(config, options, program.get());
  RETURN_IF_ERROR(compiler.Chain(spec));
  return program;
}

absl::Status CheckPolicyConfig(const PolicyConfig& config, const CompileOptions& options) {
  for (const PolicyStatement& st : config.statements) {
    FilterSpec spec;
    spec.policies = {st.name};
    auto program = CompileProgram(config, spec, options);
    if (!program.ok()) return program.status();
  }
  return absl::OkStatus();
}

}  // namespace sluice::policy
