#pragma once
// TagSet: the policy tags of a RIB route (XORP's PolicyTags: small integers that a policy sets
// on a route so that a later policy — redistribution, export — can match them), interned as a
// 4-octet value. TagSet() is the empty set, which nearly every route has.
//
// Sets are stored sorted without duplicates and never freed: tags name policies and terms, a
// small set. Thread-safe like Symbol.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace sluice::rib {

class TagSet {
 public:
  TagSet() = default;
  // The set holding `tags` (any order, duplicates ignored).
  static TagSet Of(std::span<const uint32_t> tags);

  // The tags, ascending.
  const std::vector<uint32_t>& tags() const;
  bool empty() const { return id_ == 0; }
  bool contains(uint32_t tag) const;
  // "1,7,20"; "" for the empty set.
  std::string ToString() const;

  friend bool operator==(TagSet, TagSet) = default;

 private:
  explicit TagSet(uint32_t id) : id_(id) {}
  uint32_t id_ = 0;
};

}  // namespace sluice::rib
