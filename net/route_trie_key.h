#pragma once
// Compact keys for RouteTrie nodes: the bits of one address family, left-aligned, with the bit
// operations a path-compressed trie needs. IPv4 keys are one 32-bit word, IPv6 keys two 64-bit
// words, so an IPv4 node does not carry the 16 octets of an IPv6 address.
//
// Bits are numbered from the most significant (bit 0 is the first bit on the wire), as in
// net/ip_address.h. Every function taking a length accepts 0..kBits; Bit() takes 0..kBits-1.

#include <bit>
#include <cstdint>

#include "net/ip_address.h"
#include "net/prefix.h"

namespace sluice::net {

template <class A>
struct RouteTrieKey;

template <>
struct RouteTrieKey<IPv4Address> {
  using Key = uint32_t;
  static constexpr int kBits = 32;
  static constexpr Family kFamily = Family::kIPv4;

  static Key FromPrefix(const Prefix& p) { return p.v4().value(); }
  static Key FromAddress(const IPAddress& a) { return a.v4().value(); }
  static Key FromAddress(IPv4Address a) { return a.value(); }
  static Prefix ToPrefix(Key k, int length) { return Prefix(IPv4Address(k), length); }

  static bool Bit(Key k, int i) { return (k >> (31 - i)) & 1u; }
  // The first `length` bits set. Shifting a 64-bit value keeps length 0 defined.
  static Key Mask(int length) { return static_cast<Key>(~uint64_t{0} << (32 - length)); }
  static Key Masked(Key k, int length) { return k & Mask(length); }
  // True when a and b agree on their first `length` bits.
  static bool Match(Key a, Key b, int length) { return ((a ^ b) & Mask(length)) == 0; }
  // How many leading bits a and b share (kBits when equal).
  static int CommonBits(Key a, Key b) { return std::countl_zero(a ^ b); }
};

struct IPv6TrieKey {
  uint64_t hi = 0;
  uint64_t lo = 0;
  friend bool operator==(const IPv6TrieKey&, const IPv6TrieKey&) = default;
};

template <>
struct RouteTrieKey<IPv6Address> {
  using Key = IPv6TrieKey;
  static constexpr int kBits = 128;
  static constexpr Family kFamily = Family::kIPv6;

  static Key FromPrefix(const Prefix& p) { return Key{p.v6().hi(), p.v6().lo()}; }
  static Key FromAddress(const IPAddress& a) { return Key{a.v6().hi(), a.v6().lo()}; }
  static Key FromAddress(const IPv6Address& a) { return Key{a.hi(), a.lo()}; }
  static Prefix ToPrefix(const Key& k, int length) {
    return Prefix(IPv6Address(k.hi, k.lo), length);
  }

  static bool Bit(const Key& k, int i) {
    return i < 64 ? (k.hi >> (63 - i)) & 1u : (k.lo >> (127 - i)) & 1u;
  }
  static Key Mask(int length) {
    if (length <= 64) return Key{length == 0 ? 0 : ~uint64_t{0} << (64 - length), 0};
    return Key{~uint64_t{0}, ~uint64_t{0} << (128 - length)};
  }
  static Key Masked(const Key& k, int length) {
    const Key m = Mask(length);
    return Key{k.hi & m.hi, k.lo & m.lo};
  }
  static bool Match(const Key& a, const Key& b, int length) {
    const Key m = Mask(length);
    return (((a.hi ^ b.hi) & m.hi) | ((a.lo ^ b.lo) & m.lo)) == 0;
  }
  static int CommonBits(const Key& a, const Key& b) {
    if (a.hi != b.hi) return std::countl_zero(a.hi ^ b.hi);
    return 64 + std::countl_zero(a.lo ^ b.lo);
  }
};

}  // namespace sluice::net
