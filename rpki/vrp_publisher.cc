#include "rpki/vrp_publisher.h"

#include <algorithm>
#include <memory>

#include "base/log.h"
#include "ipc/method.h"
#include "ipc/methods/rpki_client.h"
#include "ipc/proto/rpki_client.pb.h"
#include "ipc/types_convert.h"

namespace sluice::rpki {
namespace {

namespace client_v1 = ::sluice::rpki_client::v1;
using ipc::methods::rpki_client::kVrpChanges;

void AddVrps(const std::vector<Vrp>& vrps, size_t from, size_t to,
             google::protobuf::RepeatedPtrField<rpki::v1::Vrp>* out) {
  out->Reserve(static_cast<int>(to - from));
  for (size_t i = from; i < to; ++i) {
    rpki::v1::Vrp* v = out->Add();
    ipc::ToProto(vrps[i].prefix, v->mutable_prefix());
    v->set_max_length(vrps[i].max_length);
    v->set_asn(vrps[i].asn);
  }
}

}  // namespace

VrpPublisher::VrpPublisher(boost::asio::io_context& io, ipc::XrlRouter* router, VrpStore* store,
                           uint64_t epoch)
    : io_(io), router_(router), store_(store), epoch_(epoch) {
  UpdateTracking();
}

void VrpPublisher::UpdateTracking() { store_->set_tracking(complete_ && !subscribers_.empty()); }

VrpPublisher::~VrpPublisher() {
  *alive_ = false;
  for (const auto& [instance, subscriber] : subscribers_) router_->Unwatch(subscriber->watch);
}

void VrpPublisher::Subscribe(const std::string& instance) {
  Flush();  // the others get what changed before the snapshot is taken
  if (!subscribers_.contains(instance)) {
    const ipc::WatchId watch = router_->WatchInstance(
        instance, [this, alive = std::weak_ptr<bool>(alive_), instance](const ipc::TargetEvent& e) {
          if (!alive.expired() && e.kind != ipc::TargetEvent::kBirth) Forget(instance);
        });
    subscribers_[instance] = std::make_unique<ipc::DumpSubscriber>(
        io_, watch, "vrp_changes to " + instance, [this, instance] { SendDump(instance); });
  }
  UpdateTracking();
  if (!complete_) {
    SLUICE_LOG(kInfo) << instance << " subscribes: its dump waits for a cache's answer";
    return;
  }
  SendDump(instance);
}

void VrpPublisher::SetComplete() {
  if (complete_) return;
  complete_ = true;
  store_->TakeChanges();  // the dumps carry them
  UpdateTracking();
  std::vector<std::string> instances;  // a failed call may forget its subscriber
  for (const auto& [instance, subscriber] : subscribers_) instances.push_back(instance);
  for (const std::string& instance : instances) SendDump(instance);
}

void VrpPublisher::SendDump(const std::string& instance) {
  auto it = subscribers_.find(instance);
  if (it == subscribers_.end()) return;
  it->second->redump.Sending();
  const std::vector<Vrp> all = store_->Snapshot();
  SLUICE_LOG(kInfo) << instance << ": sending the whole set, " << all.size() << " VRPs";
  size_t from = 0;
  do {  // an empty set is one empty batch with dump_done
    const size_t to = std::min(all.size(), from + kBatch);
    Send(instance, std::vector<Vrp>(all.begin() + from, all.begin() + to), {}, true, from == 0,
         to == all.size(), to == all.size());
    from = to;
  } while (from < all.size());
}

void VrpPublisher::Flush() {
  VrpChanges changes = store_->TakeChanges();
  if (!complete_ || changes.empty() || subscribers_.empty()) return;
  std::vector<std::string> instances;  // waiting for a dump: it carries these changes
  for (const auto& [instance, subscriber] : subscribers_) {
    if (!subscriber->redump.pending()) instances.push_back(instance);
  }
  // Withdrawals first, so no batch boundary shows a VRP twice; each batch is a whole slice.
  for (const std::string& instance : instances) {
    for (size_t from = 0; from < changes.withdrawn.size(); from += kBatch) {
      const size_t to = std::min(changes.withdrawn.size(), from + kBatch);
      Send(instance, {},
           std::vector<Vrp>(changes.withdrawn.begin() + from, changes.withdrawn.begin() + to),
           false, false, false, to == changes.withdrawn.size() && changes.announced.empty());
    }
    for (size_t from = 0; from < changes.announced.size(); from += kBatch) {
      const size_t to = std::min(changes.announced.size(), from + kBatch);
      Send(instance,
           std::vector<Vrp>(changes.announced.begin() + from, changes.announced.begin() + to), {},
           false, false, false, to == changes.announced.size());
    }
  }
}

void VrpPublisher::Send(const std::string& instance, const std::vector<Vrp>& announced,
                        const std::vector<Vrp>& withdrawn, bool full, bool dump_start,
                        bool dump_done, bool last) {
  auto it = subscribers_.find(instance);
  if (it == subscribers_.end()) return;  // forgotten by a failure answered at once
  client_v1::VrpChangesRequest r;
  r.set_last(last);
  r.set_epoch(epoch_);
  r.set_full(full);
  r.set_dump_start(dump_start);
  r.set_dump_done(dump_done);
  AddVrps(announced, 0, announced.size(), r.mutable_announced());
  AddVrps(withdrawn, 0, withdrawn.size(), r.mutable_withdrawn());
  ++batches_sent_;
  router_->Call(
      instance, kVrpChanges, std::move(r),
      [this, alive = std::weak_ptr<bool>(alive_), instance,
       dump = it->second->redump.dump()](absl::StatusOr<client_v1::VrpChangesReply> reply) {
        if (!alive.expired() && !reply.ok()) Failed(instance, dump, reply.status());
      });
}

void VrpPublisher::Failed(const std::string& instance, uint64_t dump, const absl::Status& status) {
  auto it = subscribers_.find(instance);
  if (it == subscribers_.end()) return;
  if (it->second->redump.Failed(dump, status) == ipc::Redump::Outcome::kForget) Forget(instance);
}

uint64_t VrpPublisher::redumps() const {
  uint64_t n = 0;
  for (const auto& [instance, subscriber] : subscribers_) n += subscriber->redump.redumps();
  return n;
}

void VrpPublisher::Forget(const std::string& instance) {
  auto it = subscribers_.find(instance);
  if (it == subscribers_.end()) return;
  router_->Unwatch(it->second->watch);
  subscribers_.erase(it);
  UpdateTracking();
}

}  // namespace sluice::rpki
