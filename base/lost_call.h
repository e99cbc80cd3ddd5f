#pragma once
// Whether a failed call may not have reached a callee that is still up: UNAVAILABLE (the
// connection failed) or DEADLINE_EXCEEDED (no answer in time). Any other error is the callee's
// answer. Callers repair such a loss by sending what they hold again (ipc/resync.h, the RIB's
// FeaOutStage and RibClients).

#include "absl/status/status.h"

namespace sluice {

inline bool IsLostCall(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnavailable ||
         status.code() == absl::StatusCode::kDeadlineExceeded;
}

}  // namespace sluice
