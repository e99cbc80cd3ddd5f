#pragma once
// The rtrmgr/1.0 methods (ipc/proto/rtrmgr.proto), each tied to its request and reply types
// (ipc/method.h). Served by the router manager (rtrmgr/process/router_manager*.cc). Called by the
// `sluice` CLI (rtrmgr/cli/queries.h). Header-only: a user links sluice_rtrmgr_proto and
// sluice_ipc.

#include "ipc/method.h"
#include "ipc/proto/rtrmgr.pb.h"

namespace sluice::ipc::methods::rtrmgr {

namespace v1 = ::sluice::rtrmgr::v1;

inline const Method<v1::LoadConfigRequest, v1::LoadConfigReply> kLoadConfig{
    "rtrmgr/1.0/load_config"};
inline const Method<v1::ConfirmConfigRequest, v1::ConfirmConfigReply> kConfirmConfig{
    "rtrmgr/1.0/confirm_config"};
inline const Method<v1::RollbackConfigRequest, v1::LoadConfigReply> kRollbackConfig{
    "rtrmgr/1.0/rollback_config"};
inline const Method<v1::GetConfigRequest, v1::GetConfigReply> kGetConfig{"rtrmgr/1.0/get_config"};
inline const Method<v1::GetStatusRequest, v1::GetStatusReply> kGetStatus{"rtrmgr/1.0/get_status"};

}  // namespace sluice::ipc::methods::rtrmgr
