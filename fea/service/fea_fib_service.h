#pragma once
// FeaFibService: fea_fib/1.0 (ipc/proto/fea_fib.proto) over the FEA's Fib (fea/fib.h), and the
// calls to subscribers' fea_fib_client/1.0. A thin adapter in GoBGP's style: every handler runs
// on the FEA's event loop (the XrlRouter posts calls there) and makes one or a few Fib calls.
//
// Transactions: start_transaction (optionally naming its owner), add/replace/delete, commit or
// abort — Fib's own transactions. An owner named in start_transaction is watched through the
// Finder; when it dies, its open transactions are aborted. Any transaction left idle for
// `transaction_timeout` is aborted too (a script that died halfway).
//
// apply_batch is start + changes + commit in one call, for the RIB: an ADD of a prefix present
// replaces it, a DELETE of an absent one is skipped (FibClient contract, rib/fib_client.h).
// apply_batch_packed is the same with the changes in columns (the RIB's bulk path).
//
// Full push (crash recovery, both ways): start_full_push marks every route of the FIB stale;
// routes added or replaced afterwards are fresh again; complete_full_push deletes the stale
// routes still there and the routes an earlier FEA left in the forwarding plane
// (Fib::CompleteFullPush). Without start_full_push, complete_full_push does only the latter.
//
// Change subscribers (subscribe_changes): after each commit, the net changes go to every
// subscriber's fea_fib_client/1.0/fib_changes, in commit order; a subscriber that dies is
// dropped.
//
// Profiling points (stage/profile.h), text "<add|replace|delete> <prefix>":
//   fea_route_in         each route change as it arrives;
//   fea_route_in_kernel  each change once the forwarding plane accepted it (commit succeeded).
//
// Route latency (always on): a batch that carries `arrival_ns` (when its oldest change's UPDATE
// reached sluice-bgp, CLOCK_MONOTONIC) adds now - arrival to a histogram once committed
// (stage/latency_histogram.h); get_stats returns it.

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fea/fib.h"
#include "ipc/caller.h"
#include "ipc/xrl_router.h"
#include "stage/latency_histogram.h"
#include "stage/profile.h"

namespace sluice::fea_fib::v1 {
class ApplyBatchRequest;
class ApplyBatchPackedRequest;
class CommitTransactionReply;
class StartFullPushReply;
class CompleteFullPushReply;
}  // namespace sluice::fea_fib::v1

namespace sluice::fea {

struct FeaFibServiceOptions {
  // Open transactions idle this long are aborted (checked every timeout/4).
  std::chrono::milliseconds transaction_timeout{std::chrono::seconds(60)};
};

class FeaFibService {
 public:
  FeaFibService(boost::asio::io_context& io, ipc::XrlRouter& router, Fib& fib,
                stage::Profiler& profiler, FeaFibServiceOptions options = {});
  ~FeaFibService();
  FeaFibService(const FeaFibService&) = delete;
  FeaFibService& operator=(const FeaFibService&) = delete;

  // Adds the handlers; call before router.Start().
  absl::Status Register();

  // One line for describe_plumbing: transactions, subscribers, full push state.
  std::string Describe() const;
  size_t subscriber_count() const { return subscribers_.size(); }

 private:
  struct OpenTransaction {
    std::string owner;
    std::chrono::steady_clock::time_point last_used;
    // "<op> <prefix>" of each change, kept only while fea_route_in_kernel is enabled.
    std::vector<std::string> profiled;
  };

  // The handlers of Register, by group (fea_fib_service.cc, fea_fib_service_bulk.cc,
  // fea_fib_service_query.cc).
  absl::Status RegisterTransactions();  // start/commit/abort_transaction
  absl::Status RegisterChanges();       // add/replace/delete_route4/6, delete_all_routes
  absl::Status RegisterBatches();       // apply_batch, apply_batch_packed
  absl::Status RegisterFullPush();      // start_full_push, complete_full_push
  absl::Status RegisterQueries();       // lookup_route_by_*, list_routes, get_stats
  absl::Status RegisterSubscribers();   // subscribe_changes, unsubscribe_changes

  // The bulk handlers (the RIB's path); errors as fea_fib.proto says.
  absl::StatusOr<fea_fib::v1::CommitTransactionReply> ApplyBatch(
      const fea_fib::v1::ApplyBatchRequest& request, const ipc::Caller& caller);
  absl::StatusOr<fea_fib::v1::CommitTransactionReply> ApplyBatchPacked(
      const fea_fib::v1::ApplyBatchPackedRequest& request, const ipc::Caller& caller);
  absl::StatusOr<fea_fib::v1::StartFullPushReply> StartFullPush(const ipc::Caller& caller);
  absl::StatusOr<fea_fib::v1::CompleteFullPushReply> CompleteFullPush(const ipc::Caller& caller);

  absl::Status Touch(TransactionId id);
  // Queues one flat-argument change (add/replace/delete_route4/6) on transaction `id`.
  absl::Status QueueChange(TransactionId id, FibOpKind kind, absl::StatusOr<FibRoute> route);
  absl::StatusOr<CommitResult> CommitAndRecord(TransactionId id);
  void WatchOwner(const std::string& owner);
  void OnFibChanges(std::span<const FibChange> changes);
  // Returns false when `target` was not subscribed.
  bool DropSubscriber(const std::string& target);
  void Fresh(const net::Prefix& prefix);
  // A batch committed: its age since `arrival_ns` (CLOCK_MONOTONIC, 0 unknown) into
  // route_latency_.
  void ObserveArrival(uint64_t arrival_ns);
  void ScheduleExpiry();
  void ExpireIdle();

  boost::asio::io_context& io_;
  ipc::XrlRouter& router_;
  Fib& fib_;
  FeaFibServiceOptions options_;
  stage::ProfilePoint* route_in_;
  stage::ProfilePoint* route_in_kernel_;

  absl::flat_hash_map<TransactionId, OpenTransaction> open_;
  absl::flat_hash_map<std::string, ipc::WatchId> owners_;  // watched transaction owners
  absl::flat_hash_map<std::string, ipc::WatchId> subscribers_;
  WatcherId fib_watcher_ = 0;

  // Whether `caller` may change the FIB in bulk (apply_batch): a component, not a person.
  // Errors: PermissionDenied.
  absl::Status CheckBulk(std::string_view method, const ipc::Caller& caller) const;
  // Whether `caller` may make a full push (which ends by sweeping what was not re-sent): a
  // component of the class that made the first one (the RIB) — bound to the authenticated
  // caller, so nobody else can make the FEA sweep the FIB. Errors: PermissionDenied.
  absl::Status CheckFeeder(std::string_view method, const ipc::Caller& caller);
  std::string feeder_class_;                // the class that made the first full push
  bool full_push_ = false;                  // between start and complete_full_push
  absl::flat_hash_set<net::Prefix> stale_;  // routes not re-sent yet in the full push

  std::unique_ptr<boost::asio::steady_timer> expiry_;
  uint64_t batches_ = 0;
  // Route latency, BGP in -> FIB committed (get_stats route_latency).
  stage::LatencyHistogram route_latency_;
  uint64_t aborted_by_death_ = 0;
  uint64_t aborted_idle_ = 0;
};

}  // namespace sluice::fea
