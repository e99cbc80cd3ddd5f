#include "policy/value.h"

#include "absl/strings/str_cat.h"

namespace sluice::policy {

std::string_view ValueKindName(ValueKind kind) {
  static constexpr std::string_view kNames[] = {"none",
                                                "bool",
                                                "u32",
                                                "text",
                                                "prefix",
                                                "address",
                                                "nexthop keyword",
                                                "as-path",
                                                "communities",
                                                "ext-communities",
                                                "large-communities"};
  return kNames[static_cast<int>(kind)];
}

namespace {

template <typename T, typename F>
std::string List(std::span<const T> items, F&& format) {
  std::string s = "[";
  for (const T& item : items) absl::StrAppend(&s, " ", format(item));
  absl::StrAppend(&s, " ]");
  return s;
}

}  // namespace

std::string Value::ToString() const {
  switch (kind()) {
    case ValueKind::kNone:
      return "none";
    case ValueKind::kBool:
      return as_bool() ? "true" : "false";
    case ValueKind::kU32:
      return absl::StrCat(u32());
    case ValueKind::kText:
      return std::string(text());
    case ValueKind::kPrefix:
      return prefix().ToString();
    case ValueKind::kAddress:
      return address().ToString();
    case ValueKind::kNexthopKeyword:
      return std::string(NexthopKeywordName(nexthop_keyword()));
    case ValueKind::kAsPath:
      return absl::StrCat("\"", as_path().ToString(), "\"");
    case ValueKind::kCommunities:
      return List(communities(), CommunityToString);
    case ValueKind::kExtCommunities:
      return List(ext_communities(), ExtCommunityToString);
    case ValueKind::kLargeCommunities:
      return List(large_communities(), LargeCommunityToString);
  }
  return "?";
}

}  // namespace sluice::policy
