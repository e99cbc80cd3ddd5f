#pragma once
// RibRoute: a route as it flows through the RIB's stages (XORP's IPRouteEntry and
// ResolvedIPRouteEntry in one value type). It satisfies stage::StageRoute.
//
// A route reaches its destination through `nexthop` (an address, which for an EGP route need not
// be directly connected), through `ifname` (an interface route such as a connected subnet), or
// both. `protocol` and `admin_distance` say where it came from and how much it is trusted;
// `tags` carry policy tags. The ExtInt stage sets `resolved` on EGP routes: the directly
// connected nexthop and interface that reach `nexthop`, and the IGP metric of the way there.
//
// Routes are values built on the fly from the origin stages' compact storage; they are never
// stored elsewhere (DESIGN.md § Route stages).

#include <cstdint>
#include <optional>
#include <string>

#include "net/ip_address.h"
#include "net/prefix.h"
#include "rib/symbol.h"
#include "rib/tag_set.h"

namespace sluice::rib {

// How an EGP route's nexthop is reached, as the ExtInt stage found it.
struct Resolution {
  // The directly connected nexthop to forward to; none when the destination is on-link on
  // `ifname` (the route's own nexthop is on a connected subnet — then it is this address).
  std::optional<net::IPAddress> nexthop;
  Symbol ifname;
  // The metric of the IGP route the resolution went through (0 for a connected subnet).
  uint32_t igp_metric = 0;

  friend bool operator==(const Resolution&, const Resolution&) = default;
};

struct RibRoute {
  net::Prefix network;
  std::optional<net::IPAddress> nexthop;
  Symbol ifname;
  uint32_t metric = 0;
  Symbol protocol;
  uint16_t admin_distance = 0;
  TagSet tags;
  std::optional<Resolution> resolved;

  const net::Prefix& prefix() const { return network; }
  // The nexthop and interface a FIB entry uses: the resolved ones when set.
  std::optional<net::IPAddress> forwarding_nexthop() const {
    return resolved ? resolved->nexthop : nexthop;
  }
  Symbol forwarding_ifname() const { return resolved ? resolved->ifname : ifname; }

  // "192.0.2.0/24 ebgp/20 via 10.9.9.9 metric 0 => via 10.0.0.2 dev eth0 igp 5", with "dev",
  // "via", "tags" and "=> ..." present only when set.
  std::string ToString() const;

  friend bool operator==(const RibRoute&, const RibRoute&) = default;
};

// True when `a` is preferred over `b` for the same prefix: the lower admin distance wins; on
// equal admin distances the protocol whose name sorts first wins (so that the choice does not
// depend on arrival order). Routes of one protocol never compete (one route per prefix).
bool Preferred(const RibRoute& a, const RibRoute& b);

// The better of two optional routes (either may be absent); `a` on a complete tie.
const std::optional<RibRoute>& Best(const std::optional<RibRoute>& a,
                                    const std::optional<RibRoute>& b);

}  // namespace sluice::rib
