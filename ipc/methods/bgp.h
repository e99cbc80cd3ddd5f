#pragma once
// The bgp/1.0 methods (ipc/proto/bgp.proto), each tied to its request and reply types
// (ipc/method.h). Served by sluice-bgp (bgp/process/bgp_service.cc, damping_service.cc,
// mrt_service.cc, bmp_service.cc). Called by the router manager (rtrmgr/process/configurator.cc,
// rtrmgr/metrics/gatherer.cc) and the `sluice` CLI (rtrmgr/cli/).
// Header-only: a user links sluice_bgp_proto and sluice_ipc.

#include "ipc/method.h"
#include "ipc/proto/bgp.pb.h"

namespace sluice::ipc::methods::bgp {

namespace v1 = ::sluice::bgp::v1;

inline const Method<v1::SetLocalAsRequest, v1::SetLocalAsReply> kSetLocalAs{"bgp/1.0/set_local_as"};
inline const Method<v1::SetBgpIdRequest, v1::SetBgpIdReply> kSetBgpId{"bgp/1.0/set_bgp_id"};
inline const Method<v1::SetClusterIdRequest, v1::SetClusterIdReply> kSetClusterId{
    "bgp/1.0/set_cluster_id"};
inline const Method<v1::GetLocalConfigRequest, v1::GetLocalConfigReply> kGetLocalConfig{
    "bgp/1.0/get_local_config"};
inline const Method<v1::ListenRequest, v1::ListenReply> kListen{"bgp/1.0/listen"};
inline const Method<v1::StopListeningRequest, v1::StopListeningReply> kStopListening{
    "bgp/1.0/stop_listening"};
inline const Method<v1::AddPeerRequest, v1::AddPeerReply> kAddPeer{"bgp/1.0/add_peer"};
inline const Method<v1::PeerRequest, v1::PeerReply> kRemovePeer{"bgp/1.0/remove_peer"};
inline const Method<v1::PeerRequest, v1::PeerReply> kEnablePeer{"bgp/1.0/enable_peer"};
inline const Method<v1::PeerRequest, v1::PeerReply> kDisablePeer{"bgp/1.0/disable_peer"};
inline const Method<v1::PeerRequest, v1::PeerReply> kResetPeer{"bgp/1.0/reset_peer"};
inline const Method<v1::ListPeersRequest, v1::ListPeersReply> kListPeers{"bgp/1.0/list_peers"};
inline const Method<v1::PeerRequest, v1::GetPeerReply> kGetPeer{"bgp/1.0/get_peer"};
inline const Method<v1::RouteRefreshRequest, v1::RouteRefreshReply> kRouteRefresh{
    "bgp/1.0/route_refresh"};
inline const Method<v1::SetPeerPolicyRequest, v1::SetPeerPolicyReply> kSetPeerImportPolicy{
    "bgp/1.0/set_peer_import_policy"};
inline const Method<v1::SetPeerPolicyRequest, v1::SetPeerPolicyReply> kSetPeerExportPolicy{
    "bgp/1.0/set_peer_export_policy"};
inline const Method<v1::OriginateRouteRequest, v1::OriginateRouteReply> kOriginateRoute{
    "bgp/1.0/originate_route"};
inline const Method<v1::WithdrawRouteRequest, v1::WithdrawRouteReply> kWithdrawRoute{
    "bgp/1.0/withdraw_route"};
inline const Method<v1::ListRoutesRequest, v1::ListRoutesReply> kListRoutes{"bgp/1.0/list_routes"};
inline const Method<v1::GetRouteCandidatesRequest, v1::ListRoutesReply> kGetRouteCandidates{
    "bgp/1.0/get_route_candidates"};
inline const Method<v1::SetDampingRequest, v1::SetDampingReply> kSetDamping{"bgp/1.0/set_damping"};
inline const Method<v1::GetDampingRequest, v1::GetDampingReply> kGetDamping{"bgp/1.0/get_damping"};
inline const Method<v1::SetPeerDampingRequest, v1::SetPeerDampingReply> kSetPeerDamping{
    "bgp/1.0/set_peer_damping"};
inline const Method<v1::ListDampedRequest, v1::ListDampedReply> kListDamped{"bgp/1.0/list_damped"};
inline const Method<v1::DumpTableRequest, v1::DumpTableReply> kDumpTable{"bgp/1.0/dump_table"};
inline const Method<v1::SetMrtRequest, v1::SetMrtReply> kSetMrt{"bgp/1.0/set_mrt"};
inline const Method<v1::ClearMrtRequest, v1::ClearMrtReply> kClearMrt{"bgp/1.0/clear_mrt"};
inline const Method<v1::GetMrtRequest, v1::GetMrtReply> kGetMrt{"bgp/1.0/get_mrt"};
inline const Method<v1::SetGracefulRestartRequest, v1::SetGracefulRestartReply> kSetGracefulRestart{
    "bgp/1.0/set_graceful_restart"};
inline const Method<v1::AddBmpStationRequest, v1::AddBmpStationReply> kAddBmpStation{
    "bgp/1.0/add_bmp_station"};
inline const Method<v1::DeleteBmpStationRequest, v1::DeleteBmpStationReply> kDeleteBmpStation{
    "bgp/1.0/delete_bmp_station"};
inline const Method<v1::ListBmpStationsRequest, v1::ListBmpStationsReply> kListBmpStations{
    "bgp/1.0/list_bmp_stations"};

}  // namespace sluice::ipc::methods::bgp
