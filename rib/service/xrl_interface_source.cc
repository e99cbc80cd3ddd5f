#include "rib/service/xrl_interface_source.h"

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "ipc/methods/fea_ifmgr.h"
#include "ipc/methods/fea_ifmgr_client.h"
#include "ipc/proto/fea_ifmgr.pb.h"
#include "ipc/proto/fea_ifmgr_client.pb.h"
#include "ipc/types_convert.h"

namespace sluice::rib {
namespace {

namespace cpb = fea_ifmgr_client::v1;
using ipc::methods::fea_ifmgr::kSubscribe;
using ipc::methods::fea_ifmgr_client::kInterfaceEvents;

// Hands one event to `to`.
void Deliver(const cpb::InterfaceEvent& e, InterfaceEvents* to) {
  const std::string& name = e.interface().name();
  const bool up = e.interface().enabled() && e.interface().carrier();
  switch (e.kind()) {
    case cpb::InterfaceEvent::SYNC_START:
      return to->OnSyncStart();
    case cpb::InterfaceEvent::SYNC_DONE:
      return to->OnSyncDone();
    case cpb::InterfaceEvent::INTERFACE_ADDED:
      return to->OnInterfaceAdded(name, up);
    case cpb::InterfaceEvent::INTERFACE_REMOVED:
      return to->OnInterfaceRemoved(name);
    case cpb::InterfaceEvent::ADDRESS_ADDED:
    case cpb::InterfaceEvent::ADDRESS_REMOVED: {
      auto address = ipc::FromProto(e.address().address());
      if (!address.ok()) {
        SLUICE_LOG(kWarning) << "interface event for " << name
                             << " with a bad address ignored: " << address.status();
        return;
      }
      if (e.kind() == cpb::InterfaceEvent::ADDRESS_ADDED) {
        return to->OnAddressAdded(name, *address, static_cast<int>(e.address().prefix_length()));
      }
      return to->OnAddressRemoved(name, *address);
    }
    default:
      SLUICE_LOG(kWarning) << "interface event of unknown kind " << e.kind() << " ignored";
  }
}

}  // namespace

XrlInterfaceSource::XrlInterfaceSource(ipc::XrlRouter& router) : router_(router) {}

void XrlInterfaceSource::SetPerFea(std::function<InterfaceEvents*(const std::string&)> per_fea,
                                   std::function<void(const std::string&)> on_synced) {
  per_fea_ = std::move(per_fea);
  on_synced_ = std::move(on_synced);
}

absl::Status XrlInterfaceSource::Register() {
  return router_.Handle(
      kInterfaceEvents,
      [this](const cpb::InterfaceEventsRequest& request,
             const ipc::Caller& caller) -> absl::StatusOr<cpb::InterfaceEventsReply> {
        if (caller.class_name != "fea") {
          return absl::PermissionDeniedError(
              absl::StrCat("interface_events: ", caller.id(), " is not an FEA"));
        }
        events_received_ += request.events_size();
        InterfaceEvents* shared = caller.instance_name == shared_ ? events_ : nullptr;
        InterfaceEvents* own = per_fea_ ? per_fea_(caller.instance_name) : nullptr;
        bool synced = false;
        for (const cpb::InterfaceEvent& e : request.events()) {
          if (shared != nullptr) Deliver(e, shared);
          if (own != nullptr) Deliver(e, own);
          synced |= e.kind() == cpb::InterfaceEvent::SYNC_DONE;
        }
        if (synced && on_synced_) on_synced_(caller.instance_name);
        return cpb::InterfaceEventsReply();
      });
}

void XrlInterfaceSource::Subscribe(const std::string& instance,
                                   std::function<void(const absl::Status&)> done) {
  fea_ifmgr::v1::SubscribeRequest request;
  request.set_target(router_.instance_name());
  router_.Call(
      instance, kSubscribe, std::move(request),
      [instance, done = std::move(done)](absl::StatusOr<fea_ifmgr::v1::SubscribeReply> reply) {
        if (!reply.ok()) {
          SLUICE_LOG(kWarning) << "subscribing to " << instance
                               << "'s interfaces: " << reply.status();
        }
        if (done) done(reply.status());
      });
}

}  // namespace sluice::rib
