#include "policy/ast.h"

namespace sluice::policy {

std::string_view SetKindName(SetKind kind) {
  switch (kind) {
    case SetKind::kPrefix:
      return "prefix-list";
    case SetKind::kCommunity:
      return "community-list";
    case SetKind::kExtCommunity:
      return "ext-community-list";
    case SetKind::kLargeCommunity:
      return "large-community-list";
    case SetKind::kAsPath:
      return "as-path-list";
  }
  return "?";
}

std::string_view MatchKindName(MatchKind kind) {
  static constexpr std::string_view kNames[kMatchKindCount] = {
      "protocol", "network4", "network6",       "prefix-list", "nexthop",       "neighbor",
      "tag",      "as-path",  "as-path-length", "community",   "ext-community", "large-community",
      "origin",   "med",      "local-pref",     "rpki"};
  return kNames[static_cast<int>(kind)];
}

std::string_view ActionKindName(ActionKind kind) {
  static constexpr std::string_view kNames[kActionKindCount] = {"accept",
                                                                "reject",
                                                                "next term",
                                                                "next policy",
                                                                "community set",
                                                                "community add",
                                                                "community delete",
                                                                "ext-community set",
                                                                "ext-community add",
                                                                "ext-community delete",
                                                                "large-community set",
                                                                "large-community add",
                                                                "large-community delete",
                                                                "local-pref",
                                                                "med",
                                                                "med add",
                                                                "med subtract",
                                                                "origin",
                                                                "nexthop self",
                                                                "nexthop peer",
                                                                "nexthop ADDRESS",
                                                                "as-path prepend",
                                                                "tag"};
  return kNames[static_cast<int>(kind)];
}

bool IsFlowAction(ActionKind kind) {
  return kind == ActionKind::kAccept || kind == ActionKind::kReject ||
         kind == ActionKind::kNextTerm || kind == ActionKind::kNextPolicy;
}

const NamedSet* PolicyConfig::FindSet(std::string_view name) const {
  for (const auto& s : sets) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const PolicyStatement* PolicyConfig::FindStatement(std::string_view name) const {
  for (const auto& s : statements) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

}  // namespace sluice::policy
