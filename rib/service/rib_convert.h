#pragma once
// Conversions between the RIB's interfaces on the wire (ipc/proto/rib.proto,
// rib_client.proto, fea_fib.proto for what goes to the FEA) and its core types (rib/rib.h).
// Used by the RPC adapters only.
//
// Errors (InvalidArgument) name the field: an address or prefix without a family, a prefix
// length out of range. Everything else about a route is checked by the Rib itself
// (rib/route_input.h).

#include <vector>

#include "absl/status/statusor.h"
#include "ipc/proto/fea_fib.pb.h"
#include "ipc/proto/rib.pb.h"
#include "ipc/proto/rib_client.pb.h"
#include "rib/fib_client.h"
#include "rib/interest.h"
#include "rib/redist.h"
#include "rib/rib_route.h"
#include "rib/route_input.h"

namespace sluice::rib {

// rib/1.0 add_route4/6 flat arguments. An unset or unspecified nexthop means "via ifname".
absl::StatusOr<RouteInput> InputFromRequest(const rib::v1::AddRoute4Request& request);
absl::StatusOr<RouteInput> InputFromRequest(const rib::v1::AddRoute6Request& request);
// One route of add_routes/replace_routes.
absl::StatusOr<RouteInput> InputFromEntry(const rib::v1::RouteEntry& entry);
// Every route of add_routes_packed, in order. Errors (InvalidArgument, nothing applied): a
// column of the wrong length, a prefix length out of range, an interface index past the table
// (naming the route's index).
absl::StatusOr<std::vector<RouteInput>> InputsFromPacked(
    const rib::v1::AddRoutesPackedRequest& request);

void RouteToProto(const RibRoute& route, rib::v1::RibRoute* out);
void AnswerToProto(const InterestAnswer& answer, rib::v1::RegisterInterestReply* out);
void RedistChangeToProto(const RedistChange& change, rib_client::v1::RedistChange* out);

// What the FEA is sent for one change of a FIB batch (fea_fib/1.0/apply_batch).
void FibChangeToProto(const FibChange& change, fea_fib::v1::FibChange* out);

// A whole FIB batch in columns (fea_fib/1.0/apply_batch_packed).
void FibBatchToPacked(const FibBatch& batch, fea_fib::v1::ApplyBatchPackedRequest* out);

}  // namespace sluice::rib
