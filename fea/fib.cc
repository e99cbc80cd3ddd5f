#include "fea/fib.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "fea/route_validator.h"

namespace sluice::fea {

namespace {

std::string OpText(FibOpKind kind, const FibRoute& route) {
  return absl::StrCat(std::string(FibOpKindName(kind)), " ", route.ToString());
}

absl::Status Prefixed(const absl::Status& s, const std::string& prefix) {
  return absl::Status(s.code(), absl::StrCat(prefix, s.message()));
}

// True when `route` leaves through `interface`.
bool Uses(const FibRoute& route, const Interface& interface) {
  for (const Nexthop& nh : route.nexthops) {
    if (nh.interface == interface.name) return true;
    if (nh.interface.empty() && nh.gateway.has_value() && interface.IsConnected(*nh.gateway)) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::string FibChange::ToString() const { return OpText(kind, route); }

Fib::Fib(IfMgr& ifmgr, std::unique_ptr<FibBackend> backend, FibOptions options)
    : ifmgr_(ifmgr), backend_(std::move(backend)), options_(options) {
  for (const Interface* i : ifmgr_.tree().interfaces()) interface_up_[i->index] = i->up();
  ifmgr_watcher_ = ifmgr_.AddWatcher([this](const InterfaceEvent& e) { OnInterfaceEvent(e); });
}

Fib::~Fib() { ifmgr_.RemoveWatcher(ifmgr_watcher_); }

absl::Status Fib::Start() { return backend_->Start(); }

absl::Status Fib::Shutdown() {
  if (shut_down_) return absl::OkStatus();
  shut_down_ = true;
  transactions_.clear();
  table_.Clear();
  ++table_generation_;
  return backend_->Shutdown();
}

WatcherId Fib::AddWatcher(Watcher watcher) {
  return watchers_.Add(
      [w = std::move(watcher)](const std::span<const FibChange>& changes) { w(changes); });
}

absl::StatusOr<TransactionId> Fib::StartTransaction(std::string owner, size_t expected_changes) {
  if (shut_down_) return absl::FailedPreconditionError("the FIB is shut down");
  if (transactions_.size() >= options_.max_open_transactions) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "too many open transactions (", transactions_.size(), "); commit or abort some first"));
  }
  TransactionId id = next_id_++;
  if (next_id_ == 0) next_id_ = 1;
  Transaction& tx = transactions_[id];
  tx.owner = std::move(owner);
  tx.table_generation = table_generation_;
  tx.interface_generation = interface_generation_;
  const size_t reserve = std::min(expected_changes, options_.max_ops_per_transaction);
  tx.slots.reserve(reserve);
  tx.slot_of.reserve(reserve);
  return id;
}

absl::StatusOr<Fib::Transaction*> Fib::Find(TransactionId id) {
  auto it = transactions_.find(id);
  if (it == transactions_.end()) {
    return absl::NotFoundError(absl::StrCat("no open transaction ", id));
  }
  return &it->second;
}

absl::Status Fib::Queue(TransactionId id, OpKind kind, FibRoute route, bool* skipped) {
  ASSIGN_OR_RETURN(Transaction * tx, Find(id));
  if (!tx->error.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("transaction ", id, " already failed (", tx->error.message(), "); abort it"));
  }
  absl::Status status;
  if (tx->changes >= options_.max_ops_per_transaction) {
    status = absl::ResourceExhaustedError(
        absl::StrCat("transaction ", id, " holds ", tx->changes, " changes, the most allowed"));
  } else if (kind == OpKind::kDeleteAll) {
    tx->deletes_all = true;
    for (Slot& s : tx->slots) {
      s.present = false;
      s.route.reset();
    }
  } else {
    const net::Prefix prefix = route.prefix;
    auto [it, inserted] = tx->slot_of.try_emplace(prefix, tx->slots.size());
    if (inserted) {
      // A set leaves the prefix present whether it was or not: it needs no lookup now, and the
      // commit finds what it replaces. The other changes depend on whether it is there.
      const bool looked_up = kind != OpKind::kSet;
      const bool in_table = looked_up && table_.Contains(prefix);
      tx->slots.push_back(Slot{prefix, in_table, looked_up && !tx->deletes_all,
                               in_table && !tx->deletes_all, std::nullopt});
    }
    Slot& slot = tx->slots[it->second];
    if (kind == OpKind::kSet) kind = slot.present ? OpKind::kReplace : OpKind::kAdd;
    if (kind == OpKind::kDeleteIfPresent) {
      if (!slot.present) {
        // Nothing queued: a slot made just now only records that the prefix was absent, which
        // no later commit needs to recheck.
        if (inserted) slot.check_initial = false;
        if (skipped != nullptr) *skipped = true;
        return absl::OkStatus();
      }
      kind = OpKind::kDelete;
    }
    if (kind == OpKind::kAdd && slot.present) {
      status =
          absl::AlreadyExistsError(absl::StrCat("add ", route.ToString(), ": ", prefix.ToString(),
                                                " is already in the FIB (use replace)"));
    } else if (kind == OpKind::kReplace && !slot.present) {
      status = absl::NotFoundError(absl::StrCat("replace ", route.ToString(), ": ",
                                                prefix.ToString(), " is not in the FIB"));
    } else if (kind == OpKind::kDelete && !slot.present) {
      status = absl::NotFoundError(absl::StrCat("delete ", prefix.ToString(), ": not in the FIB"));
    } else if (kind != OpKind::kDelete) {
      status = ValidateRoute(route, ifmgr_.tree());
    }
    if (status.ok()) {
      slot.present = kind != OpKind::kDelete;
      if (slot.present) {
        slot.route = std::move(route);
      } else {
        slot.route.reset();
      }
    }
  }
  if (!status.ok()) {
    tx->error = status;
    return status;
  }
  ++tx->changes;
  return absl::OkStatus();
}

absl::Status Fib::AddRoute(TransactionId id, FibRoute route) {
  return Queue(id, OpKind::kAdd, std::move(route));
}

absl::Status Fib::ReplaceRoute(TransactionId id, FibRoute route) {
  return Queue(id, OpKind::kReplace, std::move(route));
}

absl::Status Fib::DeleteRoute(TransactionId id, const net::Prefix& prefix) {
  FibRoute route;
  route.prefix = prefix;
  return Queue(id, OpKind::kDelete, std::move(route));
}

absl::Status Fib::SetRoute(TransactionId id, FibRoute route) {
  return Queue(id, OpKind::kSet, std::move(route));
}

absl::StatusOr<bool> Fib::DeleteRouteIfPresent(TransactionId id, const net::Prefix& prefix) {
  FibRoute route;
  route.prefix = prefix;
  bool skipped = false;
  RETURN_IF_ERROR(Queue(id, OpKind::kDeleteIfPresent, std::move(route), &skipped));
  return !skipped;
}

absl::Status Fib::DeleteAllRoutes(TransactionId id) {
  return Queue(id, OpKind::kDeleteAll, FibRoute{});
}

absl::Status Fib::Abort(TransactionId id) {
  if (transactions_.erase(id) == 0) {
    return absl::NotFoundError(absl::StrCat("no open transaction ", id));
  }
  return absl::OkStatus();
}

size_t Fib::AbortTransactionsOf(std::string_view owner) {
  std::vector<TransactionId> ids;
  for (const auto& [id, tx] : transactions_) {
    if (tx.owner == owner) ids.push_back(id);
  }
  for (TransactionId id : ids) transactions_.erase(id);
  return ids.size();
}

absl::Status Fib::Recheck(const Transaction& tx) const {
  if (tx.table_generation != table_generation_) {
    for (const Slot& s : tx.slots) {
      if (!s.check_initial) continue;
      bool now = table_.Contains(s.prefix);
      if (now && !s.initial_present) {
        return absl::AlreadyExistsError(
            absl::StrCat(s.prefix.ToString(),
                         " was added to the FIB by a transaction committed since this one "
                         "first changed it"));
      }
      if (!now && s.initial_present) {
        return absl::NotFoundError(
            absl::StrCat(s.prefix.ToString(),
                         " was deleted from the FIB by a transaction committed since this one "
                         "first changed it"));
      }
    }
  }
  if (tx.interface_generation != interface_generation_) {
    for (const Slot& s : tx.slots) {
      if (s.present) RETURN_IF_ERROR(ValidateRoute(*s.route, ifmgr_.tree()));
    }
  }
  return absl::OkStatus();
}

Fib::NetOps Fib::ApplyToTable(const Transaction& tx) {
  NetOps net;
  net.ops.reserve(tx.slots.size());
  for (const Slot& s : tx.slots) {
    std::optional<FibRoute> found = s.present ? table_.Exchange(*s.route) : table_.Take(s.prefix);
    const FibRoute* old = found.has_value() ? &net.olds.emplace_back(*std::move(found)) : nullptr;
    if (!s.present) {
      if (old != nullptr) net.ops.push_back(FibOp{FibOpKind::kDelete, old});
    } else if (old == nullptr) {
      net.ops.push_back(FibOp{FibOpKind::kAdd, &*s.route});
    } else if (!(*old == *s.route)) {
      net.ops.push_back(FibOp{FibOpKind::kReplace, &*s.route, old});
    }
  }
  if (!net.ops.empty()) ++table_generation_;
  return net;
}

void Fib::RevertInTable(const FibOp& op) {
  switch (op.kind) {
    case FibOpKind::kAdd:
      table_.Erase(op.route->prefix);
      break;
    case FibOpKind::kDelete:
      table_.Set(*op.route);
      break;
    case FibOpKind::kReplace:
      table_.Set(*op.old);
      break;
  }
}

absl::StatusOr<CommitResult> Fib::Commit(TransactionId id) {
  ASSIGN_OR_RETURN(Transaction * found, Find(id));
  Transaction tx = std::move(*found);
  transactions_.erase(id);
  const std::string name = absl::StrCat("transaction ", id, " not committed, FIB unchanged: ");
  if (!tx.error.ok()) return Prefixed(tx.error, name);
  RETURN_IF_ERROR(Prefixed(Recheck(tx), name));
  if (tx.deletes_all) {
    table_.ForEach(std::nullopt, std::nullopt, [&](const FibRoute& r) {
      if (!tx.slot_of.contains(r.prefix)) {
        tx.slots.push_back(Slot{r.prefix, true, false, false, std::nullopt});
      }
      return true;
    });
  }
  // The table takes every change now (one walk per prefix); those the backend refuses, or
  // that are undone, go back out of it below.
  NetOps net = ApplyToTable(tx);
  std::vector<FibOp>& ops = net.ops;
  std::vector<absl::Status> results(ops.size());
  backend_->Apply(ops, ifmgr_.tree(), results);

  // On refusals, undo what was applied, newest first.
  std::vector<bool> in_effect(ops.size(), true);
  std::string failure;
  absl::StatusCode code = absl::StatusCode::kOk;
  size_t refused = 0;
  std::vector<size_t> applied;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (results[i].ok()) {
      applied.push_back(i);
      continue;
    }
    in_effect[i] = false;
    if (refused++ == 0) {
      code = results[i].code();
      failure = absl::StrCat("the ", std::string(backend_->name()), " backend refused ",
                             OpText(ops[i].kind, *ops[i].route), ": ", results[i].message());
    }
  }
  std::string undo_report;
  refused_changes_ += refused;
  if (refused > 0) {
    std::vector<FibOp> undo;
    undo.reserve(applied.size());
    for (auto it = applied.rbegin(); it != applied.rend(); ++it) {
      const FibOp& op = ops[*it];
      switch (op.kind) {
        case FibOpKind::kAdd:
          undo.push_back(FibOp{FibOpKind::kDelete, op.route});
          break;
        case FibOpKind::kDelete:
          undo.push_back(FibOp{FibOpKind::kAdd, op.route});
          break;
        case FibOpKind::kReplace:
          undo.push_back(FibOp{FibOpKind::kReplace, op.old, op.route});
          break;
      }
    }
    std::vector<absl::Status> undo_results(undo.size());
    backend_->Apply(undo, ifmgr_.tree(), undo_results);
    size_t stayed = 0;
    for (size_t k = 0; k < undo.size(); ++k) {
      size_t i = applied[applied.size() - 1 - k];
      if (undo_results[k].ok()) {
        in_effect[i] = false;
        continue;
      }
      if (stayed++ < 10) {
        absl::StrAppend(&undo_report, stayed == 1 ? "" : "; ", OpText(ops[i].kind, *ops[i].route),
                        " (undo failed: ", undo_results[k].message(), ")");
      }
    }
    if (stayed == 0) {
      undo_report = absl::StrCat("; the ", applied.size(), " changes already applied were undone");
    } else {
      undo_report = absl::StrCat("; ", stayed, " of the ", applied.size(),
                                 " changes already applied could not be undone and stay in "
                                 "the FIB: ",
                                 undo_report, stayed > 10 ? "; ..." : "");
    }
  }

  // The table keeps what is in effect; watchers hear of it.
  CommitResult result;
  std::vector<FibChange> changes;
  bool watched = watchers_.size() > 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    const FibOp& op = ops[i];
    if (!in_effect[i]) {
      RevertInTable(op);
      continue;
    }
    if (watched) {
      changes.push_back(
          FibChange{op.kind, *op.route, op.old ? std::optional<FibRoute>(*op.old) : std::nullopt});
    }
    switch (op.kind) {
      case FibOpKind::kAdd:
        ++result.added;
        break;
      case FibOpKind::kReplace:
        ++result.replaced;
        break;
      case FibOpKind::kDelete:
        ++result.deleted;
        break;
    }
  }
  if (!changes.empty()) Notify(std::move(changes));

  if (refused > 0) {
    std::string more =
        refused > 1 ? absl::StrCat(" (and ", refused - 1, " more changes were refused)") : "";
    std::string head = undo_report.find("could not be undone") == std::string::npos
                           ? absl::StrCat("transaction ", id, " not committed, FIB unchanged: ")
                           : absl::StrCat("transaction ", id, " not committed: ");
    return absl::Status(code, absl::StrCat(head, failure, more, undo_report));
  }
  return result;
}

void Fib::Notify(std::vector<FibChange> changes) {
  std::span<const FibChange> view(changes);
  watchers_.Notify(view);
}

void Fib::OnInterfaceEvent(const InterfaceEvent& e) {
  ++interface_generation_;
  const Interface& i = e.interface;
  if (e.kind == InterfaceEventKind::kInterfaceRemoved) {
    interface_up_.erase(i.index);
    return;
  }
  bool& was_up = interface_up_[i.index];
  bool now_up = i.up();
  bool came_up = now_up && !was_up;
  was_up = now_up;
  if (!came_up || shut_down_ || table_.size() == 0) return;
  // Linux dropped the routes through this interface when it went down: install them again.
  std::vector<FibRoute> routes;
  table_.ForEach(std::nullopt, std::nullopt, [&](const FibRoute& r) {
    if (Uses(r, i)) routes.push_back(r);
    return true;
  });
  if (routes.empty()) return;
  std::vector<FibOp> ops;
  ops.reserve(routes.size());
  for (const FibRoute& r : routes) ops.push_back(FibOp{FibOpKind::kReplace, &r, &r});
  std::vector<absl::Status> results(ops.size());
  backend_->Apply(ops, ifmgr_.tree(), results);
  size_t failed = 0;
  for (size_t k = 0; k < results.size(); ++k) {
    if (!results[k].ok() && failed++ < 5) {
      SLUICE_LOG(kWarning) << "interface " << i.name << " came up: re-installing "
                           << routes[k].ToString() << " failed: " << results[k].message();
    }
  }
  SLUICE_LOG(kInfo) << "interface " << i.name << " came up: re-installed " << routes.size() - failed
                    << " of " << routes.size() << " routes";
}

}  // namespace sluice::fea
