#pragma once
// The fea_ifmgr_client/1.0 methods (ipc/proto/fea_ifmgr_client.proto), each tied to its request and
// reply types (ipc/method.h). Served by sluice-rib (rib/service/xrl_interface_source.cc). Called by
// sluice-fea (fea/service/fea_ifmgr_service.cc). Header-only: a user links
// sluice_fea_ifmgr_client_proto and sluice_ipc.

#include "ipc/method.h"
#include "ipc/proto/fea_ifmgr_client.pb.h"

namespace sluice::ipc::methods::fea_ifmgr_client {

namespace v1 = ::sluice::fea_ifmgr_client::v1;

inline const Method<v1::InterfaceEventsRequest, v1::InterfaceEventsReply> kInterfaceEvents{
    "fea_ifmgr_client/1.0/interface_events"};

}  // namespace sluice::ipc::methods::fea_ifmgr_client
