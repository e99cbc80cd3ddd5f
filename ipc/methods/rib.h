#pragma once
// The rib/1.0 methods (ipc/proto/rib.proto), each tied to its request and reply types
// (ipc/method.h). Served by sluice-rib (rib/service/rib_service.cc). Called by sluice-bgp
// (bgp/process/rib_ipc_client.cc), sluice-static (static_routes/static_xrl.cc), the router
// manager (rtrmgr/process/configurator.cc, rtrmgr/metrics/gatherer.cc) and the `sluice show`
// commands (rtrmgr/cli/queries.h).
// Header-only: a user links sluice_rib_proto and sluice_ipc.

#include "ipc/method.h"
#include "ipc/proto/rib.pb.h"

namespace sluice::ipc::methods::rib {

namespace v1 = ::sluice::rib::v1;

inline const Method<v1::RegisterProtocolRequest, v1::RegisterProtocolReply> kRegisterProtocol{
    "rib/1.0/register_protocol"};
inline const Method<v1::DeregisterProtocolRequest, v1::DeregisterProtocolReply> kDeregisterProtocol{
    "rib/1.0/deregister_protocol"};
inline const Method<v1::EndOfRibRequest, v1::EndOfRibReply> kEndOfRib{"rib/1.0/end_of_rib"};
inline const Method<v1::AddRoute4Request, v1::RouteReply> kAddRoute4{"rib/1.0/add_route4"};
inline const Method<v1::AddRoute6Request, v1::RouteReply> kAddRoute6{"rib/1.0/add_route6"};
inline const Method<v1::AddRoute4Request, v1::RouteReply> kReplaceRoute4{"rib/1.0/replace_route4"};
inline const Method<v1::AddRoute6Request, v1::RouteReply> kReplaceRoute6{"rib/1.0/replace_route6"};
inline const Method<v1::DeleteRoute4Request, v1::RouteReply> kDeleteRoute4{"rib/1.0/delete_route4"};
inline const Method<v1::DeleteRoute6Request, v1::RouteReply> kDeleteRoute6{"rib/1.0/delete_route6"};
inline const Method<v1::RoutesRequest, v1::RoutesReply> kAddRoutes{"rib/1.0/add_routes"};
inline const Method<v1::RoutesRequest, v1::RoutesReply> kReplaceRoutes{"rib/1.0/replace_routes"};
inline const Method<v1::DeleteRoutesRequest, v1::RoutesReply> kDeleteRoutes{
    "rib/1.0/delete_routes"};
inline const Method<v1::AddRoutesPackedRequest, v1::RoutesReply> kAddRoutesPacked{
    "rib/1.0/add_routes_packed"};
inline const Method<v1::LookupRouteByDest4Request, v1::LookupRouteReply> kLookupRouteByDest4{
    "rib/1.0/lookup_route_by_dest4"};
inline const Method<v1::LookupRouteByDest6Request, v1::LookupRouteReply> kLookupRouteByDest6{
    "rib/1.0/lookup_route_by_dest6"};
inline const Method<v1::LookupRouteByNetworkRequest, v1::LookupRouteReply> kLookupRouteByNetwork{
    "rib/1.0/lookup_route_by_network"};
inline const Method<v1::ListRoutesRequest, v1::ListRoutesReply> kListRoutes{"rib/1.0/list_routes"};
inline const Method<v1::RegisterInterestRequest, v1::RegisterInterestReply> kRegisterInterest{
    "rib/1.0/register_interest"};
inline const Method<v1::DeregisterInterestRequest, v1::DeregisterInterestReply> kDeregisterInterest{
    "rib/1.0/deregister_interest"};
inline const Method<v1::RedistSubscribeRequest, v1::RedistSubscribeReply> kRedistSubscribe{
    "rib/1.0/redist_subscribe"};
inline const Method<v1::RedistSubscribeRequest, v1::RedistSubscribeReply> kRedistUnsubscribe{
    "rib/1.0/redist_unsubscribe"};
inline const Method<v1::GetAdminDistanceRequest, v1::GetAdminDistanceReply> kGetAdminDistance{
    "rib/1.0/get_admin_distance"};
inline const Method<v1::SetAdminDistanceRequest, v1::SetAdminDistanceReply> kSetAdminDistance{
    "rib/1.0/set_admin_distance"};
inline const Method<v1::ListProtocolsRequest, v1::ListProtocolsReply> kListProtocols{
    "rib/1.0/list_protocols"};
inline const Method<v1::ListFeasRequest, v1::ListFeasReply> kListFeas{"rib/1.0/list_feas"};

}  // namespace sluice::ipc::methods::rib
