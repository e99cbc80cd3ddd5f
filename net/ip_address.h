#pragma once
// IPv4 and IPv6 addresses as small value types, and IPAddress, which holds either family.
//
// Text forms: IPv4 dotted quad (no leading zeros, RFC 6943 §3.1.1); IPv6 parsed in every form of
// RFC 4291 §2.2 and printed in the canonical form of RFC 5952 §4 (lower case, no leading zeros,
// "::" for the longest run of two or more zero groups, the first one on a tie) with the mixed
// notation of RFC 5952 §5 for IPv4-mapped addresses (::ffff:192.0.2.1).
//
// Bits are numbered from the most significant: bit(0) is the first bit on the wire.

#include <array>
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace sluice::net {

enum class Family : uint8_t { kIPv4 = 4, kIPv6 = 6 };

// Bits in an address of `family`: 32 or 128.
constexpr int AddressBits(Family family) { return family == Family::kIPv4 ? 32 : 128; }
std::string_view FamilyName(Family family);  // "ipv4" / "ipv6"

class IPv4Address {
 public:
  static constexpr int kBits = 32;
  static constexpr int kBytes = 4;

  constexpr IPv4Address() = default;
  constexpr explicit IPv4Address(uint32_t host_order) : value_(host_order) {}

  // Errors: InvalidArgument naming the text when it is not a dotted quad.
  static absl::StatusOr<IPv4Address> Parse(std::string_view text);
  // Reads 4 octets in network order.
  static IPv4Address FromBytes(const uint8_t* bytes);
  void ToBytes(uint8_t* out) const;

  constexpr uint32_t value() const { return value_; }  // host order
  constexpr bool bit(int i) const { return (value_ >> (31 - i)) & 1u; }
  // The address with all bits after the first `length` cleared (length 0..32).
  constexpr IPv4Address Masked(int length) const {
    return IPv4Address(length == 0 ? 0 : value_ & (~uint32_t{0} << (32 - length)));
  }
  std::string ToString() const;

  friend constexpr auto operator<=>(IPv4Address, IPv4Address) = default;
  template <typename H>
  friend H AbslHashValue(H h, IPv4Address a) {
    return H::combine(std::move(h), a.value_);
  }

 private:
  uint32_t value_ = 0;
};

class IPv6Address {
 public:
  static constexpr int kBits = 128;
  static constexpr int kBytes = 16;

  constexpr IPv6Address() = default;
  // The 128 bits as two host-order halves: hi is bits 0..63.
  constexpr IPv6Address(uint64_t hi, uint64_t lo) : hi_(hi), lo_(lo) {}

  // Errors: InvalidArgument naming the text when it is not an RFC 4291 address.
  static absl::StatusOr<IPv6Address> Parse(std::string_view text);
  static IPv6Address FromBytes(const uint8_t* bytes);  // 16 octets, network order
  void ToBytes(uint8_t* out) const;

  constexpr uint64_t hi() const { return hi_; }
  constexpr uint64_t lo() const { return lo_; }
  constexpr bool bit(int i) const {
    return i < 64 ? (hi_ >> (63 - i)) & 1u : (lo_ >> (127 - i)) & 1u;
  }
  constexpr IPv6Address Masked(int length) const {
    if (length <= 0) return IPv6Address();
    if (length < 64) return IPv6Address(hi_ & (~uint64_t{0} << (64 - length)), 0);
    if (length == 64) return IPv6Address(hi_, 0);
    if (length < 128) return IPv6Address(hi_, lo_ & (~uint64_t{0} << (128 - length)));
    return *this;
  }
  bool IsV4Mapped() const { return hi_ == 0 && (lo_ >> 32) == 0xffff; }
  std::string ToString() const;  // RFC 5952

  friend constexpr auto operator<=>(const IPv6Address&, const IPv6Address&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const IPv6Address& a) {
    return H::combine(std::move(h), a.hi_, a.lo_);
  }

 private:
  uint64_t hi_ = 0;
  uint64_t lo_ = 0;
};

// An address of either family. IPv4 addresses order before IPv6 ones.
class IPAddress {
 public:
  IPAddress() = default;  // 0.0.0.0
  IPAddress(IPv4Address a) : family_(Family::kIPv4), hi_(uint64_t{a.value()} << 32) {}
  IPAddress(IPv6Address a) : family_(Family::kIPv6), hi_(a.hi()), lo_(a.lo()) {}

  // Accepts either family's text form. Errors: InvalidArgument naming the text.
  static absl::StatusOr<IPAddress> Parse(std::string_view text);

  Family family() const { return family_; }
  bool is_v4() const { return family_ == Family::kIPv4; }
  bool is_v6() const { return family_ == Family::kIPv6; }
  IPv4Address v4() const { return IPv4Address(static_cast<uint32_t>(hi_ >> 32)); }
  IPv6Address v6() const { return IPv6Address(hi_, lo_); }
  int bits() const { return AddressBits(family_); }
  bool bit(int i) const { return i < 64 ? (hi_ >> (63 - i)) & 1u : (lo_ >> (127 - i)) & 1u; }
  bool is_unspecified() const { return hi_ == 0 && lo_ == 0; }
  IPAddress Masked(int length) const;
  std::string ToString() const;

  friend auto operator<=>(const IPAddress&, const IPAddress&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const IPAddress& a) {
    return H::combine(std::move(h), a.family_, a.hi_, a.lo_);
  }

 private:
  friend class Prefix;
  // Both families are held left-aligned in 128 bits: an IPv4 address in the top 32 bits of hi_.
  Family family_ = Family::kIPv4;
  uint64_t hi_ = 0;
  uint64_t lo_ = 0;
};

}  // namespace sluice::net
