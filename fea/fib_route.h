#pragma once
// A route of the forwarding table (FIB): a destination prefix, one or more nexthops (more than
// one: equal-cost multipath), a metric and the tag of the protocol that chose it.
//
// Text form (used by error messages, tests, the benchmark and the CLI), close to `ip route`:
//
//   10.0.0.0/8 via 192.0.2.1 dev eth0 metric 20 proto ebgp
//   2001:db8::/32 via fe80::1 dev eth1 weight 2 via fe80::2 dev eth2 weight 1
//   192.0.2.0/24 dev eth0
//   198.51.100.0/24 via 203.0.113.1 dev eth0 onlink
//
// Each "via" starts a new nexthop, as does a "dev" after the current nexthop already has one.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "net/ip_address.h"
#include "net/prefix.h"

namespace sluice::fea {

struct Nexthop {
  // The next router; none: the destination is directly connected on `interface`.
  std::optional<net::IPAddress> gateway;
  // The outgoing interface by name; empty: the interface whose connected network holds the
  // gateway.
  std::string interface;
  // The gateway is on the link of `interface` although no connected network of it holds the
  // gateway (RTNH_F_ONLINK); needs `interface`.
  bool onlink = false;
  // ECMP weight, 1..256: the share of flows relative to the other nexthops.
  uint16_t weight = 1;

  std::string ToString() const;  // "via 192.0.2.1 dev eth0 onlink weight 2"
  friend bool operator==(const Nexthop&, const Nexthop&) = default;
};

inline constexpr size_t kMaxNexthops = 64;

struct FibRoute {
  net::Prefix prefix;
  std::vector<Nexthop> nexthops;  // 1..kMaxNexthops
  uint32_t metric = 0;            // route priority in the kernel; lower is preferred
  // The protocol that chose the route ("static", "ebgp", "connected"...). Kept by the FEA and
  // reported back; not written to the kernel, where every Sluice route carries one protocol
  // number (fea/netlink_fib_backend.h).
  std::string protocol;

  // "PREFIX NEXTHOP... [metric N] [proto TAG]" as in the header comment.
  std::string ToString() const;
  // Parses the text form. Errors: InvalidArgument naming the text and what is wrong (a
  // malformed prefix, address, number or keyword). Host bits in the prefix are refused.
  static absl::StatusOr<FibRoute> Parse(std::string_view text);

  friend bool operator==(const FibRoute&, const FibRoute&) = default;
};

}  // namespace sluice::fea
