#include "ipc/method_table.h"

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "ipc/caller_key.h"

namespace sluice::ipc::internal {
absl::Status MethodTable::Add(std::unique_ptr<Handler> handler) {
  if (frozen_) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "cannot add a handler for %s after the router started", handler->name().path()));
  }
  const std::string& path = handler->name().path();
  if (handlers_.contains(path)) {
    return absl::AlreadyExistsError(
        absl::StrFormat("a handler for %s is already registered", handler->name().path()));
  }
  handlers_.emplace(path, std::move(handler));
  return absl::OkStatus();
}

absl::StatusOr<Handler*> MethodTable::Authorize(std::string_view path, std::string_view key,
                                                std::string_view caller_id) const {
  auto it = handlers_.find(absl::string_view(path.data(), path.size()));
  if (it == handlers_.end()) {
    return absl::UnimplementedError(absl::StrFormat("no method %s here", path));
  }
  std::shared_ptr<const absl::flat_hash_map<std::string, std::string>> keys;
  {
    std::lock_guard lock(mu_);
    keys = keys_;
  }
  if (keys == nullptr) {
    return absl::PermissionDeniedError("this component has no method keys yet (not registered)");
  }
  auto k = keys->find(absl::string_view(path.data(), path.size()));
  if (key.empty()) {
    return absl::PermissionDeniedError(
        absl::StrFormat("call to %s has no method key (resolve through the Finder)", path));
  }
  if (caller_id.empty()) {
    return absl::PermissionDeniedError(
        absl::StrFormat("call to %s does not say who calls (resolve through the Finder)", path));
  }
  if (k == keys->end() || !SameKey(CallerKey(k->second, caller_id), key)) {
    return absl::PermissionDeniedError(
        absl::StrFormat("wrong method key for %s from %s", path, caller_id));
  }
  return it->second.get();
}

void MethodTable::SetKeys(absl::flat_hash_map<std::string, std::string> keys) {
  auto shared =
      std::make_shared<const absl::flat_hash_map<std::string, std::string>>(std::move(keys));
  std::lock_guard lock(mu_);
  keys_ = std::move(shared);
}

}  // namespace sluice::ipc::internal
