#include "ipc/handler.h"

#include "absl/strings/str_format.h"
#include "base/log.h"

namespace sluice::ipc::internal {

absl::Status HandlerException(const MethodName& name, const char* what) {
  SLUICE_LOG(kError) << "handler of " << name.full_name() << " threw: " << what
                     << "; the call fails, the process goes on";
  return absl::InternalError(absl::StrFormat("%s failed: %s", name.full_name(), what));
}

}  // namespace sluice::ipc::internal
