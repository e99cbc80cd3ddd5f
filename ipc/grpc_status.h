#pragma once
// The one place where absl::Status and grpc::Status meet (internal to ipc/ and finder/).
// Codes are the same google.rpc.Code numbers on both sides; messages pass unchanged.

#include <string_view>

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace sluice::ipc {

grpc::Status ToGrpcStatus(const absl::Status& status);
absl::Status FromGrpcStatus(const grpc::Status& status);
// A status carried as (code, message) in protobuf fields (ipc/proto/channel.proto,
// finder.proto). An unknown code becomes UNKNOWN.
absl::Status StatusFromWire(int code, std::string_view message);
int StatusCodeToWire(absl::StatusCode code);

// `status` (UNAVAILABLE) marked as made by this process's IPC layer because the call got no
// answer from its target: the target could not be resolved or reached, or the connection was
// lost first. A handler's own UNAVAILABLE is never marked. ipc::IsUnreached (ipc/xrl_router.h)
// tells them apart.
absl::Status MarkUnreached(absl::Status status);

}  // namespace sluice::ipc
