#pragma once
// MethodTable: a router's handlers and their Finder keys, shared by its loop thread and the gRPC
// threads that authorize incoming calls (internal to ipc/).
//
// Handlers are added before the router starts and never change afterwards, so a Handler*
// handed out stays valid for the router's life. Keys arrive from the Finder (and are replaced
// on re-registration); they are read under a mutex.

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "ipc/handler.h"

namespace sluice::ipc::internal {

class MethodTable {
 public:
  // Errors: AlreadyExists (a handler for the method is registered), FailedPrecondition (after
  // Freeze).
  absl::Status Add(std::unique_ptr<Handler> handler);
  // No more handlers (the router started).
  void Freeze() { frozen_ = true; }

  // Thread-safe. The handler for gRPC path `path` when `key` is the key the Finder gave
  // `caller_id` ("CLASS/INSTANCE") for it (ipc/caller_key.h).
  // Errors: Unimplemented (no such method here), PermissionDenied (missing or wrong key, no
  // caller, or the router has no keys yet).
  absl::StatusOr<Handler*> Authorize(std::string_view path, std::string_view key,
                                     std::string_view caller_id) const;
  // Thread-safe. Replaces the method secrets (path -> 16 octets) the Finder drew for us.
  void SetKeys(absl::flat_hash_map<std::string, std::string> keys);

  // Loop thread (after Freeze: any thread).
  const absl::flat_hash_map<std::string, std::unique_ptr<Handler>>& handlers() const {
    return handlers_;
  }

 private:
  bool frozen_ = false;
  absl::flat_hash_map<std::string, std::unique_ptr<Handler>> handlers_;  // by path
  mutable std::mutex mu_;
  std::shared_ptr<const absl::flat_hash_map<std::string, std::string>> keys_;  // guarded by mu_
};

// Counts gRPC client reactors that have not seen OnDone, so that shutdown can wait for them.
class ReactorCount {
 public:
  void Add() {
    std::lock_guard lock(mu_);
    ++count_;
  }
  void Done() {
    std::lock_guard lock(mu_);
    if (--count_ == 0) zero_.notify_all();
  }
  void WaitForZero() {
    std::unique_lock lock(mu_);
    zero_.wait(lock, [this] { return count_ == 0; });
  }

 private:
  std::mutex mu_;
  std::condition_variable zero_;
  int count_ = 0;
};

}  // namespace sluice::ipc::internal
