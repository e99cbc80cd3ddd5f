#pragma once
// Routing protocols as the RIB sees them: a name, a class and an admin distance
// (XORP NSDI'05 §5.2: origin tables are IGP or EGP; the admin distance arbitrates between them).
//
// IGP routes (connected, static, ospf, isis, rip, and any protocol not known to be an EGP) have
// nexthops the RIB can use as they are, or resolve through other IGP routes. EGP routes (ebgp,
// ibgp) may have nexthops that are not directly connected; the ExtInt stage resolves them
// through the IGP routes (ext_int_stage.h).

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"

namespace sluice::rib {

enum class ProtocolClass : uint8_t { kIgp, kEgp };
const char* ProtocolClassName(ProtocolClass c);  // "igp" / "egp"

// Admin distances run from 0 (connected) to 255; a lower one wins.
inline constexpr uint16_t kMaxAdminDistance = 255;
// The admin distance of a protocol the RIB does not know and nobody declared.
inline constexpr uint16_t kUnknownProtocolAdminDistance = 250;
// The protocol name under which interface addresses enter the RIB.
inline constexpr std::string_view kConnectedProtocol = "connected";

struct ProtocolDefaults {
  ProtocolClass protocol_class = ProtocolClass::kIgp;
  uint16_t admin_distance = kUnknownProtocolAdminDistance;
};

// The defaults for `protocol`: connected 0, static 1, ebgp 20 (EGP), ospf 110, isis 115,
// rip 120, ibgp 200 (EGP); any other name is an IGP with kUnknownProtocolAdminDistance.
ProtocolDefaults DefaultsFor(std::string_view protocol);

// A protocol name is 1 to 32 characters of [a-z0-9_-]. Errors: InvalidArgument naming it.
absl::Status ValidateProtocolName(std::string_view protocol);

}  // namespace sluice::rib
