#pragma once
// Conversions between the FEA's interfaces on the wire (ipc/proto/fea_fib.proto,
// fea_ifmgr.proto, fea_ifmgr_client.proto) and its core types (fea/fib_route.h,
// fea/interface.h). Used by the RPC adapters only.
//
// Errors (InvalidArgument) name the field: a prefix or address without a family, a prefix
// length out of range, a nexthop weight above 256, a route without nexthops.

#include <string_view>

#include "absl/status/statusor.h"
#include "fea/fib.h"
#include "fea/fib_route.h"
#include "fea/interface.h"
#include "ipc/proto/fea_fib.pb.h"
#include "ipc/proto/fea_ifmgr.pb.h"
#include "ipc/proto/fea_ifmgr_client.pb.h"

namespace sluice::fea {

// fea_fib/1.0 FibRoute <-> FibRoute.
absl::StatusOr<FibRoute> RouteFromProto(const fea_fib::v1::FibRoute& route);
void RouteToProto(const FibRoute& route, fea_fib::v1::FibRoute* out);

// The flat arguments of add_route4/6 and replace_route4/6: one nexthop (a gateway unless unset
// or unspecified, and/or an interface).
absl::StatusOr<FibRoute> RouteFromRequest(const fea_fib::v1::AddRoute4Request& request);
absl::StatusOr<FibRoute> RouteFromRequest(const fea_fib::v1::AddRoute6Request& request);

// A committed change for fea_fib_client/1.0.
void ChangeToProto(const FibChange& change, fea_fib::v1::FibChange* out);

// An interface with (or without) its addresses.
void InterfaceToProto(const Interface& interface, bool with_addresses,
                      fea_ifmgr::v1::Interface* out);
void AddressToProto(const InterfaceAddress& address, fea_ifmgr::v1::InterfaceAddress* out);
// An ifmgr event for fea_ifmgr_client/1.0.
void EventToProto(const InterfaceEvent& event, fea_ifmgr_client::v1::InterfaceEvent* out);

}  // namespace sluice::fea
