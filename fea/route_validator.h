#pragma once
// Checks that a FIB route makes sense before anything is changed: its shape (nexthops present,
// of the prefix's family, no duplicates, weights in range) and, against the interface tree, that
// every named interface exists and every gateway is on a connected network of its interface
// (or of some interface when none is named) unless the nexthop is marked onlink.
//
// Errors are InvalidArgument (shape) or FailedPrecondition (interfaces), with a message naming
// the route and what is wrong, e.g.
//   "route 10.0.0.0/8 via 10.9.9.9: nexthop 10.9.9.9 is on no connected network ..."
// Interfaces that are down are accepted: their routes become usable when they come up (the
// kernel may refuse them meanwhile, which commit reports).

#include "absl/status/status.h"
#include "fea/fib_route.h"
#include "fea/interface_tree.h"

namespace sluice::fea {

absl::Status ValidateRoute(const FibRoute& route, const InterfaceTree& interfaces);

// True for fe80::/10.
bool IsIPv6LinkLocal(const net::IPAddress& address);

}  // namespace sluice::fea
