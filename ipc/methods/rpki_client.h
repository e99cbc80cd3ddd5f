#pragma once
// The rpki_client/1.0 methods (ipc/proto/rpki_client.proto), each tied to its request and reply
// types (ipc/method.h). Served by sluice-bgp (bgp/process/rpki_ipc_client.cc). Called by
// sluice-rpki (rpki/vrp_publisher.cc). Header-only: a user links sluice_rpki_client_proto and
// sluice_ipc.

#include "ipc/method.h"
#include "ipc/proto/rpki_client.pb.h"

namespace sluice::ipc::methods::rpki_client {

namespace v1 = ::sluice::rpki_client::v1;

inline const Method<v1::VrpChangesRequest, v1::VrpChangesReply> kVrpChanges{
    "rpki_client/1.0/vrp_changes"};

}  // namespace sluice::ipc::methods::rpki_client
