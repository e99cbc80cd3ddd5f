#include "rib/service/xrl_interface_source.h"

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

}  // namespace

XrlInterfaceSource::XrlInterfaceSource(ipc::XrlRouter& router) : router_(router) {}

absl::Status XrlInterfaceSource::Register() {
  return router_.Handle(
      kInterfaceEvents,
      [this](
          const cpb::InterfaceEventsRequest& request) -> absl::StatusOr<cpb::InterfaceEventsReply> {
        events_received_ += request.events_size();
        if (events_ == nullptr) return cpb::InterfaceEventsReply();
        for (const cpb::InterfaceEvent& e : request.events()) {
          const std::string& name = e.interface().name();
          const bool up = e.interface().enabled() && e.interface().carrier();
          switch (e.kind()) {
            case cpb::InterfaceEvent::SYNC_START:
              events_->OnSyncStart();
              break;
            case cpb::InterfaceEvent::SYNC_DONE:
              events_->OnSyncDone();
              break;
            case cpb::InterfaceEvent::INTERFACE_ADDED:
              events_->OnInterfaceAdded(name, up);
              break;
            case cpb::InterfaceEvent::INTERFACE_REMOVED:
              events_->OnInterfaceRemoved(name);
              break;
            case cpb::InterfaceEvent::ADDRESS_ADDED:
            case cpb::InterfaceEvent::ADDRESS_REMOVED: {
              auto address = ipc::FromProto(e.address().address());
              if (!address.ok()) {
                SLUICE_LOG(kWarning) << "interface event for " << name
                                     << " with a bad address ignored: " << address.status();
                break;
              }
              if (e.kind() == cpb::InterfaceEvent::ADDRESS_ADDED) {
                events_->OnAddressAdded(name, *address,
                                        static_cast<int>(e.address().prefix_length()));
              } else {
                events_->OnAddressRemoved(name, *address);
              }
              break;
            }
            default:
              SLUICE_LOG(kWarning) << "interface event of unknown kind " << e.kind() << " ignored";
          }
        }
        return cpb::InterfaceEventsReply();
      });
}

void XrlInterfaceSource::FeaBorn(const std::string& instance) {
  fea_ifmgr::v1::SubscribeRequest request;
  request.set_target(router_.instance_name());
  router_.Call(instance, kSubscribe, std::move(request),
               [instance](absl::StatusOr<fea_ifmgr::v1::SubscribeReply> reply) {
                 if (!reply.ok()) {
                   SLUICE_LOG(kWarning)
                       << "subscribing to " << instance << "'s interfaces: " << reply.status();
                 }
               });
}

}  // namespace sluice::rib
