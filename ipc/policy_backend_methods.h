#pragma once
// The policy_backend/1.0 methods (ipc/proto/policy_backend.proto), each tied to its request and
// reply types (ipc/method.h): served by sluice-bgp (bgp/process/policy_service.h) and sluice-rib
// (rib/service/policy_service.h), called by the router manager. Header-only: a caller needs
// sluice_policy_backend_proto and sluice_ipc.

#include "ipc/method.h"
#include "ipc/proto/policy_backend.pb.h"

namespace sluice::ipc {

inline const Method<policy_backend::v1::ConfigureRequest, policy_backend::v1::ConfigureReply>
    kPolicyConfigure{"policy_backend/1.0/configure"};
inline const Method<policy_backend::v1::ResetRequest, policy_backend::v1::ResetReply> kPolicyReset{
    "policy_backend/1.0/reset"};
inline const Method<policy_backend::v1::PushRoutesRequest, policy_backend::v1::PushRoutesReply>
    kPolicyPushRoutes{"policy_backend/1.0/push_routes"};
inline const Method<policy_backend::v1::ListFiltersRequest, policy_backend::v1::ListFiltersReply>
    kPolicyListFilters{"policy_backend/1.0/list_filters"};

}  // namespace sluice::ipc
