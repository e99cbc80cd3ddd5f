#pragma once
// PrefixIndex<V>: a hash map from prefix to a small value, for a per-prefix index over a full
// table (Decision's holders and winner, decision.h). An IPv4 prefix, or an IPv6 one of at most
// 56 bits (nearly every route of a full table), is stored under an 8-octet key: with a 16-octet
// value a slot takes 24 octets, against 40 keyed by net::Prefix. Longer IPv6 prefixes go to a
// second map keyed by net::Prefix. Both maps are absl::flat_hash_map: a pointer from Find or
// operator[] is valid until the next insertion or Erase.

#include <cstddef>
#include <cstdint>
#include <optional>

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
    if (std::optional<uint64_t> key = ShortKey(prefix)) return short_[*key];
    return long_[prefix];
  }
  void Erase(const net::Prefix& prefix) {
    if (std::optional<uint64_t> key = ShortKey(prefix)) {
      short_.erase(*key);
    } else {
      long_.erase(prefix);
    }
  }
  size_t size() const { return short_.size() + long_.size(); }
  // Empties the index and frees its tables.
  void Clear() {
    short_ = {};
    long_ = {};
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
  template <typename Map, typename Key>
  static V* Lookup(Map& map, const Key& key) {
    auto it = map.find(key);
    return it == map.end() ? nullptr : &it->second;
  }

  absl::flat_hash_map<uint64_t, V> short_;
  absl::flat_hash_map<net::Prefix, V> long_;
};

}  // namespace sluice::bgp
