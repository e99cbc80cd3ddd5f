#pragma once
// Prefix: an IPv4 or IPv6 network (address and prefix length) as one small value type (24
// octets). Host bits are always zero. Text form "192.0.2.0/24", "2001:db8::/32" (RFC 4632 §3.1,
// RFC 4291 §2.3).
//
// Order: IPv4 before IPv6; within a family by address, then by length, so that a covering prefix
// comes right before the prefixes it covers (the trie's pre-order).

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "net/ip_address.h"

namespace sluice::net {

class Prefix {
 public:
  Prefix() = default;  // 0.0.0.0/0
  // Host bits past `length` are cleared. `length` is clamped to 0..AddressBits(family).
  Prefix(IPv4Address address, int length);
  Prefix(IPv6Address address, int length);
  Prefix(const IPAddress& address, int length);

  // "ADDRESS/LENGTH" of either family. Errors (InvalidArgument, naming the text): no '/', a bad
  // address, a length out of range, host bits set (use ParseAndMask to accept those).
  static absl::StatusOr<Prefix> Parse(std::string_view text);
  // As Parse, but host bits are cleared instead of refused ("10.1.2.3/8" -> 10.0.0.0/8).
  static absl::StatusOr<Prefix> ParseAndMask(std::string_view text);

  Family family() const { return family_; }
  bool is_v4() const { return family_ == Family::kIPv4; }
  bool is_v6() const { return family_ == Family::kIPv6; }
  int length() const { return length_; }
  int max_length() const { return AddressBits(family_); }
  IPAddress address() const;
  IPv4Address v4() const { return IPv4Address(static_cast<uint32_t>(hi_ >> 32)); }
  IPv6Address v6() const { return IPv6Address(hi_, lo_); }
  // bit(i) of the network address, i < length().
  bool bit(int i) const { return i < 64 ? (hi_ >> (63 - i)) & 1u : (lo_ >> (127 - i)) & 1u; }

  // True when `address` is in this network (false for the other family).
  bool Contains(const IPAddress& address) const;
  // True when `other` is this network or a more specific one inside it.
  bool Contains(const Prefix& other) const;
  bool Overlaps(const Prefix& other) const { return Contains(other) || other.Contains(*this); }
  // The covering prefix of `length` (<= length()).
  Prefix Truncated(int length) const;

  std::string ToString() const;

  friend bool operator==(const Prefix&, const Prefix&) = default;
  friend std::strong_ordering operator<=>(const Prefix& a, const Prefix& b) {
    if (auto c = a.family_ <=> b.family_; c != 0) return c;
    if (auto c = a.hi_ <=> b.hi_; c != 0) return c;
    if (auto c = a.lo_ <=> b.lo_; c != 0) return c;
    return a.length_ <=> b.length_;
  }
  template <typename H>
  friend H AbslHashValue(H h, const Prefix& p) {
    return H::combine(std::move(h), p.hi_, p.lo_, p.family_, p.length_);
  }

 private:
  // Both families left-aligned in 128 bits, as in IPAddress.
  uint64_t hi_ = 0;
  uint64_t lo_ = 0;
  Family family_ = Family::kIPv4;
  uint8_t length_ = 0;
};

}  // namespace sluice::net
