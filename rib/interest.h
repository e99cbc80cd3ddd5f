#pragma once
// Interest registration (XORP NSDI'05 §5.2.1, Fig. 8): a client such as BGP asks how an address
// (a BGP nexthop) is reached and is told when that answer changes.
//
// The answer names the covering route (the longest-match winner for the address) and the
// largest enclosing subnet for which the same answer holds — so one registration answers every
// address in that subnet, and only a change that overlays the subnet needs a notification.

#include <optional>
#include <string>

#include "net/ip_address.h"
#include "net/prefix.h"
#include "rib/rib_route.h"
#include "rib/symbol.h"

namespace sluice::rib {

struct InterestAnswer {
  net::IPAddress address;  // what was asked
  // The answer holds for every address in this subnet (it contains `address`).
  net::Prefix valid_subnet;
  bool resolvable = false;
  // The covering route (a RIB winner, resolved if it is an EGP route); set when resolvable.
  std::optional<RibRoute> route;
  // How to forward to addresses in valid_subnet: the directly connected nexthop, or none when
  // they are on-link on `ifname` (a connected subnet covers them).
  std::optional<net::IPAddress> nexthop;
  Symbol ifname;
  // The cost of the way: the covering route's metric for an IGP route, the IGP metric to its
  // nexthop for a resolved EGP route.
  uint32_t metric = 0;
  uint16_t admin_distance = 0;
  Symbol protocol;

  // "128.16.160.1: 128.16.128.0/17 static/1 valid 128.16.128.0/18 via ... metric 0",
  // or "10.9.9.9: unresolvable valid 10.0.0.0/8".
  std::string ToString() const;
  friend bool operator==(const InterestAnswer&, const InterestAnswer&) = default;
};

// Implemented by each client that registers interest (one object per client; the RPC adapter
// keeps one per registering component). Called on the RIB's event loop, after the event that
// caused the change, never from inside a RIB call.
class InterestRegistrant {
 public:
  virtual ~InterestRegistrant() = default;
  // The answer given for `valid_subnet` no longer holds and the registration is gone: register
  // again (for the addresses the client cares about) to learn the new answer.
  virtual void OnInterestInvalidated(const net::Prefix& valid_subnet) = 0;
  // The covering route for `answer.valid_subnet` changed in place (nexthop, metric, ...): the
  // new answer, for the same subnet; the registration stays.
  virtual void OnInterestChanged(const InterestAnswer& answer) = 0;
};

}  // namespace sluice::rib
