#include "fea/service/fea_fib_service.h"

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "fea/service/fib_convert.h"
#include "ipc/methods/fea_fib.h"
#include "ipc/methods/fea_fib_client.h"
#include "ipc/proto/fea_fib.pb.h"
#include "ipc/proto/fea_fib_client.pb.h"
#include "ipc/types_convert.h"
#include "stage/route_arrival.h"

namespace sluice::fea {
namespace {

namespace pb = fea_fib::v1;
using Clock = std::chrono::steady_clock;

using ipc::methods::fea_fib::kAbortTransaction;
using ipc::methods::fea_fib::kAddRoute4;
using ipc::methods::fea_fib::kAddRoute6;
using ipc::methods::fea_fib::kCommitTransaction;
using ipc::methods::fea_fib::kDeleteAllRoutes;
using ipc::methods::fea_fib::kDeleteRoute4;
using ipc::methods::fea_fib::kDeleteRoute6;
using ipc::methods::fea_fib::kReplaceRoute4;
using ipc::methods::fea_fib::kReplaceRoute6;
using ipc::methods::fea_fib::kStartTransaction;
using ipc::methods::fea_fib::kSubscribeChanges;
using ipc::methods::fea_fib::kUnsubscribeChanges;
using ipc::methods::fea_fib_client::kFibChanges;

const char* OpName(FibOpKind kind) {
  return kind == FibOpKind::kAdd ? "add" : kind == FibOpKind::kReplace ? "replace" : "delete";
}

}  // namespace

FeaFibService::FeaFibService(boost::asio::io_context& io, ipc::XrlRouter& router, Fib& fib,
                             stage::Profiler& profiler, FeaFibServiceOptions options)
    : io_(io),
      router_(router),
      fib_(fib),
      options_(options),
      route_in_(profiler.Point("fea_route_in")),
      route_in_kernel_(profiler.Point("fea_route_in_kernel")) {}

FeaFibService::~FeaFibService() {
  if (fib_watcher_ != 0) fib_.RemoveWatcher(fib_watcher_);
}

std::string FeaFibService::Describe() const {
  std::string s = absl::StrCat("fea_fib/1.0: ", open_.size(), " open transactions, ", batches_,
                               " batches applied, ", subscribers_.size(), " change subscribers");
  if (full_push_) absl::StrAppend(&s, ", full push under way (", stale_.size(), " stale)");
  if (aborted_by_death_ + aborted_idle_ > 0) {
    absl::StrAppend(&s, ", aborted: ", aborted_by_death_, " (owner died) ", aborted_idle_,
                    " (idle)");
  }
  return s;
}

absl::Status FeaFibService::Touch(TransactionId id) {
  auto it = open_.find(id);
  if (it == open_.end()) return absl::NotFoundError(absl::StrCat("no open transaction ", id));
  it->second.last_used = Clock::now();
  return absl::OkStatus();
}

void FeaFibService::Fresh(const net::Prefix& prefix) {
  if (full_push_) stale_.erase(prefix);
}

absl::Status FeaFibService::QueueChange(TransactionId id, FibOpKind kind,
                                        absl::StatusOr<FibRoute> route) {
  RETURN_IF_ERROR(Touch(id));
  RETURN_IF_ERROR(route.status());
  const net::Prefix prefix = route->prefix;
  const bool profile_in = route_in_->enabled();
  const bool profile_kernel = route_in_kernel_->enabled();
  std::string text;
  if (profile_in || profile_kernel) text = absl::StrCat(OpName(kind), " ", prefix.ToString());
  if (profile_in) route_in_->Record(text);
  switch (kind) {
    case FibOpKind::kAdd:
      RETURN_IF_ERROR(fib_.AddRoute(id, *std::move(route)));
      break;
    case FibOpKind::kReplace:
      RETURN_IF_ERROR(fib_.ReplaceRoute(id, *std::move(route)));
      break;
    case FibOpKind::kDelete:
      RETURN_IF_ERROR(fib_.DeleteRoute(id, prefix));
      break;
  }
  Fresh(prefix);
  if (profile_kernel) open_[id].profiled.push_back(std::move(text));
  return absl::OkStatus();
}

absl::StatusOr<CommitResult> FeaFibService::CommitAndRecord(TransactionId id) {
  std::vector<std::string> profiled;
  if (auto it = open_.find(id); it != open_.end()) {
    profiled = std::move(it->second.profiled);
    open_.erase(it);
  }
  ASSIGN_OR_RETURN(CommitResult result, fib_.Commit(id));
  if (route_in_kernel_->enabled()) {
    for (const std::string& text : profiled) route_in_kernel_->Record(text);
  }
  return result;
}

void FeaFibService::WatchOwner(const std::string& owner) {
  if (owner.empty() || owners_.contains(owner)) return;
  owners_[owner] = router_.WatchInstance(owner, [this, owner](const ipc::TargetEvent& event) {
    if (event.kind == ipc::TargetEvent::kBirth) return;  // death, or gone before we watched
    const size_t aborted = fib_.AbortTransactionsOf(owner);
    std::vector<TransactionId> ids;
    for (const auto& [id, tx] : open_) {
      if (tx.owner == owner) ids.push_back(id);
    }
    for (TransactionId id : ids) open_.erase(id);
    if (aborted > 0) {
      aborted_by_death_ += aborted;
      SLUICE_LOG(kInfo) << owner << " died: aborted its " << aborted << " open transactions";
    }
  });
}

void FeaFibService::OnFibChanges(std::span<const FibChange> changes) {
  if (subscribers_.empty()) return;
  fea_fib_client::v1::FibChangesRequest request;
  for (const FibChange& change : changes) ChangeToProto(change, request.add_changes());
  for (const auto& [target, watch] : subscribers_) {
    router_.Call(
        target, kFibChanges, request,
        [this, target = target](absl::StatusOr<fea_fib_client::v1::FibChangesReply> reply) {
          if (reply.ok()) return;
          SLUICE_LOG(kWarning) << "fib_changes to " << target << ": " << reply.status();
          if (reply.status().code() == absl::StatusCode::kNotFound) {
            DropSubscriber(target);
          }
        });
  }
}

bool FeaFibService::DropSubscriber(const std::string& target) {
  auto it = subscribers_.find(target);
  if (it == subscribers_.end()) return false;
  router_.Unwatch(it->second);
  subscribers_.erase(it);
  if (subscribers_.empty() && fib_watcher_ != 0) {
    fib_.RemoveWatcher(fib_watcher_);  // the Fib builds change lists only while watched
    fib_watcher_ = 0;
  }
  return true;
}

void FeaFibService::ScheduleExpiry() {
  if (!expiry_) expiry_ = std::make_unique<boost::asio::steady_timer>(io_);
  auto period = std::max(options_.transaction_timeout / 4, std::chrono::milliseconds(10));
  expiry_->expires_after(period);
  expiry_->async_wait([this](const boost::system::error_code& error) {
    if (error) return;
    ExpireIdle();
    ScheduleExpiry();
  });
}

void FeaFibService::ExpireIdle() {
  const auto deadline = Clock::now() - options_.transaction_timeout;
  std::vector<TransactionId> idle;
  for (const auto& [id, tx] : open_) {
    if (tx.last_used < deadline) idle.push_back(id);
  }
  for (TransactionId id : idle) {
    open_.erase(id);
    if (fib_.Abort(id).ok()) {
      ++aborted_idle_;
      SLUICE_LOG(kWarning) << "transaction " << id << " idle for "
                           << options_.transaction_timeout.count() << " ms: aborted";
    }
  }
}

absl::Status FeaFibService::CheckBulk(std::string_view method, const ipc::Caller& caller) const {
  if (!caller.person()) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat(
      std::string(method), " feeds the FIB in bulk and is for a component (the RIB), not for ",
      caller.id(), "; people change the FIB in transactions"));
}

absl::Status FeaFibService::CheckFeeder(std::string_view method, const ipc::Caller& caller) {
  RETURN_IF_ERROR(CheckBulk(method, caller));
  if (feeder_class_.empty()) feeder_class_ = caller.class_name;
  if (caller.class_name != feeder_class_) {
    return absl::PermissionDeniedError(absl::StrCat(std::string(method),
                                                    ": the FIB is fed by class ", feeder_class_,
                                                    ", not by ", caller.id()));
  }
  return absl::OkStatus();
}

absl::Status FeaFibService::Register() {
  RETURN_IF_ERROR(RegisterTransactions());
  RETURN_IF_ERROR(RegisterChanges());
  RETURN_IF_ERROR(RegisterBatches());
  RETURN_IF_ERROR(RegisterFullPush());
  RETURN_IF_ERROR(RegisterQueries());
  RETURN_IF_ERROR(RegisterSubscribers());
  ScheduleExpiry();
  return absl::OkStatus();
}

absl::Status FeaFibService::RegisterTransactions() {
  RETURN_IF_ERROR(router_.Handle(
      kStartTransaction,
      [this](const pb::StartTransactionRequest& request,
             const ipc::Caller& caller) -> absl::StatusOr<pb::StartTransactionReply> {
        // A caller that names itself as the owner has its transactions aborted when it dies;
        // it cannot name anyone else.
        std::string owner;
        if (!request.owner().empty()) {
          ASSIGN_OR_RETURN(owner,
                           ipc::CallerAsTarget("start_transaction", request.owner(), caller));
        }
        ASSIGN_OR_RETURN(TransactionId id, fib_.StartTransaction(owner));
        open_[id] = OpenTransaction{owner, Clock::now(), {}};
        WatchOwner(owner);
        pb::StartTransactionReply reply;
        reply.set_tid(id);
        return reply;
      }));
  RETURN_IF_ERROR(router_.Handle(kCommitTransaction,
                                 [this](const pb::CommitTransactionRequest& request)
                                     -> absl::StatusOr<pb::CommitTransactionReply> {
                                   ASSIGN_OR_RETURN(CommitResult result,
                                                    CommitAndRecord(request.tid()));
                                   return CommitReply(result);
                                 }));
  RETURN_IF_ERROR(router_.Handle(kAbortTransaction,
                                 [this](const pb::AbortTransactionRequest& request)
                                     -> absl::StatusOr<pb::AbortTransactionReply> {
                                   open_.erase(request.tid());
                                   RETURN_IF_ERROR(fib_.Abort(request.tid()));
                                   return pb::AbortTransactionReply();
                                 }));
  return absl::OkStatus();
}

// One change per call, in a transaction.
absl::Status FeaFibService::RegisterChanges() {
  RETURN_IF_ERROR(router_.Handle(
      kAddRoute4, [this](const pb::AddRoute4Request& r) -> absl::StatusOr<pb::ChangeReply> {
        RETURN_IF_ERROR(QueueChange(r.tid(), FibOpKind::kAdd, RouteFromRequest(r)));
        return pb::ChangeReply();
      }));
  RETURN_IF_ERROR(router_.Handle(
      kAddRoute6, [this](const pb::AddRoute6Request& r) -> absl::StatusOr<pb::ChangeReply> {
        RETURN_IF_ERROR(QueueChange(r.tid(), FibOpKind::kAdd, RouteFromRequest(r)));
        return pb::ChangeReply();
      }));
  RETURN_IF_ERROR(router_.Handle(
      kReplaceRoute4, [this](const pb::AddRoute4Request& r) -> absl::StatusOr<pb::ChangeReply> {
        RETURN_IF_ERROR(QueueChange(r.tid(), FibOpKind::kReplace, RouteFromRequest(r)));
        return pb::ChangeReply();
      }));
  RETURN_IF_ERROR(router_.Handle(
      kReplaceRoute6, [this](const pb::AddRoute6Request& r) -> absl::StatusOr<pb::ChangeReply> {
        RETURN_IF_ERROR(QueueChange(r.tid(), FibOpKind::kReplace, RouteFromRequest(r)));
        return pb::ChangeReply();
      }));
  RETURN_IF_ERROR(router_.Handle(
      kDeleteRoute4, [this](const pb::DeleteRoute4Request& r) -> absl::StatusOr<pb::ChangeReply> {
        absl::StatusOr<FibRoute> route = FibRoute{};
        auto prefix = ipc::FromProto(r.network());
        if (prefix.ok())
          route->prefix = *prefix;
        else
          route = prefix.status();
        RETURN_IF_ERROR(QueueChange(r.tid(), FibOpKind::kDelete, std::move(route)));
        return pb::ChangeReply();
      }));
  RETURN_IF_ERROR(router_.Handle(
      kDeleteRoute6, [this](const pb::DeleteRoute6Request& r) -> absl::StatusOr<pb::ChangeReply> {
        absl::StatusOr<FibRoute> route = FibRoute{};
        auto prefix = ipc::FromProto(r.network());
        if (prefix.ok())
          route->prefix = *prefix;
        else
          route = prefix.status();
        RETURN_IF_ERROR(QueueChange(r.tid(), FibOpKind::kDelete, std::move(route)));
        return pb::ChangeReply();
      }));
  RETURN_IF_ERROR(router_.Handle(
      kDeleteAllRoutes,
      [this](const pb::DeleteAllRoutesRequest& r) -> absl::StatusOr<pb::ChangeReply> {
        RETURN_IF_ERROR(Touch(r.tid()));
        RETURN_IF_ERROR(fib_.DeleteAllRoutes(r.tid()));
        return pb::ChangeReply();
      }));
  return absl::OkStatus();
}

absl::Status FeaFibService::RegisterSubscribers() {
  RETURN_IF_ERROR(router_.Handle(
      kSubscribeChanges,
      [this](const pb::SubscribeChangesRequest& r,
             const ipc::Caller& caller) -> absl::StatusOr<pb::SubscribeChangesReply> {
        ASSIGN_OR_RETURN(const std::string target,
                         ipc::CallerAsTarget("subscribe_changes", r.target(), caller));
        if (subscribers_.contains(target)) return pb::SubscribeChangesReply();
        subscribers_[target] =
            router_.WatchInstance(target, [this, target](const ipc::TargetEvent& e) {
              if (e.kind == ipc::TargetEvent::kBirth) return;
              SLUICE_LOG(kInfo) << "change subscriber " << target << " died";
              DropSubscriber(target);
            });
        if (fib_watcher_ == 0) {
          fib_watcher_ = fib_.AddWatcher([this](std::span<const FibChange> c) { OnFibChanges(c); });
        }
        return pb::SubscribeChangesReply();
      }));
  RETURN_IF_ERROR(router_.Handle(
      kUnsubscribeChanges,
      [this](const pb::SubscribeChangesRequest& r,
             const ipc::Caller& caller) -> absl::StatusOr<pb::SubscribeChangesReply> {
        ASSIGN_OR_RETURN(const std::string target,
                         ipc::CallerAsTarget("unsubscribe_changes", r.target(), caller));
        if (!DropSubscriber(target)) {
          return absl::NotFoundError(absl::StrCat(target, " is not subscribed"));
        }
        return pb::SubscribeChangesReply();
      }));
  return absl::OkStatus();
}

void FeaFibService::ObserveArrival(uint64_t arrival_ns) {
  if (arrival_ns == 0) return;  // a batch of no UPDATE's (a re-send), or from an old sender
  route_latency_.ObserveNs(stage::MonotonicNowNs() - static_cast<int64_t>(arrival_ns));
}

}  // namespace sluice::fea
