#pragma once
// The rpki/1.0 methods (ipc/proto/rpki.proto), each tied to its request and reply types
// (ipc/method.h). Served by sluice-rpki (rpki/rpki_xrl.cc). Called by sluice-bgp (subscribe,
// bgp/process/rpki_ipc_client.cc), the router manager (caches, rtrmgr/process/configurator.cc;
// rtrmgr/metrics/gatherer.cc) and `sluice show rpki`.
// Header-only: a user links sluice_rpki_proto and sluice_ipc.

#include "ipc/method.h"
#include "ipc/proto/rpki.pb.h"

namespace sluice::ipc::methods::rpki {

namespace v1 = ::sluice::rpki::v1;

inline const Method<v1::AddCacheRequest, v1::AddCacheReply> kAddCache{"rpki/1.0/add_cache"};
inline const Method<v1::DeleteCacheRequest, v1::DeleteCacheReply> kDeleteCache{
    "rpki/1.0/delete_cache"};
inline const Method<v1::GetStatusRequest, v1::GetStatusReply> kGetStatus{"rpki/1.0/get_status"};
inline const Method<v1::ListVrpsRequest, v1::ListVrpsReply> kListVrps{"rpki/1.0/list_vrps"};
inline const Method<v1::SubscribeRequest, v1::SubscribeReply> kSubscribe{"rpki/1.0/subscribe"};

}  // namespace sluice::ipc::methods::rpki
