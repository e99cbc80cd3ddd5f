#pragma once
// The common/1.0 methods (ipc/proto/common.proto), each tied to its request and reply types
// (ipc/method.h). Served by every process's XRL router (ipc/router_core.cc). Called by the router
// manager (set_log, rtrmgr/process/router_manager_log.cc), `sluice log` and `sluice call`.
// Header-only: a user links sluice_common_proto and sluice_ipc.

#include "ipc/method.h"
#include "ipc/proto/common.pb.h"

namespace sluice::ipc::methods::common {

namespace v1 = ::sluice::common::v1;

inline const Method<v1::GetTargetNameRequest, v1::GetTargetNameReply> kGetTargetName{
    "common/1.0/get_target_name"};
inline const Method<v1::GetVersionRequest, v1::GetVersionReply> kGetVersion{
    "common/1.0/get_version"};
inline const Method<v1::GetStatusRequest, v1::GetStatusReply> kGetStatus{"common/1.0/get_status"};
inline const Method<v1::ShutdownRequest, v1::ShutdownReply> kShutdown{"common/1.0/shutdown"};
inline const Method<v1::SetLogRequest, v1::SetLogReply> kSetLog{"common/1.0/set_log"};

}  // namespace sluice::ipc::methods::common
