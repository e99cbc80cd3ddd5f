#include "bgp/process/rpki_ipc_client.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "ipc/method.h"
#include "ipc/methods/rpki.h"
#include "ipc/methods/rpki_client.h"
#include "ipc/proto/rpki.pb.h"
#include "ipc/proto/rpki_client.pb.h"
#include "ipc/types_convert.h"

namespace sluice::bgp::process {
namespace {

namespace rpki_v1 = ::sluice::rpki::v1;
namespace client_v1 = ::sluice::rpki_client::v1;
using ipc::methods::rpki::kSubscribe;
using ipc::methods::rpki_client::kVrpChanges;

// The VRPs of a repeated field; a malformed prefix is an error naming the field.
absl::StatusOr<std::vector<rpki::Vrp>> FromProto(
    const google::protobuf::RepeatedPtrField<rpki_v1::Vrp>& in, const char* field) {
  std::vector<rpki::Vrp> out;
  out.reserve(in.size());
  for (const rpki_v1::Vrp& v : in) {
    absl::StatusOr<net::Prefix> prefix = ipc::FromProto(v.prefix());
    if (!prefix.ok() || v.max_length() > 128) {
      return absl::InvalidArgumentError(absl::StrCat(field, ": a malformed VRP"));
    }
    out.push_back(rpki::Vrp{*prefix, static_cast<uint8_t>(v.max_length()), v.asn()});
  }
  return out;
}

}  // namespace

RpkiIpcClient::RpkiIpcClient(boost::asio::io_context& io, ipc::XrlRouter* router,
                             std::string rpki_class, rpki::OriginValidator* set,
                             VrpListener* listener)
    : router_(router),
      rpki_class_(std::move(rpki_class)),
      set_(set),
      listener_(listener),
      feed_(set),
      retry_timer_(io) {}

RpkiIpcClient::~RpkiIpcClient() { *alive_ = false; }

absl::Status RpkiIpcClient::Start() {
  absl::Status s = router_->HandleAsync(
      kVrpChanges, [this](const client_v1::VrpChangesRequest& r,
                          ipc::Responder<client_v1::VrpChangesReply> responder) {
        ++batches_;
        batches_waiting_.push_back(Batch{r, std::move(responder)});
        Drain();
      });
  if (!s.ok()) return s;
  router_->WatchClass(rpki_class_, [this](const ipc::TargetEvent& e) {
    if (e.kind == ipc::TargetEvent::kBirth) {
      SLUICE_LOG(kInfo) << "RPKI " << e.instance_name << " is up: subscribing";
      rpki_alive_ = true;
      ++generation_;
      retry_delay_ = std::chrono::milliseconds(200);
      Subscribe();
    } else if (e.kind == ipc::TargetEvent::kDeath) {
      subscribed_ = false;
      rpki_alive_ = false;
      ++generation_;
      retry_timer_.cancel();
      // What it sent of a change is all there will be.
      if (batches_waiting_.empty()) {
        EndChange();
      } else {
        end_when_drained_ = true;
      }
      SLUICE_LOG(kWarning) << "RPKI " << e.instance_name << " died: keeping " << set_->size()
                           << " VRPs until a new one's set is complete";
    }
  });
  return absl::OkStatus();
}

absl::StatusOr<rpki::VrpDelta> RpkiIpcClient::Plan(const client_v1::VrpChangesRequest& r) {
  rpki::VrpBatch batch{r.epoch(), r.full(), r.dump_done(), {}, {}, r.dump_start()};
  absl::StatusOr<std::vector<rpki::Vrp>> announced = FromProto(r.announced(), "announced");
  if (!announced.ok()) return announced.status();
  absl::StatusOr<std::vector<rpki::Vrp>> withdrawn = FromProto(r.withdrawn(), "withdrawn");
  if (!withdrawn.ok()) return withdrawn.status();
  batch.announced = std::move(*announced);
  batch.withdrawn = std::move(*withdrawn);
  return feed_.Plan(batch);
}

void RpkiIpcClient::Drain() {
  if (draining_) return;  // a `ready` called inside BeforeChange: the loop below goes on
  draining_ = true;
  while (!batches_waiting_.empty() && !preparing_) {
    absl::StatusOr<rpki::VrpDelta> delta = Plan(batches_waiting_.front().request);
    if (!delta.ok()) {
      ++refused_;
      batches_waiting_.front().responder.Fail(delta.status());
      batches_waiting_.pop_front();
      continue;
    }
    if (delta->empty()) {
      FinishFront();
      continue;
    }
    if (listener_ == nullptr) {
      set_->Apply(*delta);
      change_open_ = true;
      FinishFront();
      continue;
    }
    preparing_ = true;
    auto shared = std::make_shared<rpki::VrpDelta>(std::move(*delta));
    listener_->BeforeChange(*shared, [this, alive = std::weak_ptr<bool>(alive_), shared] {
      if (alive.expired()) return;
      preparing_ = false;
      set_->Apply(*shared);
      change_open_ = true;
      FinishFront();
      Drain();
    });
  }
  draining_ = false;
  if (batches_waiting_.empty() && end_when_drained_) {
    end_when_drained_ = false;
    EndChange();
  }
}

void RpkiIpcClient::FinishFront() {
  Batch& b = batches_waiting_.front();
  if (b.request.last()) EndChange();
  if (b.request.dump_done()) {
    SLUICE_LOG(kInfo) << "RPKI: " << set_->size() << " VRPs (" << feed_.swept()
                      << " withdrawn by dumps so far)";
  }
  b.responder.Finish(absl::OkStatus());
  batches_waiting_.pop_front();
}

void RpkiIpcClient::EndChange() {
  if (!change_open_) return;
  change_open_ = false;
  if (listener_ != nullptr) listener_->AfterChange();
}

void RpkiIpcClient::Subscribe() {
  router_->Call(rpki_class_, kSubscribe, rpki_v1::SubscribeRequest(),
                [this, alive = std::weak_ptr<bool>(alive_),
                 generation = generation_](absl::StatusOr<rpki_v1::SubscribeReply> reply) {
                  // A birth or death since: the subscribe that counts is the one it started.
                  if (alive.expired() || generation != generation_) return;
                  subscribed_ = reply.ok();
                  if (!reply.ok()) {
                    SLUICE_LOG(kWarning) << "RPKI: subscribe: " << reply.status().message()
                                         << (rpki_alive_ ? " (trying again)" : "");
                    RetrySubscribe();
                  }
                });
}

void RpkiIpcClient::RetrySubscribe() {
  if (!rpki_alive_) return;
  retry_timer_.expires_after(retry_delay_);
  retry_delay_ = std::min(retry_delay_ * 2, std::chrono::milliseconds(5000));
  retry_timer_.async_wait([this, alive = std::weak_ptr<bool>(alive_),
                           generation = generation_](const boost::system::error_code& error) {
    if (!error && !alive.expired() && generation == generation_ && !subscribed_) Subscribe();
  });
}

}  // namespace sluice::bgp::process
