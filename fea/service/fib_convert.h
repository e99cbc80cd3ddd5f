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

// fea_fib/1.0 apply_batch_packed: the columns of a request, checked once, and its changes one
// by one. The request must outlive the view.
class PackedBatch {
 public:
  // Errors (InvalidArgument): a column of the wrong length, a prefix length out of range, an
  // interface or protocol index past its table, naming the column or the change's index.
  static absl::StatusOr<PackedBatch> Open(const fea_fib::v1::ApplyBatchPackedRequest& request);

  int size() const { return request_->lengths_size(); }
  fea_fib::v1::FibChange::Op op(int i) const {
    return static_cast<fea_fib::v1::FibChange::Op>(request_->ops(i));
  }
  net::Prefix network(int i) const;
  // The route of change i (for ADD and REPLACE): one nexthop.
  FibRoute route(int i) const;

 private:
  explicit PackedBatch(const fea_fib::v1::ApplyBatchPackedRequest* request);
  const fea_fib::v1::ApplyBatchPackedRequest* request_;
  net::Family family_;
  int words_;
};

// The reply to commit_transaction, apply_batch and apply_batch_packed: the counts of a commit,
// and `not_found` deletes of absent prefixes skipped (apply_batch only).
fea_fib::v1::CommitTransactionReply CommitReply(const CommitResult& result, uint32_t not_found = 0);

// A committed change for fea_fib_client/1.0.
void ChangeToProto(const FibChange& change, fea_fib::v1::FibChange* out);

// An interface with (or without) its addresses.
void InterfaceToProto(const Interface& interface, bool with_addresses,
                      fea_ifmgr::v1::Interface* out);
void AddressToProto(const InterfaceAddress& address, fea_ifmgr::v1::InterfaceAddress* out);
// An ifmgr event for fea_ifmgr_client/1.0.
void EventToProto(const InterfaceEvent& event, fea_ifmgr_client::v1::InterfaceEvent* out);

}  // namespace sluice::fea
