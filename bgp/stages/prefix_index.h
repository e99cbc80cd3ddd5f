#pragma once
// PrefixIndex<V>: a hash map from prefix to a small value, for a per-prefix index over a full
// table (Decision's holders and winner, decision.h), that also lists its prefixes in order. An
// IPv4 prefix, or an IPv6 one of at most 56 bits (nearly every route of a full table), is stored
// under an 8-octet key: with a 16-octet value a slot takes 24 octets, against 40 keyed by
// net::Prefix. Longer IPv6 prefixes go to a second map keyed by net::Prefix. Both maps are
// absl::flat_hash_map: a pointer from Find or operator[] is valid until the next insertion or
// Erase.
//
// The keys are also kept in B-trees (about 10 more octets a prefix), so that AppendAfter lists the
// prefixes after a given one in net::Prefix order: a walk over every prefix (PrefixWalk) takes
// each once, where a walk over the union of many tables takes it once per table that holds it.

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
  // The value of `prefix`; nullptr when it has none.
  V* Find(const net::Prefix& prefix) {
    if (std::optional<uint64_t> key = ShortKey(prefix)) return Lookup(short_, *key);
    return Lookup(long_, prefix);
  }
  // The value of `prefix`, value-initialised when it had none.
  V& operator[](const net::Prefix& prefix) {
    if (std::optional<uint64_t> key = ShortKey(prefix)) {
      auto [it, added] = short_.try_emplace(*key);
      if (added) OrderOf(prefix).insert(*key);
      return it->second;
    }
    auto [it, added] = long_.try_emplace(prefix);
    if (added) order_long_.insert(prefix);
    return it->second;
  }
  void Erase(const net::Prefix& prefix) {
    if (std::optional<uint64_t> key = ShortKey(prefix)) {
      if (short_.erase(*key) > 0) OrderOf(prefix).erase(*key);
    } else if (long_.erase(prefix) > 0) {
      order_long_.erase(prefix);
    }
  }
  size_t size() const { return short_.size() + long_.size(); }
  // Empties the index and frees its tables.
  void Clear() {
    short_ = {};
    long_ = {};
    order4_ = {};
    order6_ = {};
    order_long_ = {};
  }
  // Appends to `out`, ascending, the first `limit` prefixes of the index after `after` (from the
  // first when nullopt), in net::Prefix order: IPv4, then IPv6.
  void AppendAfter(const std::optional<net::Prefix>& after, size_t limit,
                   std::vector<net::Prefix>* out) const {
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
  template <typename Map, typename Key>
  static V* Lookup(Map& map, const Key& key) {
    auto it = map.find(key);
    return it == map.end() ? nullptr : &it->second;
  }

  absl::flat_hash_map<uint64_t, V> short_;
  absl::flat_hash_map<net::Prefix, V> long_;
  // The keys in order: IPv4 short keys, IPv6 short keys (their orders interleave), long ones.
  absl::btree_set<uint64_t> order4_;
  absl::btree_set<uint64_t> order6_;
  absl::btree_set<net::Prefix> order_long_;
};

}  // namespace sluice::bgp
