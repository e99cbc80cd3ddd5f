#pragma once
// The profile/1.0 methods (ipc/proto/profile.proto), each tied to its request and reply types
// (ipc/method.h): served by ServeProfile (ipc/profile_service.h) in sluice-fea, sluice-rib and
// sluice-bgp, called by `sluice profile` and `sluice show plumbing`. Header-only: a caller needs
// sluice_profile_proto and sluice_ipc, not the server.

#include "ipc/method.h"
#include "ipc/proto/profile.pb.h"

namespace sluice::ipc {

inline const Method<profile::v1::ListPointsRequest, profile::v1::ListPointsReply>
    kProfileListPoints{"profile/1.0/list_points"};
inline const Method<profile::v1::EnableRequest, profile::v1::EnableReply> kProfileEnable{
    "profile/1.0/enable"};
inline const Method<profile::v1::GetEntriesRequest, profile::v1::GetEntriesReply>
    kProfileGetEntries{"profile/1.0/get_entries"};
inline const Method<profile::v1::ClearRequest, profile::v1::ClearReply> kProfileClear{
    "profile/1.0/clear"};
inline const Method<profile::v1::DescribePlumbingRequest, profile::v1::DescribePlumbingReply>
    kProfileDescribePlumbing{"profile/1.0/describe_plumbing"};
inline const Method<profile::v1::GetStageStatsRequest, profile::v1::GetStageStatsReply>
    kProfileGetStageStats{"profile/1.0/get_stage_stats"};

}  // namespace sluice::ipc
