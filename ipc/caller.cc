#include "ipc/caller.h"

#include "absl/strings/str_cat.h"

namespace sluice::ipc {

absl::StatusOr<std::string> CallerAsTarget(std::string_view method, std::string_view named,
                                           const Caller& caller) {
  const std::string what(method);
  if (caller.person()) {
    return absl::PermissionDeniedError(absl::StrCat(
        what, ": only a component can be called back, and ", caller.id(), " is a person"));
  }
  if (!named.empty() && named != caller.instance_name) {
    return absl::PermissionDeniedError(absl::StrCat(what, ": ", std::string(named),
                                                    " is not the caller (", caller.id(),
                                                    "); a component acts for itself only"));
  }
  return caller.instance_name;
}

}  // namespace sluice::ipc
