#pragma once
// The profile/1.0 methods (ipc/proto/profile.proto), each tied to its request and reply types
// (ipc/method.h). Served by ServeProfile (ipc/profile_service.h) in sluice-fea, sluice-rib and
// sluice-bgp. Called by `sluice profile`, `sluice show plumbing` and the router manager's metrics
// (rtrmgr/metrics/gatherer.cc).
// Header-only: a user links sluice_profile_proto and sluice_ipc.

#include "ipc/method.h"
#include "ipc/proto/profile.pb.h"

namespace sluice::ipc::methods::profile {

namespace v1 = ::sluice::profile::v1;

inline const Method<v1::ListPointsRequest, v1::ListPointsReply> kListPoints{
    "profile/1.0/list_points"};
inline const Method<v1::EnableRequest, v1::EnableReply> kEnable{"profile/1.0/enable"};
inline const Method<v1::GetEntriesRequest, v1::GetEntriesReply> kGetEntries{
    "profile/1.0/get_entries"};
inline const Method<v1::ClearRequest, v1::ClearReply> kClear{"profile/1.0/clear"};
inline const Method<v1::DescribePlumbingRequest, v1::DescribePlumbingReply> kDescribePlumbing{
    "profile/1.0/describe_plumbing"};
inline const Method<v1::GetStageStatsRequest, v1::GetStageStatsReply> kGetStageStats{
    "profile/1.0/get_stage_stats"};

}  // namespace sluice::ipc::methods::profile
