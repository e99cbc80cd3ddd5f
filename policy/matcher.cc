#include "policy/matcher.h"

#include <atomic>

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

namespace {
std::atomic<uint32_t> next_matcher_serial{1};
}  // namespace

AsPathRegexMatcher::AsPathRegexMatcher(std::vector<std::shared_ptr<const AsPathRegex>> regexes,
                                       std::string description)
    : regexes_(std::move(regexes)),
      description_(std::move(description)),
      serial_(next_matcher_serial.fetch_add(1, std::memory_order_relaxed)) {}

bool AsPathRegexMatcher::Evaluate(const AsPathView& path) const {
  for (const auto& re : regexes_) {
    if (re->Matches(path)) return true;
  }
  return false;
}

bool AsPathRegexMatcher::Match(const Value& v) const {
  if (v.kind() != ValueKind::kAsPath) return false;
  const AsPathView& path = v.as_path();
  const uint64_t id = path.intern_id();
  if (id == 0) return Evaluate(path);
  struct Entry {
    uint64_t id;
    uint32_t serial;  // 0: empty
    uint32_t result;
  };
  static constexpr size_t kEntries = 4096;
  thread_local Entry cache[kEntries] = {};
  const uint64_t h = (id * 0x9E3779B97F4A7C15ull) ^ (uint64_t{serial_} * 0xC2B2AE3D27D4EB4Full);
  Entry& e = cache[(h >> 40) & (kEntries - 1)];
  if (e.serial == serial_ && e.id == id) return e.result != 0;
  const bool result = Evaluate(path);
  e = Entry{id, serial_, result ? 1u : 0u};
  return result;
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
