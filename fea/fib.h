#pragma once
// Fib: the FEA's forwarding table (XORP fea/fibconfig, NSDI'05 §3) — the part of the FEA the
// RIB talks to. It holds the table, validates every change against the interface tree, groups
// changes into transactions, drives a FibBackend (dummy or netlink) and tells watchers what
// changed. Single-threaded: every method runs on the FEA's event loop (the RPC layer posts
// calls to it).
//
// Transactions (atomic from the caller's view):
//   id = StartTransaction(owner);
//   AddRoute(id, route) / ReplaceRoute(id, route) / DeleteRoute(id, prefix) / DeleteAllRoutes(id)
//   Commit(id)  or  Abort(id)
// Each queued change is checked at once against the FIB as the transaction would leave it
// (add: the prefix must be absent; replace, delete: present) and against the interfaces
// (fea/route_validator.h). A change that fails returns the error and poisons the transaction:
// its Commit then fails with that first error and changes nothing. The transaction keeps only
// the net effect per prefix.
//
// At commit, what may have changed since is checked again: when another transaction committed
// meanwhile, that each prefix a change depended on is still present or absent as this one
// found it (else AlreadyExists or NotFound: the first commit wins; a set depends on nothing);
// when an interface changed, every route.
// Then the net changes go to the backend. When it refuses some (the kernel's errno), Commit
// undoes the ones already applied and fails with a message naming the first refused route and
// the reason; the FIB is as before. If an undo itself fails, the message says which changes
// stayed, and the table (and the watchers) reflect them: nothing is left half-applied without
// being reported. Commit runs to completion on the loop (its cost per route:
// bench/fea/fib_install_bench).
//
// Lookups and listing answer from the table: what the control plane installed and the backend
// accepted; they return copies.
//
// Watchers receive the net changes of each committed transaction, in order, after the table is
// updated.
//
// Interfaces: when an interface comes up (enabled with carrier) after being down, the Fib
// installs again the routes that go out through it, because Linux drops such routes when the
// interface goes down without telling anyone.
//
// Crash recovery: routes an earlier run left in the forwarding plane are kept (stale) until
// CompleteFullPush() — called when the RIB has re-sent its whole table, or by a timer in the
// process — deletes those not added again.

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fea/fib_backend.h"
#include "fea/fib_route.h"
#include "fea/fib_table.h"
#include "fea/ifmgr.h"
#include "fea/watcher_list.h"
#include "net/prefix.h"

namespace sluice::fea {

using TransactionId = uint32_t;

// One net change of a committed transaction, as watchers see it.
struct FibChange {
  FibOpKind kind;
  FibRoute route;                // add, replace: the new route; delete: the route removed
  std::optional<FibRoute> old;   // replace: the route replaced
  std::string ToString() const;  // "add 10.0.0.0/8 via 192.0.2.1"
};

struct CommitResult {
  size_t added = 0;
  size_t replaced = 0;
  size_t deleted = 0;
};

struct FibOptions {
  size_t max_open_transactions = 64;         // StartTransaction fails with ResourceExhausted
  size_t max_ops_per_transaction = 4000000;  // a change beyond fails with ResourceExhausted
};

class Fib {
 public:
  using Watcher = std::function<void(std::span<const FibChange>)>;

  // `ifmgr` must outlive the Fib; its tree validates routes and names their interfaces.
  Fib(IfMgr& ifmgr, std::unique_ptr<FibBackend> backend, FibOptions options = {});
  ~Fib();
  Fib(const Fib&) = delete;
  Fib& operator=(const Fib&) = delete;

  // Starts the backend (netlink: opens the kernel channel and finds stale routes).
  absl::Status Start();
  // Removes every route from the forwarding plane (netlink: all routes of Sluice's protocol in
  // its table), empties the table and aborts open transactions; later calls fail.
  absl::Status Shutdown();

  // --- transactions -----------------------------------------------------------------------
  // `owner` names the caller (e.g. the RIB's instance name) for AbortTransactionsOf.
  // `expected_changes`, when the caller knows it (a batch's size), sizes the transaction's
  // storage once instead of as it grows (up to max_ops_per_transaction).
  // Errors: ResourceExhausted (too many open), FailedPrecondition (shut down).
  absl::StatusOr<TransactionId> StartTransaction(std::string owner = "",
                                                 size_t expected_changes = 0);
  // Errors (all name the route): NotFound (no such transaction), AlreadyExists (add of a
  // prefix present), NotFound (replace or delete of an absent one), InvalidArgument and
  // FailedPrecondition from route validation, FailedPrecondition (the transaction already
  // failed), ResourceExhausted.
  absl::Status AddRoute(TransactionId id, FibRoute route);
  absl::Status ReplaceRoute(TransactionId id, FibRoute route);
  absl::Status DeleteRoute(TransactionId id, const net::Prefix& prefix);
  // For a client re-sending its whole FIB (fea_fib/1.0/apply_batch): SetRoute adds the route,
  // or replaces the route of a prefix that is present; DeleteRouteIfPresent deletes a present
  // prefix and returns true, or returns false and queues nothing when it is absent. Other
  // errors as above.
  absl::Status SetRoute(TransactionId id, FibRoute route);
  absl::StatusOr<bool> DeleteRouteIfPresent(TransactionId id, const net::Prefix& prefix);
  // Deletes every route present when the transaction commits (changes queued after it apply
  // on top).
  absl::Status DeleteAllRoutes(TransactionId id);
  // Applies the transaction and closes it (also when it fails). See the header comment.
  absl::StatusOr<CommitResult> Commit(TransactionId id);
  // Drops the transaction. Errors: NotFound.
  absl::Status Abort(TransactionId id);
  // Drops every open transaction of `owner` (when the Finder reports its death); returns how
  // many.
  size_t AbortTransactionsOf(std::string_view owner);
  size_t open_transactions() const { return transactions_.size(); }

  // --- queries ----------------------------------------------------------------------------
  std::optional<FibRoute> LookupByDestination(const net::IPAddress& destination) const {
    return table_.LongestMatch(destination);
  }
  std::optional<FibRoute> LookupByPrefix(const net::Prefix& prefix) const {
    return table_.Find(prefix);
  }
  const FibTable& table() const { return table_; }
  size_t size() const { return table_.size(); }
  // Route changes the backend refused since the FIB was made (each failed its transaction).
  uint64_t refused_changes() const { return refused_changes_; }

  // --- watchers ---------------------------------------------------------------------------
  WatcherId AddWatcher(Watcher watcher);
  bool RemoveWatcher(WatcherId id) { return watchers_.Remove(id); }

  // --- crash recovery ---------------------------------------------------------------------
  size_t stale_route_count() const { return backend_->stale_route_count(); }
  // Deletes stale routes not added again; returns how many.
  absl::StatusOr<size_t> CompleteFullPush() { return backend_->RemoveStaleRoutes(); }

  FibBackend& backend() { return *backend_; }

 private:
  enum class OpKind { kAdd, kReplace, kSet, kDelete, kDeleteIfPresent, kDeleteAll };
  // A transaction keeps, per prefix it touches, the state its changes lead to.
  struct Slot {
    net::Prefix prefix;
    bool initial_present;           // in the FIB when the transaction first touched it...
    bool check_initial;             // ...known: not first touched by a set, nor after a
                                    // DeleteAllRoutes. Rechecked at commit.
    bool present;                   // after the changes queued so far
    std::optional<FibRoute> route;  // the route when present
  };
  struct Transaction {
    std::string owner;
    std::vector<Slot> slots;  // in order of first touch
    absl::flat_hash_map<net::Prefix, size_t> slot_of;
    bool deletes_all = false;
    size_t changes = 0;
    uint64_t table_generation = 0;      // table_generation_ at StartTransaction
    uint64_t interface_generation = 0;  // interface_generation_ at StartTransaction
    absl::Status error;                 // the first error: the transaction is poisoned
  };

  // The net changes a transaction's slots made to the table, for the backend.
  struct NetOps {
    std::vector<FibOp> ops;
    std::deque<FibRoute> olds;  // copies of the table's routes that ops replaced or deleted
  };

  absl::StatusOr<Transaction*> Find(TransactionId id);
  // Writes the slots' final state into the table and returns the net changes that made.
  NetOps ApplyToTable(const Transaction& tx);
  // Takes `op` (from ApplyToTable) back out of the table.
  void RevertInTable(const FibOp& op);
  // `skipped` (kDeleteIfPresent): set when the prefix was absent and nothing was queued.
  absl::Status Queue(TransactionId id, OpKind kind, FibRoute route, bool* skipped = nullptr);
  // Checks, at commit, what may have changed since the changes were queued.
  absl::Status Recheck(const Transaction& tx) const;
  void OnInterfaceEvent(const InterfaceEvent& event);
  void Notify(std::vector<FibChange> changes);

  IfMgr& ifmgr_;
  std::unique_ptr<FibBackend> backend_;
  FibOptions options_;
  FibTable table_;
  absl::flat_hash_map<TransactionId, Transaction> transactions_;
  TransactionId next_id_ = 1;
  bool shut_down_ = false;
  WatcherId ifmgr_watcher_ = 0;
  absl::flat_hash_map<uint32_t, bool> interface_up_;  // by index, as last seen
  uint64_t table_generation_ = 0;                     // +1 whenever the table changes
  uint64_t refused_changes_ = 0;
  uint64_t interface_generation_ = 0;  // +1 on every interface event
  WatcherList<std::span<const FibChange>> watchers_;
};

}  // namespace sluice::fea
