#pragma once
// The policy_backend/1.0 methods (ipc/proto/policy_backend.proto), each tied to its request and
// reply types (ipc/method.h). Served by sluice-bgp (bgp/process/policy_service.h) and sluice-rib
// (rib/service/policy_service.h). Called by the router manager.
// Header-only: a user links sluice_policy_backend_proto and sluice_ipc.

#include "ipc/method.h"
#include "ipc/proto/policy_backend.pb.h"

namespace sluice::ipc::methods::policy_backend {

namespace v1 = ::sluice::policy_backend::v1;

inline const Method<v1::ConfigureRequest, v1::ConfigureReply> kConfigure{
    "policy_backend/1.0/configure"};
inline const Method<v1::ResetRequest, v1::ResetReply> kReset{"policy_backend/1.0/reset"};
inline const Method<v1::PushRoutesRequest, v1::PushRoutesReply> kPushRoutes{
    "policy_backend/1.0/push_routes"};
inline const Method<v1::ListFiltersRequest, v1::ListFiltersReply> kListFilters{
    "policy_backend/1.0/list_filters"};

}  // namespace sluice::ipc::methods::policy_backend
