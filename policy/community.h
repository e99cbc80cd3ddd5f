#pragma once
// BGP communities as the policy language writes them, and patterns over them.
//
//   community        u32     "65000:100" (RFC 1997: AS in the high 16 bits), or a well-known name:
//                            no-export, no-advertise, no-export-subconfed (RFC 1997), no-peer
//                            (RFC 3765), blackhole (RFC 7999), graceful-shutdown (RFC 8326)
//   ext-community    u64     the 8 octets in network order, type octet most significant (RFC 4360):
//                            "target:65000:100", "origin:65000:100" (two-octet AS specific, or
//                            four-octet AS specific when the AS > 65535, RFC 5668),
//                            "target:192.0.2.1:100" (IPv4 address specific), or raw
//                            "0x0002fde800000064"
//   large-community  3 x u32 "65000:1:2" (RFC 8092)
//
// Patterns (for matching and for deletion) replace any numeric part with "*" (any value) or a
// range "LO-HI" (inclusive): "65000:*", "65000:100-199", "65000:*:7". Ext-community patterns
// accept "*" for the administrator or the assigned number ("target:65000:*"); "target:*:*" and
// "origin:*:*" match every route target / origin whatever the administrator's form.

#include <compare>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace sluice::policy {

inline constexpr uint32_t kCommunityNoExport = 0xFFFFFF01;
inline constexpr uint32_t kCommunityNoAdvertise = 0xFFFFFF02;
inline constexpr uint32_t kCommunityNoExportSubconfed = 0xFFFFFF03;
inline constexpr uint32_t kCommunityNoPeer = 0xFFFFFF04;
inline constexpr uint32_t kCommunityBlackhole = 0xFFFF029A;
inline constexpr uint32_t kCommunityGracefulShutdown = 0xFFFF0000;

struct LargeCommunity {
  uint32_t global_admin = 0;
  uint32_t local1 = 0;
  uint32_t local2 = 0;
  friend auto operator<=>(const LargeCommunity&, const LargeCommunity&) = default;
};

// Errors (InvalidArgument) name the text and what a community looks like.
absl::StatusOr<uint32_t> ParseCommunity(std::string_view text);
absl::StatusOr<uint64_t> ParseExtCommunity(std::string_view text);
absl::StatusOr<LargeCommunity> ParseLargeCommunity(std::string_view text);

std::string CommunityToString(uint32_t c);  // a well-known name when there is one
std::string ExtCommunityToString(uint64_t c);
std::string LargeCommunityToString(const LargeCommunity& c);

// An inclusive range of one numeric part; "*" is the full range.
struct PartRange {
  uint32_t lo = 0;
  uint32_t hi = 0;
  bool Contains(uint32_t v) const { return v >= lo && v <= hi; }
};

struct CommunityPattern {
  PartRange as;
  PartRange value;
  bool Matches(uint32_t c) const { return as.Contains(c >> 16) && value.Contains(c & 0xffff); }
  // True when the pattern matches exactly one community (no wildcard, no range).
  bool IsExact() const { return as.lo == as.hi && value.lo == value.hi; }
};
struct ExtCommunityPattern {
  uint64_t value = 0;
  uint64_t mask = ~uint64_t{0};  // bits that must equal value's
  bool Matches(uint64_t c) const { return (c & mask) == value; }
  bool IsExact() const { return mask == ~uint64_t{0}; }
};
struct LargeCommunityPattern {
  PartRange global_admin;
  PartRange local1;
  PartRange local2;
  bool Matches(const LargeCommunity& c) const {
    return global_admin.Contains(c.global_admin) && local1.Contains(c.local1) &&
           local2.Contains(c.local2);
  }
  bool IsExact() const {
    return global_admin.lo == global_admin.hi && local1.lo == local1.hi && local2.lo == local2.hi;
  }
};

absl::StatusOr<CommunityPattern> ParseCommunityPattern(std::string_view text);
absl::StatusOr<ExtCommunityPattern> ParseExtCommunityPattern(std::string_view text);
absl::StatusOr<LargeCommunityPattern> ParseLargeCommunityPattern(std::string_view text);

}  // namespace sluice::policy
