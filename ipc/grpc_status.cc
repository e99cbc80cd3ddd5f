#include "ipc/grpc_status.h"

#include <string>

#include "absl/strings/cord.h"

namespace sluice::ipc {

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

absl::Status FromGrpcStatus(const grpc::Status& status) {
  return StatusFromWire(static_cast<int>(status.error_code()), status.error_message());
}

int StatusCodeToWire(absl::StatusCode code) { return static_cast<int>(code); }

absl::Status StatusFromWire(int code, std::string_view message) {
  if (code == 0) return absl::OkStatus();
  if (code < 0 || code > 16) code = static_cast<int>(absl::StatusCode::kUnknown);
  return absl::Status(static_cast<absl::StatusCode>(code),
                      absl::string_view(message.data(), message.size()));
}

namespace {
constexpr absl::string_view kUnreachedPayload = "type.sluice/ipc.Unreached";
}  // namespace

absl::Status MarkUnreached(absl::Status status) {
  status.SetPayload(kUnreachedPayload, absl::Cord());
  return status;
}

bool IsUnreached(const absl::Status& status) {
  return status.GetPayload(kUnreachedPayload).has_value();
}

}  // namespace sluice::ipc
