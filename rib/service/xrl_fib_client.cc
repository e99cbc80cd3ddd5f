#include "rib/service/xrl_fib_client.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "ipc/methods/fea_fib.h"
#include "ipc/proto/fea_fib.pb.h"
#include "rib/service/rib_convert.h"

namespace sluice::rib {
namespace {

namespace pb = fea_fib::v1;
using ipc::methods::fea_fib::kApplyBatchPacked;
using ipc::methods::fea_fib::kCompleteFullPush;
using ipc::methods::fea_fib::kStartFullPush;

}  // namespace

XrlFibClient::XrlFibClient(boost::asio::io_context& io, ipc::XrlRouter& router, FullPushGate& gate)
    : io_(io), router_(router), gate_(gate) {
  gate_.WhenOpen([this, alive = std::weak_ptr<bool>(alive_)] {
    if (!alive.expired()) MaybeComplete();
  });
}

XrlFibClient::~XrlFibClient() = default;

std::string XrlFibClient::Describe() const {
  const std::string who = !fea_.empty() ? fea_ : name_.empty() ? "(none)" : name_ + " (down)";
  return absl::StrCat("FEA ", who, ": ", stats_.batches, " batches (", stats_.changes,
                      " changes) sent, ", stats_.failed, " failed, ", stats_.full_pushes,
                      " full pushes (", stats_.stale_removed, " stale routes removed)");
}

void XrlFibClient::SendBatch(FibBatch batch, std::function<void(absl::Status)> done) {
  pb::ApplyBatchPackedRequest request;
  FibBatchToPacked(batch, &request);
  request.set_arrival_ns(static_cast<uint64_t>(batch.arrival_ns));
  ++stats_.batches;
  stats_.changes += batch.changes.size();
  if (fea_.empty()) {
    // FeaOutStage sends only while the FEA is up; answer later all the same, as promised.
    boost::asio::post(io_, [done = std::move(done)] { done(absl::UnavailableError("no FEA")); });
    return;
  }
  router_.Call(fea_, kApplyBatchPacked, std::move(request),
               [this, done = std::move(done)](absl::StatusOr<pb::CommitTransactionReply> reply) {
                 if (!reply.ok()) ++stats_.failed;
                 done(reply.status());
               });
}

void XrlFibClient::FeaBorn(const std::string& instance) {
  fea_ = instance;
  name_ = instance;
  BeginFullPush();
}

void XrlFibClient::BeginFullPush() {
  if (fea_.empty()) return;
  const std::string instance = fea_;
  ++generation_;
  done_[0] = done_[1] = false;
  started_ = false;
  router_.Call(
      fea_, kStartFullPush, pb::StartFullPushRequest(),
      [this, instance, generation = generation_](absl::StatusOr<pb::StartFullPushReply> reply) {
        if (generation != generation_) return;
        if (!reply.ok()) {
          SLUICE_LOG(kWarning) << "start_full_push to " << instance << ": " << reply.status();
          started_ = true;  // the gate's timer decides
          MaybeComplete();
          return;
        }
        if (reply->stale() > 0) {
          SLUICE_LOG(kInfo) << instance << " holds " << reply->stale()
                            << " routes: re-sending the FIB";
        }
        started_ = true;
        gate_.Expect({reply->protocols().begin(), reply->protocols().end()});
        MaybeComplete();
      });
}

void XrlFibClient::FeaDied() {
  fea_.clear();
  ++generation_;
}

void XrlFibClient::FullPushDone(net::Family family) {
  done_[family == net::Family::kIPv4 ? 0 : 1] = true;
  MaybeComplete();
}

void XrlFibClient::MaybeComplete() {
  if (!done_[0] || !done_[1] || !started_ || !gate_.open() || fea_.empty()) return;
  done_[0] = done_[1] = false;  // once per generation
  if (!flush_) return Complete();
  flush_([this, generation = generation_] {
    if (generation == generation_) Complete();
  });
}

void XrlFibClient::Complete() {
  router_.Call(fea_, kCompleteFullPush, pb::CompleteFullPushRequest(),
               [this, generation = generation_,
                fea = fea_](absl::StatusOr<pb::CompleteFullPushReply> reply) {
                 if (!reply.ok()) {
                   SLUICE_LOG(kWarning)
                       << "complete_full_push to " << fea << ": " << reply.status();
                   return;
                 }
                 if (generation == generation_) ++stats_.full_pushes;
                 stats_.stale_removed += reply->removed();
                 SLUICE_LOG(kInfo) << "FIB re-sent to " << fea << "; " << reply->removed()
                                   << " stale routes removed";
               });
}

}  // namespace sluice::rib
