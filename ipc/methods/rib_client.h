#pragma once
// The rib_client/1.0 methods (ipc/proto/rib_client.proto), each tied to its request and reply types
// (ipc/method.h). Served by sluice-bgp (bgp/process/bgp_service.cc) and sluice-static
// (static_routes/static_xrl.cc). Called by sluice-rib (rib/service/rib_clients.cc).
// Header-only: a user links sluice_rib_client_proto and sluice_ipc.

#include "ipc/method.h"
#include "ipc/proto/rib_client.pb.h"

namespace sluice::ipc::methods::rib_client {

namespace v1 = ::sluice::rib_client::v1;

inline const Method<v1::RouteInfoInvalidRequest, v1::RouteInfoInvalidReply> kRouteInfoInvalid{
    "rib_client/1.0/route_info_invalid"};
inline const Method<v1::RedistRoutesRequest, v1::RedistRoutesReply> kRedistRoutes{
    "rib_client/1.0/redist_routes"};

}  // namespace sluice::ipc::methods::rib_client
