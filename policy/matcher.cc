#include "policy/matcher.h"

namespace sluice::policy {

bool PrefixMatcher::Match(const Value& v) const {
  if (v.kind() == ValueKind::kPrefix) return set_->Matches(v.prefix());
  if (v.kind() == ValueKind::kAddress) return set_->Matches(v.address());
  return false;
}

bool AsPathLengthMatcher::Match(const Value& v) const {
  return v.kind() == ValueKind::kAsPath &&
         comparison_.Test(static_cast<uint32_t>(v.as_path().Length()));
}

bool AsPathRegexMatcher::Match(const Value& v) const {
  if (v.kind() != ValueKind::kAsPath) return false;
  for (const auto& re : regexes_) {
    if (re->Matches(v.as_path())) return true;
  }
  return false;
}

bool TextMatcher::Match(const Value& v) const {
  if (v.kind() != ValueKind::kText) return false;
  for (const auto& name : names_) {
    if (v.text() == name) return true;
  }
  return false;
}

CommunityMatcher::CommunityMatcher(std::vector<CommunityPattern> c,
                                   std::vector<ExtCommunityPattern> e,
                                   std::vector<LargeCommunityPattern> l, bool all,
                                   std::string description)
    : communities_(std::move(c)),
      ext_(std::move(e)),
      large_(std::move(l)),
      all_(all),
      description_(std::move(description)) {}

namespace {

// any: some member matches some pattern; all: each pattern matches some member.
template <typename T, typename P>
bool MatchList(std::span<const T> members, const std::vector<P>& patterns, bool all) {
  if (all) {
    for (const P& p : patterns) {
      bool found = false;
      for (const T& m : members) {
        if (p.Matches(m)) {
          found = true;
          break;
        }
      }
      if (!found) return false;
    }
    return !patterns.empty();
  }
  for (const T& m : members) {
    for (const P& p : patterns) {
      if (p.Matches(m)) return true;
    }
  }
  return false;
}

template <typename T, typename P>
bool MatchOne(const T& member, const std::vector<P>& patterns) {
  for (const P& p : patterns) {
    if (p.Matches(member)) return true;
  }
  return false;
}

}  // namespace

bool CommunityMatcher::Match(const Value& v) const {
  switch (v.kind()) {
    case ValueKind::kCommunities:
      return !communities_.empty() && MatchList(v.communities(), communities_, all_);
    case ValueKind::kExtCommunities:
      return !ext_.empty() && MatchList(v.ext_communities(), ext_, all_);
    case ValueKind::kLargeCommunities:
      return !large_.empty() && MatchList(v.large_communities(), large_, all_);
    default:
      return false;
  }
}

bool CommunityMatcher::MatchCommunity(uint32_t c) const { return MatchOne(c, communities_); }
bool CommunityMatcher::MatchExtCommunity(uint64_t c) const { return MatchOne(c, ext_); }
bool CommunityMatcher::MatchLargeCommunity(const LargeCommunity& c) const {
  return MatchOne(c, large_);
}

}  // namespace sluice::policy
