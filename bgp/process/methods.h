#pragma once
// The XRL methods sluice-bgp serves (bgp/1.0, rib_client/1.0) and calls (rib/1.0), each tied to
// its request and reply types (ipc/method.h). profile/1.0 is ipc/profile_service.h.

#include "ipc/method.h"
#include "ipc/proto/bgp.pb.h"
#include "ipc/proto/rib.pb.h"
#include "ipc/proto/rib_client.pb.h"

namespace sluice::bgp::process {

namespace v1 = ::sluice::bgp::v1;
namespace rib_v1 = ::sluice::rib::v1;
namespace rib_client_v1 = ::sluice::rib_client::v1;

template <typename Req, typename Reply>
using M = ipc::Method<Req, Reply>;

// --- bgp/1.0 (served) ------------------------------------------------------------------------
inline const M<v1::SetLocalAsRequest, v1::SetLocalAsReply> kSetLocalAs{"bgp/1.0/set_local_as"};
inline const M<v1::SetBgpIdRequest, v1::SetBgpIdReply> kSetBgpId{"bgp/1.0/set_bgp_id"};
inline const M<v1::SetClusterIdRequest, v1::SetClusterIdReply> kSetClusterId{
    "bgp/1.0/set_cluster_id"};
inline const M<v1::GetLocalConfigRequest, v1::GetLocalConfigReply> kGetLocalConfig{
    "bgp/1.0/get_local_config"};
inline const M<v1::ListenRequest, v1::ListenReply> kListen{"bgp/1.0/listen"};
inline const M<v1::StopListeningRequest, v1::StopListeningReply> kStopListening{
    "bgp/1.0/stop_listening"};
inline const M<v1::AddPeerRequest, v1::AddPeerReply> kAddPeer{"bgp/1.0/add_peer"};
inline const M<v1::SetGracefulRestartRequest, v1::SetGracefulRestartReply> kSetGracefulRestart{
    "bgp/1.0/set_graceful_restart"};
inline const M<v1::PeerRequest, v1::PeerReply> kRemovePeer{"bgp/1.0/remove_peer"};
inline const M<v1::PeerRequest, v1::PeerReply> kEnablePeer{"bgp/1.0/enable_peer"};
inline const M<v1::PeerRequest, v1::PeerReply> kDisablePeer{"bgp/1.0/disable_peer"};
inline const M<v1::PeerRequest, v1::PeerReply> kResetPeer{"bgp/1.0/reset_peer"};
inline const M<v1::ListPeersRequest, v1::ListPeersReply> kListPeers{"bgp/1.0/list_peers"};
inline const M<v1::PeerRequest, v1::GetPeerReply> kGetPeer{"bgp/1.0/get_peer"};
inline const M<v1::RouteRefreshRequest, v1::RouteRefreshReply> kRouteRefresh{
    "bgp/1.0/route_refresh"};
inline const M<v1::SetPeerPolicyRequest, v1::SetPeerPolicyReply> kSetPeerImportPolicy{
    "bgp/1.0/set_peer_import_policy"};
inline const M<v1::SetPeerPolicyRequest, v1::SetPeerPolicyReply> kSetPeerExportPolicy{
    "bgp/1.0/set_peer_export_policy"};
inline const M<v1::OriginateRouteRequest, v1::OriginateRouteReply> kOriginateRoute{
    "bgp/1.0/originate_route"};
inline const M<v1::WithdrawRouteRequest, v1::WithdrawRouteReply> kWithdrawRoute{
    "bgp/1.0/withdraw_route"};
inline const M<v1::ListRoutesRequest, v1::ListRoutesReply> kListRoutes{"bgp/1.0/list_routes"};
inline const M<v1::GetRouteCandidatesRequest, v1::ListRoutesReply> kGetRouteCandidates{
    "bgp/1.0/get_route_candidates"};

// --- rib_client/1.0 (served: the RIB calls back) ----------------------------------------------
inline const M<rib_client_v1::RouteInfoInvalidRequest, rib_client_v1::RouteInfoInvalidReply>
    kRouteInfoInvalid{"rib_client/1.0/route_info_invalid"};
inline const M<rib_client_v1::RedistRoutesRequest, rib_client_v1::RedistRoutesReply> kRedistRoutes{
    "rib_client/1.0/redist_routes"};

// --- rib/1.0 (called) ------------------------------------------------------------------------
inline const M<rib_v1::RegisterProtocolRequest, rib_v1::RegisterProtocolReply> kRegisterProtocol{
    "rib/1.0/register_protocol"};
inline const M<rib_v1::DeregisterProtocolRequest, rib_v1::DeregisterProtocolReply>
    kDeregisterProtocol{"rib/1.0/deregister_protocol"};
inline const M<rib_v1::EndOfRibRequest, rib_v1::EndOfRibReply> kRibEndOfRib{"rib/1.0/end_of_rib"};
inline const M<rib_v1::RoutesRequest, rib_v1::RoutesReply> kAddRoutes{"rib/1.0/add_routes"};
inline const M<rib_v1::DeleteRoutesRequest, rib_v1::RoutesReply> kDeleteRoutes{
    "rib/1.0/delete_routes"};
inline const M<rib_v1::RegisterInterestRequest, rib_v1::RegisterInterestReply> kRegisterInterest{
    "rib/1.0/register_interest"};
inline const M<rib_v1::DeregisterInterestRequest, rib_v1::DeregisterInterestReply>
    kDeregisterInterest{"rib/1.0/deregister_interest"};
inline const M<rib_v1::RedistSubscribeRequest, rib_v1::RedistSubscribeReply> kRedistSubscribe{
    "rib/1.0/redist_subscribe"};
inline const M<rib_v1::RedistSubscribeRequest, rib_v1::RedistSubscribeReply> kRedistUnsubscribe{
    "rib/1.0/redist_unsubscribe"};

}  // namespace sluice::bgp::process
