// FeaFibService's bulk handlers, the RIB's path: apply_batch, apply_batch_packed and the full
// push (fea/service/fea_fib_service.h).

#include <set>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "fea/service/fea_fib_service.h"
#include "fea/service/fib_convert.h"
#include "ipc/methods/fea_fib.h"
#include "ipc/proto/fea_fib.pb.h"
#include "ipc/types_convert.h"

namespace sluice::fea {
namespace {

namespace pb = fea_fib::v1;

using ipc::methods::fea_fib::kApplyBatch;
using ipc::methods::fea_fib::kApplyBatchPacked;
using ipc::methods::fea_fib::kCompleteFullPush;
using ipc::methods::fea_fib::kStartFullPush;

const char* OpName(pb::FibChange::Op op) {
  return op == pb::FibChange::ADD ? "add" : op == pb::FibChange::REPLACE ? "replace" : "delete";
}

absl::Status AtChange(int index, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat("change #", index, ": ", status.message(),
                                                  "; batch not applied, FIB unchanged"));
}

// Queues change `change` of an apply_batch on transaction `id`: an ADD or REPLACE sets its
// route, a DELETE removes its network if present (counted in `not_found` if not). `prefix` is
// set to its network.
absl::Status QueueBatchChange(Fib& fib, TransactionId id, const pb::FibChange& change,
                              net::Prefix& prefix, uint32_t& not_found) {
  absl::StatusOr<FibRoute> route = RouteFromProto(change.route());
  absl::Status status = route.status();
  prefix = route.ok() ? route->prefix : net::Prefix();
  if (!route.ok() && change.op() == pb::FibChange::DELETE) {
    // A delete needs only the network.
    auto network = ipc::FromProto(change.route().network());
    status = network.status();
    if (network.ok()) prefix = *network;
  }
  if (!status.ok()) return status;
  switch (change.op()) {
    case pb::FibChange::ADD:
    case pb::FibChange::REPLACE:
      return fib.SetRoute(id, *std::move(route));
    case pb::FibChange::DELETE: {
      absl::StatusOr<bool> deleted = fib.DeleteRouteIfPresent(id, prefix);
      if (deleted.ok() && !*deleted) ++not_found;
      return deleted.status();
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("op ", static_cast<int>(change.op()), " is not ADD, REPLACE or DELETE"));
  }
}

// Queues change `i` of an apply_batch_packed on transaction `id`, as QueueBatchChange does.
absl::Status QueuePackedChange(Fib& fib, TransactionId id, const PackedBatch& batch, int i,
                               uint32_t& not_found) {
  switch (batch.op(i)) {
    case pb::FibChange::ADD:
    case pb::FibChange::REPLACE:
      return fib.SetRoute(id, batch.route(i));
    case pb::FibChange::DELETE: {
      absl::StatusOr<bool> deleted = fib.DeleteRouteIfPresent(id, batch.network(i));
      if (deleted.ok() && !*deleted) ++not_found;
      return deleted.status();
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("op ", static_cast<int>(batch.op(i)), " is not ADD, REPLACE or DELETE"));
  }
}

}  // namespace

absl::Status FeaFibService::RegisterBatches() {
  RETURN_IF_ERROR(router_.Handle(
      kApplyBatch,
      [this](const pb::ApplyBatchRequest& request, const ipc::Caller& caller)
          -> absl::StatusOr<pb::CommitTransactionReply> { return ApplyBatch(request, caller); }));
  RETURN_IF_ERROR(router_.Handle(
      kApplyBatchPacked,
      [this](const pb::ApplyBatchPackedRequest& request,
             const ipc::Caller& caller) -> absl::StatusOr<pb::CommitTransactionReply> {
        return ApplyBatchPacked(request, caller);
      }));
  return absl::OkStatus();
}

absl::StatusOr<pb::CommitTransactionReply> FeaFibService::ApplyBatch(
    const pb::ApplyBatchRequest& request, const ipc::Caller& caller) {
  RETURN_IF_ERROR(CheckBulk("apply_batch", caller));
  ASSIGN_OR_RETURN(TransactionId id,
                   fib_.StartTransaction("", static_cast<size_t>(request.changes_size())));
  const bool profile_in = route_in_->enabled();
  const bool profile_kernel = route_in_kernel_->enabled();
  uint32_t not_found = 0;
  for (int i = 0; i < request.changes_size(); ++i) {
    const pb::FibChange& change = request.changes(i);
    net::Prefix prefix;
    absl::Status status = QueueBatchChange(fib_, id, change, prefix, not_found);
    if (!status.ok()) {
      (void)fib_.Abort(id);
      return AtChange(i, status);
    }
    if (profile_in) {
      route_in_->Record(absl::StrCat(OpName(change.op()), " ", prefix.ToString()));
    }
  }
  ASSIGN_OR_RETURN(CommitResult result, fib_.Commit(id));
  ++batches_;
  ObserveArrival(request.arrival_ns());
  if (full_push_ || profile_kernel) {
    for (const pb::FibChange& change : request.changes()) {
      auto prefix = ipc::FromProto(change.route().network());
      if (!prefix.ok()) continue;
      Fresh(*prefix);
      if (profile_kernel) {
        route_in_kernel_->Record(absl::StrCat(OpName(change.op()), " ", prefix->ToString()));
      }
    }
  }
  return CommitReply(result, not_found);
}

absl::StatusOr<pb::CommitTransactionReply> FeaFibService::ApplyBatchPacked(
    const pb::ApplyBatchPackedRequest& request, const ipc::Caller& caller) {
  RETURN_IF_ERROR(CheckBulk("apply_batch_packed", caller));
  ASSIGN_OR_RETURN(PackedBatch batch, PackedBatch::Open(request));
  ASSIGN_OR_RETURN(TransactionId id, fib_.StartTransaction("", static_cast<size_t>(batch.size())));
  const bool profile_in = route_in_->enabled();
  const bool profile_kernel = route_in_kernel_->enabled();
  uint32_t not_found = 0;
  for (int i = 0; i < batch.size(); ++i) {
    absl::Status status = QueuePackedChange(fib_, id, batch, i, not_found);
    if (!status.ok()) {
      (void)fib_.Abort(id);
      return AtChange(i, status);
    }
    if (profile_in) {
      route_in_->Record(absl::StrCat(OpName(batch.op(i)), " ", batch.network(i).ToString()));
    }
  }
  ASSIGN_OR_RETURN(CommitResult result, fib_.Commit(id));
  ++batches_;
  ObserveArrival(request.arrival_ns());
  if (full_push_ || profile_kernel) {
    for (int i = 0; i < batch.size(); ++i) {
      const net::Prefix prefix = batch.network(i);
      Fresh(prefix);
      if (profile_kernel) {
        route_in_kernel_->Record(absl::StrCat(OpName(batch.op(i)), " ", prefix.ToString()));
      }
    }
  }
  return CommitReply(result, not_found);
}

absl::Status FeaFibService::RegisterFullPush() {
  RETURN_IF_ERROR(router_.Handle(
      kStartFullPush,
      [this](const pb::StartFullPushRequest&, const ipc::Caller& caller)
          -> absl::StatusOr<pb::StartFullPushReply> { return StartFullPush(caller); }));
  RETURN_IF_ERROR(router_.Handle(
      kCompleteFullPush,
      [this](const pb::CompleteFullPushRequest&, const ipc::Caller& caller)
          -> absl::StatusOr<pb::CompleteFullPushReply> { return CompleteFullPush(caller); }));
  return absl::OkStatus();
}

absl::StatusOr<pb::StartFullPushReply> FeaFibService::StartFullPush(const ipc::Caller& caller) {
  RETURN_IF_ERROR(CheckFeeder("start_full_push", caller));
  full_push_ = true;
  stale_.clear();
  stale_.reserve(fib_.size());
  std::set<std::string> protocols;
  fib_.table().ForEach(std::nullopt, std::nullopt, [&](const FibRoute& r) {
    stale_.insert(r.prefix);
    protocols.insert(r.protocol);
    return true;
  });
  // Routes an earlier FEA left in the kernel: their protocol is not known ("").
  if (fib_.stale_route_count() > 0) protocols.insert("");
  SLUICE_LOG(kInfo) << "full push started: " << stale_.size() + fib_.stale_route_count()
                    << " routes to be re-sent";
  pb::StartFullPushReply reply;
  reply.set_stale(static_cast<uint32_t>(stale_.size() + fib_.stale_route_count()));
  for (const std::string& p : protocols) reply.add_protocols(p);
  return reply;
}

absl::StatusOr<pb::CompleteFullPushReply> FeaFibService::CompleteFullPush(
    const ipc::Caller& caller) {
  RETURN_IF_ERROR(CheckFeeder("complete_full_push", caller));
  size_t removed = 0;
  if (full_push_) {
    full_push_ = false;
    absl::flat_hash_set<net::Prefix> stale = std::move(stale_);
    stale_.clear();
    if (!stale.empty()) {
      ASSIGN_OR_RETURN(TransactionId id, fib_.StartTransaction());
      for (const net::Prefix& prefix : stale) {
        absl::StatusOr<bool> queued = fib_.DeleteRouteIfPresent(id, prefix);
        if (!queued.ok()) {
          (void)fib_.Abort(id);
          return queued.status();
        }
      }
      ASSIGN_OR_RETURN(CommitResult result, fib_.Commit(id));
      removed += result.deleted;
    }
  }
  ASSIGN_OR_RETURN(size_t left_over, fib_.CompleteFullPush());
  removed += left_over;
  SLUICE_LOG(kInfo) << "full push complete: " << removed << " stale routes removed";
  pb::CompleteFullPushReply reply;
  reply.set_removed(static_cast<uint32_t>(removed));
  return reply;
}

}  // namespace sluice::fea
