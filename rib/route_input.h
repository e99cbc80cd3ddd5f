#pragma once
// RouteInput: a route as a protocol gives it to the RIB (rib/1.0 add_route4/6 and friends),
// and its validation. The RIB never trusts what a client sends: every field is checked before
// anything is applied.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "net/ip_address.h"
#include "net/prefix.h"

namespace sluice::rib {

struct RouteInput {
  net::Prefix network;
  std::optional<net::IPAddress> nexthop;  // at least one of nexthop and ifname
  std::string ifname;
  uint32_t metric = 0;
  std::vector<uint32_t> tags;  // policy tags
};

inline constexpr size_t kMaxInterfaceNameLength = 64;
inline constexpr size_t kMaxTags = 64;

// Errors (InvalidArgument, naming the route and what is wrong): a nexthop of the other family,
// the unspecified address as nexthop, neither nexthop nor interface, an interface name that is
// too long or not printable, too many tags.
absl::Status ValidateRouteInput(const RouteInput& route);

}  // namespace sluice::rib
