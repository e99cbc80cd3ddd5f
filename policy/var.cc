#include "policy/var.h"

namespace sluice::policy {
namespace {

constexpr std::string_view kVarNames[kVarCount] = {
    "protocol",    "network",     "nexthop",  "neighbor",  "tag",           "origin",
    "med",         "local-pref",  "as-path",  "community", "ext-community", "large-community",
    "to-protocol", "to-neighbor", "local-as", "rpki"};

}  // namespace

std::string_view VarName(VarId id) { return kVarNames[static_cast<int>(id)]; }

std::optional<VarId> VarFromName(std::string_view name) {
  for (int i = 0; i < kVarCount; ++i) {
    if (kVarNames[i] == name) return static_cast<VarId>(i);
  }
  return std::nullopt;
}

bool VarReadOnly(VarId id) {
  switch (id) {
    case VarId::kProtocol:
    case VarId::kNetwork:
    case VarId::kNeighbor:
    case VarId::kToProtocol:
    case VarId::kToNeighbor:
    case VarId::kLocalAs:
    case VarId::kRpki:
      return true;
    default:
      return false;
  }
}

std::string_view OriginName(uint32_t origin) {
  switch (origin) {
    case 0:
      return "igp";
    case 1:
      return "egp";
    case 2:
      return "incomplete";
    default:
      return "?";
  }
}

std::optional<Origin> OriginFromName(std::string_view name) {
  if (name == "igp") return Origin::kIgp;
  if (name == "egp") return Origin::kEgp;
  if (name == "incomplete") return Origin::kIncomplete;
  return std::nullopt;
}

std::string_view RpkiValidationName(uint32_t state) {
  switch (state) {
    case 0:
      return "not-found";
    case 1:
      return "valid";
    case 2:
      return "invalid";
    default:
      return "?";
  }
}

std::optional<RpkiValidation> RpkiValidationFromName(std::string_view name) {
  if (name == "not-found") return RpkiValidation::kNotFound;
  if (name == "valid") return RpkiValidation::kValid;
  if (name == "invalid") return RpkiValidation::kInvalid;
  return std::nullopt;
}

std::string_view NexthopKeywordName(NexthopKeyword k) {
  return k == NexthopKeyword::kSelf ? "self" : "peer";
}

}  // namespace sluice::policy
