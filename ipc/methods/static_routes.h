#pragma once
// The static_routes/1.0 methods (ipc/proto/static_routes.proto), each tied to its request and reply
// types (ipc/method.h). Served by sluice-static (static_routes/static_xrl.cc). Called by the router
// manager (rtrmgr/process/configurator.cc). Header-only: a user links sluice_static_routes_proto
// and sluice_ipc.

#include "ipc/method.h"
#include "ipc/proto/static_routes.pb.h"

namespace sluice::ipc::methods::static_routes {

namespace v1 = ::sluice::static_routes::v1;

inline const Method<v1::AddRouteRequest, v1::AddRouteReply> kAddRoute{
    "static_routes/1.0/add_route"};
inline const Method<v1::DeleteRouteRequest, v1::DeleteRouteReply> kDeleteRoute{
    "static_routes/1.0/delete_route"};
inline const Method<v1::SyncedRequest, v1::SyncedReply> kSynced{"static_routes/1.0/synced"};
inline const Method<v1::ListRoutesRequest, v1::ListRoutesReply> kListRoutes{
    "static_routes/1.0/list_routes"};

}  // namespace sluice::ipc::methods::static_routes
