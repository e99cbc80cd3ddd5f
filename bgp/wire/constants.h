#pragma once
// BGP-4 protocol numbers: message types, path attribute type codes and flags, address families,
// capability codes, and the NOTIFICATION error codes and subcodes (RFC 4271 §4, §5, §6;
// RFC 4760; RFC 5492; IANA "BGP Parameters" registries).

#include <cstdint>
#include <string>

namespace sluice::bgp {

// RFC 4271 §4.1: every message starts with a 16-octet marker of all ones, a 2-octet length (of
// the whole message, header included, octets) and a 1-octet type.
inline constexpr int kHeaderSize = 19;
inline constexpr int kMarkerSize = 16;
// RFC 4271 §4.1 maximum message size, and RFC 8654 extended messages (not for OPEN/KEEPALIVE).
inline constexpr int kMaxMessageSize = 4096;
inline constexpr int kMaxExtendedMessageSize = 65535;
inline constexpr uint16_t kBgpPort = 179;

enum class MessageType : uint8_t {
  kOpen = 1,
  kUpdate = 2,
  kNotification = 3,
  kKeepalive = 4,
  kRouteRefresh = 5,  // RFC 2918
};

// Path attribute type codes (IANA registry).
enum class AttrType : uint8_t {
  kOrigin = 1,
  kAsPath = 2,
  kNextHop = 3,
  kMultiExitDisc = 4,
  kLocalPref = 5,
  kAtomicAggregate = 6,
  kAggregator = 7,
  kCommunities = 8,        // RFC 1997
  kOriginatorId = 9,       // RFC 4456
  kClusterList = 10,       // RFC 4456
  kMpReachNlri = 14,       // RFC 4760
  kMpUnreachNlri = 15,     // RFC 4760
  kExtCommunities = 16,    // RFC 4360
  kAs4Path = 17,           // RFC 6793
  kAs4Aggregator = 18,     // RFC 6793
  kLargeCommunities = 32,  // RFC 8092
};

// Attribute flag bits (RFC 4271 §4.3).
inline constexpr uint8_t kFlagOptional = 0x80;
inline constexpr uint8_t kFlagTransitive = 0x40;
inline constexpr uint8_t kFlagPartial = 0x20;
inline constexpr uint8_t kFlagExtendedLength = 0x10;

// Address Family Identifiers and Subsequent AFIs (RFC 4760).
enum class Afi : uint16_t { kIPv4 = 1, kIPv6 = 2 };
enum class Safi : uint8_t { kUnicast = 1, kMulticast = 2 };

// One address family with its sub-family. Index() numbers the four supported ones 0..3 so that a
// set of families fits in a small bit mask.
struct AfiSafi {
  Afi afi = Afi::kIPv4;
  Safi safi = Safi::kUnicast;

  static constexpr int kCount = 4;
  constexpr int Index() const {
    return (afi == Afi::kIPv6 ? 2 : 0) + (safi == Safi::kMulticast ? 1 : 0);
  }
  static constexpr AfiSafi FromIndex(int i) {
    return AfiSafi{i >= 2 ? Afi::kIPv6 : Afi::kIPv4, (i & 1) ? Safi::kMulticast : Safi::kUnicast};
  }
  // True for the AFI/SAFI values this codec decodes (IPv4/IPv6 unicast/multicast).
  static bool Supported(uint16_t afi, uint8_t safi) {
    return (afi == 1 || afi == 2) && (safi == 1 || safi == 2);
  }
  std::string ToString() const;  // "ipv4-unicast"
  friend constexpr bool operator==(AfiSafi, AfiSafi) = default;
};
inline constexpr AfiSafi kIPv4Unicast{Afi::kIPv4, Safi::kUnicast};
inline constexpr AfiSafi kIPv6Unicast{Afi::kIPv6, Safi::kUnicast};

// A set of AfiSafi as a bit mask over AfiSafi::Index().
class AfiSafiSet {
 public:
  constexpr AfiSafiSet() = default;
  static constexpr AfiSafiSet All() { return AfiSafiSet(0x0f); }
  constexpr bool Has(AfiSafi f) const { return (bits_ >> f.Index()) & 1; }
  constexpr void Add(AfiSafi f) { bits_ |= uint8_t(1u << f.Index()); }
  constexpr void Remove(AfiSafi f) { bits_ &= uint8_t(~(1u << f.Index())); }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr uint8_t bits() const { return bits_; }
  constexpr AfiSafiSet Intersect(AfiSafiSet o) const { return AfiSafiSet(bits_ & o.bits_); }
  friend constexpr bool operator==(AfiSafiSet, AfiSafiSet) = default;

 private:
  constexpr explicit AfiSafiSet(uint8_t bits) : bits_(bits) {}
  uint8_t bits_ = 0;
};

// Capability codes (RFC 5492 and IANA).
enum class CapabilityCode : uint8_t {
  kMultiprotocol = 1,          // RFC 4760
  kRouteRefresh = 2,           // RFC 2918
  kExtendedMessage = 6,        // RFC 8654
  kGracefulRestart = 64,       // RFC 4724
  kFourOctetAs = 65,           // RFC 6793
  kAddPath = 69,               // RFC 7911
  kEnhancedRouteRefresh = 70,  // RFC 7313
};

// RFC 6793 §9: the 2-octet stand-in for 4-octet AS numbers.
inline constexpr uint32_t kAsTrans = 23456;

// NOTIFICATION error codes (RFC 4271 §4.5) and subcodes (§6, RFC 4486, RFC 5492).
enum class ErrorCode : uint8_t {
  kMessageHeader = 1,
  kOpenMessage = 2,
  kUpdateMessage = 3,
  kHoldTimerExpired = 4,
  kFsm = 5,
  kCease = 6,
  kRouteRefresh = 7,          // RFC 7313
  kSendHoldTimerExpired = 8,  // RFC 9687
};

namespace header_error {
inline constexpr uint8_t kConnectionNotSynchronized = 1;
inline constexpr uint8_t kBadMessageLength = 2;
inline constexpr uint8_t kBadMessageType = 3;
}  // namespace header_error

namespace open_error {
inline constexpr uint8_t kUnspecific = 0;
inline constexpr uint8_t kUnsupportedVersion = 1;
inline constexpr uint8_t kBadPeerAs = 2;
inline constexpr uint8_t kBadBgpIdentifier = 3;
inline constexpr uint8_t kUnsupportedOptionalParameter = 4;
inline constexpr uint8_t kUnacceptableHoldTime = 6;
inline constexpr uint8_t kUnsupportedCapability = 7;  // RFC 5492
}  // namespace open_error

namespace update_error {
inline constexpr uint8_t kMalformedAttributeList = 1;
inline constexpr uint8_t kUnrecognizedWellKnownAttribute = 2;
inline constexpr uint8_t kMissingWellKnownAttribute = 3;
inline constexpr uint8_t kAttributeFlagsError = 4;
inline constexpr uint8_t kAttributeLengthError = 5;
inline constexpr uint8_t kInvalidOriginAttribute = 6;
inline constexpr uint8_t kInvalidNextHopAttribute = 8;
inline constexpr uint8_t kOptionalAttributeError = 9;
inline constexpr uint8_t kInvalidNetworkField = 10;
inline constexpr uint8_t kMalformedAsPath = 11;
}  // namespace update_error

namespace cease {
inline constexpr uint8_t kMaxPrefixes = 1;  // RFC 4486
inline constexpr uint8_t kAdministrativeShutdown = 2;
inline constexpr uint8_t kPeerDeconfigured = 3;
inline constexpr uint8_t kAdministrativeReset = 4;
inline constexpr uint8_t kConnectionRejected = 5;
inline constexpr uint8_t kOtherConfigurationChange = 6;
inline constexpr uint8_t kConnectionCollision = 7;
inline constexpr uint8_t kOutOfResources = 8;
// RFC 8538 §3: the session ends without graceful restart; the data is the NOTIFICATION it
// stands for: error code (1 octet), subcode (1), then that one's data.
inline constexpr uint8_t kHardReset = 9;
}  // namespace cease

}  // namespace sluice::bgp
