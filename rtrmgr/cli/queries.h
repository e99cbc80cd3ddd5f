#pragma once
// The reads the `sluice show` commands and the main job's summary make, over SyncClient: every
// route of a BGP view, of the RIB and of the FIB (all pages), and the methods they call.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bgp/process/methods.h"
#include "ipc/profile_methods.h"
#include "ipc/proto/fea_fib.pb.h"
#include "ipc/proto/fea_ifmgr.pb.h"
#include "ipc/proto/profile.pb.h"
#include "ipc/proto/rib.pb.h"
#include "ipc/proto/rpki.pb.h"
#include "ipc/proto/rtrmgr.pb.h"
#include "rtrmgr/cli/sync_client.h"

namespace sluice::rtrmgr::cli {

template <typename Req, typename Reply>
using M = ipc::Method<Req, Reply>;

inline const M<rib::v1::ListRoutesRequest, rib::v1::ListRoutesReply> kRibListRoutes{
    "rib/1.0/list_routes"};
inline const M<rib::v1::ListProtocolsRequest, rib::v1::ListProtocolsReply> kRibListProtocols{
    "rib/1.0/list_protocols"};
inline const M<rib::v1::LookupRouteByNetworkRequest, rib::v1::LookupRouteReply> kRibLookupByNetwork{
    "rib/1.0/lookup_route_by_network"};
inline const M<rib::v1::LookupRouteByDest4Request, rib::v1::LookupRouteReply> kRibLookupByDest4{
    "rib/1.0/lookup_route_by_dest4"};
inline const M<rib::v1::LookupRouteByDest6Request, rib::v1::LookupRouteReply> kRibLookupByDest6{
    "rib/1.0/lookup_route_by_dest6"};
inline const M<fea_fib::v1::LookupRouteByDest4Request, fea_fib::v1::LookupRouteReply>
    kFibLookupByDest4{"fea_fib/1.0/lookup_route_by_dest4"};
inline const M<fea_fib::v1::LookupRouteByDest6Request, fea_fib::v1::LookupRouteReply>
    kFibLookupByDest6{"fea_fib/1.0/lookup_route_by_dest6"};
inline const M<fea_fib::v1::ListRoutesRequest, fea_fib::v1::ListRoutesReply> kFibListRoutes{
    "fea_fib/1.0/list_routes"};
inline const M<fea_ifmgr::v1::ListInterfacesRequest, fea_ifmgr::v1::ListInterfacesReply>
    kListInterfaces{"fea_ifmgr/1.0/list_interfaces"};
inline const M<rtrmgr::v1::GetStatusRequest, rtrmgr::v1::GetStatusReply> kRtrmgrStatus{
    "rtrmgr/1.0/get_status"};
inline const M<rtrmgr::v1::GetConfigRequest, rtrmgr::v1::GetConfigReply> kRtrmgrGetConfig{
    "rtrmgr/1.0/get_config"};
inline const M<rtrmgr::v1::LoadConfigRequest, rtrmgr::v1::LoadConfigReply> kRtrmgrLoadConfig{
    "rtrmgr/1.0/load_config"};
inline const M<rtrmgr::v1::ConfirmConfigRequest, rtrmgr::v1::ConfirmConfigReply>
    kRtrmgrConfirmConfig{"rtrmgr/1.0/confirm_config"};
inline const M<rtrmgr::v1::RollbackConfigRequest, rtrmgr::v1::LoadConfigReply>
    kRtrmgrRollbackConfig{"rtrmgr/1.0/rollback_config"};
inline const M<rpki::v1::GetStatusRequest, rpki::v1::GetStatusReply> kRpkiStatus{
    "rpki/1.0/get_status"};
inline const M<rpki::v1::ListVrpsRequest, rpki::v1::ListVrpsReply> kRpkiListVrps{
    "rpki/1.0/list_vrps"};
// profile/1.0 (ipc/profile_methods.h), by the names the CLI and bench/ use.
inline const auto& kProfileList = ipc::kProfileListPoints;
inline const auto& kProfileEnable = ipc::kProfileEnable;
inline const auto& kProfileGet = ipc::kProfileGetEntries;
inline const auto& kProfileClear = ipc::kProfileClear;
inline const auto& kDescribePlumbing = ipc::kProfileDescribePlumbing;

// Every route of a BGP view ("ipv4" or "ipv6"); `peer` ("" for the Loc-RIB) for the
// Adj-RIB-In and -Out.
absl::StatusOr<std::vector<bgp::v1::Route>> AllBgpRoutes(SyncClient& client, bgp::v1::RibView view,
                                                         const std::string& peer,
                                                         const std::string& family);
// The RIB's winners ("" protocol) or one protocol's routes, of one family.
absl::StatusOr<std::vector<rib::v1::RibRoute>> AllRibRoutes(SyncClient& client,
                                                            const std::string& family,
                                                            const std::string& protocol = "");
// Every FIB route, both families.
absl::StatusOr<std::vector<fea_fib::v1::FibRoute>> AllFibRoutes(SyncClient& client);

}  // namespace sluice::rtrmgr::cli
