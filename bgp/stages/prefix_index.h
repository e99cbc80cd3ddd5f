#pragma once
// PrefixIndex<V>: a hash map from prefix to a small value, for a per-prefix index over a full
// table (Decision's holders and winner, decision.h), that also lists its prefixes in order. An
// IPv4 prefix, or an IPv6 one of at most 56 bits (nearly every route of a full table), is stored
// under an 8-octet key: with a 16-octet value a slot takes 24 octets, against 40 keyed by
// net::Prefix. Longer IPv6 prefixes go to a second map keyed by net::Prefix. Both maps are
// absl::flat_hash_map: a pointer from Find or operator[] is valid until the next insertion or
// Erase.
//
// AppendAfter lists the prefixes after a given one in net::Prefix order: a walk over every prefix
// (PrefixWalk) takes each once, where a walk over the union of many tables takes it once per table
// that holds it. For that the keys are kept in B-trees too (about 10 more octets a prefix and a
// B-tree insertion per new prefix), but only while walks use them: the first AppendAfter on a
// non-empty index builds them from the hash maps (a sort of the keys), and they are dropped once
// more keys were added or erased than the index holds (at least kMinIdleChanges) without an
// AppendAfter. A table loaded while no walk runs (or only walks of the empty index, such as the
// dump to a peer that came up first) pays for no order. Walks end at any time, and overlap, so
// the end of one does not drop them: another would sort again.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "net/prefix.h"

namespace sluice::bgp {

template <typename V>
class PrefixIndex {
 public:
  // Changes without a walk after which the order is dropped, for an index smaller than this.
  static constexpr size_t kMinIdleChanges = size_t{1} << 16;

  // The value of `prefix`; nullptr when it has none.
  V* Find(const net::Prefix& prefix) {
    if (std::optional<uint64_t> key = ShortKey(prefix)) return Lookup(short_, *key);
    return Lookup(long_, prefix);
  }
  // The value of `prefix`, value-initialised when it had none.
  V& operator[](const net::Prefix& prefix) {
    if (std::optional<uint64_t> key = ShortKey(prefix)) {
      auto [it, added] = short_.try_emplace(*key);
      if (added && ordered_) KeyChanged(prefix, key, true);
      return it->second;
    }
    auto [it, added] = long_.try_emplace(prefix);
    if (added && ordered_) KeyChanged(prefix, std::nullopt, true);
    return it->second;
  }
  void Erase(const net::Prefix& prefix) {
    const std::optional<uint64_t> key = ShortKey(prefix);
    const size_t erased = key ? short_.erase(*key) : long_.erase(prefix);
    if (erased > 0 && ordered_) KeyChanged(prefix, key, false);
  }
  size_t size() const { return short_.size() + long_.size(); }
  // Whether the keys are kept in order now (since the last AppendAfter, until dropped).
  bool ordered() const { return ordered_; }
  // Empties the index and frees its tables.
  void Clear() {
    short_ = {};
    long_ = {};
    DropOrder();
  }
  // Appends to `out`, ascending, the first `limit` prefixes of the index after `after` (from the
  // first when nullopt), in net::Prefix order: IPv4, then IPv6. A call with the order dropped
  // sorts every key first: O(n log n) for n prefixes; the others take O(log n + limit).
  void AppendAfter(const std::optional<net::Prefix>& after, size_t limit,
                   std::vector<net::Prefix>* out) {
    if (size() == 0) return;
    if (!ordered_) BuildOrder();
    changes_since_walk_ = 0;
    size_t n = 0;
    if (!after || after->is_v4()) {
      auto it = after ? order4_.upper_bound(*ShortKey(*after)) : order4_.begin();
      for (; it != order4_.end() && n < limit; ++it, ++n) out->push_back(FromShortKey(*it));
    }
    auto s = order6_.begin();
    auto l = order_long_.begin();
    if (after && after->is_v6()) {
      s = order6_.upper_bound(ShortBoundAfter(*after));
      l = order_long_.upper_bound(*after);
    }
    for (; n < limit && (s != order6_.end() || l != order_long_.end()); ++n) {
      if (l == order_long_.end() || (s != order6_.end() && FromShortKey(*s) < *l)) {
        out->push_back(FromShortKey(*s++));
      } else {
        out->push_back(*l++);
      }
    }
  }

 private:
  static constexpr int kShortBits = 56;
  // The network bits (host bits are clear, so the low 8 bits are 0 up to kShortBits), the
  // length in bits 1-6 and the family in bit 0; nullopt for an IPv6 prefix past kShortBits.
  static std::optional<uint64_t> ShortKey(const net::Prefix& prefix) {
    const uint64_t length = static_cast<uint64_t>(prefix.length());
    if (prefix.is_v4()) return uint64_t{prefix.v4().value()} << 32 | length << 1;
    if (prefix.length() > kShortBits) return std::nullopt;
    return prefix.v6().hi() | length << 1 | 1;
  }
  static net::Prefix FromShortKey(uint64_t key) {
    const int length = static_cast<int>((key >> 1) & 0x7f);
    if ((key & 1) == 0)
      return net::Prefix(net::IPv4Address(static_cast<uint32_t>(key >> 32)), length);
    return net::Prefix(net::IPv6Address(key & ~uint64_t{0xff}, 0), length);
  }
  // Short IPv6 keys order as their prefixes (network bits, then length). Those after a longer
  // `after` are the ones whose network bits are greater than its first 64.
  static uint64_t ShortBoundAfter(const net::Prefix& after) {
    if (std::optional<uint64_t> key = ShortKey(after)) return *key;
    return after.v6().hi() | 0xff;
  }
  absl::btree_set<uint64_t>& OrderOf(const net::Prefix& prefix) {
    return prefix.is_v4() ? order4_ : order6_;
  }
  // A key was added or erased while the B-trees are kept: follows it, or drops them when walks
  // stopped asking.
  void KeyChanged(const net::Prefix& prefix, const std::optional<uint64_t>& key, bool added) {
    if (++changes_since_walk_ > std::max(size(), kMinIdleChanges)) {
      DropOrder();
    } else if (key && added) {
      OrderOf(prefix).insert(*key);
    } else if (key) {
      OrderOf(prefix).erase(*key);
    } else if (added) {
      order_long_.insert(prefix);
    } else {
      order_long_.erase(prefix);
    }
  }
  void BuildOrder() {
    std::vector<uint64_t> v4;
    std::vector<uint64_t> v6;
    for (const auto& [key, value] : short_) ((key & 1) == 0 ? v4 : v6).push_back(key);
    std::vector<net::Prefix> longer;
    longer.reserve(long_.size());
    for (const auto& [prefix, value] : long_) longer.push_back(prefix);
    std::sort(v4.begin(), v4.end());
    std::sort(v6.begin(), v6.end());
    std::sort(longer.begin(), longer.end());
    // Sorted input: each insertion lands at the end, in constant time amortised.
    order4_.insert(v4.begin(), v4.end());
    order6_.insert(v6.begin(), v6.end());
    order_long_.insert(longer.begin(), longer.end());
    ordered_ = true;
    changes_since_walk_ = 0;
  }
  void DropOrder() {
    order4_ = {};
    order6_ = {};
    order_long_ = {};
    ordered_ = false;
  }
  template <typename Map, typename Key>
  static V* Lookup(Map& map, const Key& key) {
    auto it = map.find(key);
    return it == map.end() ? nullptr : &it->second;
  }

  absl::flat_hash_map<uint64_t, V> short_;
  absl::flat_hash_map<net::Prefix, V> long_;
  // The keys in order, while `ordered_`: IPv4 short keys, IPv6 short keys (their orders
  // interleave), long ones.
  bool ordered_ = false;
  size_t changes_since_walk_ = 0;  // keys added or erased since the last AppendAfter
  absl::btree_set<uint64_t> order4_;
  absl::btree_set<uint64_t> order6_;
  absl::btree_set<net::Prefix> order_long_;
};

}  // namespace sluice::bgp
