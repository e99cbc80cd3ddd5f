#pragma once
// SyncClient: typed, blocking XRL calls for programs that are not event driven (the `sluice
// show` commands, the main job's driver). An XrlRouter of its own (class "sluice", serving
// nothing) on a private io_context that runs only inside Call().
//
//   SyncClient client(finder_address, /*timeout_ms=*/5000);
//   absl::StatusOr<bgp::v1::ListPeersReply> peers =
//       client.Call("bgp", ipc::methods::bgp::kListPeers, bgp::v1::ListPeersRequest());

#include <boost/asio/io_context.hpp>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "ipc/xrl_router.h"
#include "rtrmgr/cli/run_until.h"

namespace sluice::rtrmgr::cli {

class SyncClient {
 public:
  SyncClient(const std::string& finder_address, int timeout_ms,
             const std::string& class_name = "sluice");
  ~SyncClient();

  // The reply, or the call's error; DEADLINE_EXCEEDED naming the method after timeout_ms.
  template <typename Request, typename Reply>
  absl::StatusOr<Reply> Call(const std::string& target, const ipc::Method<Request, Reply>& method,
                             Request request) {
    // Shared with the callback: a reply after the deadline arrives during a later call, and
    // must not write into this call's stack.
    auto result = std::make_shared<std::optional<absl::StatusOr<Reply>>>();
    router_->Call(target, method, std::move(request),
                  [result](absl::StatusOr<Reply> reply) { *result = std::move(reply); });
    if (!RunUntil(io_, timeout_ms_, [&] { return result->has_value(); })) {
      return absl::DeadlineExceededError("no answer from " + target + " to " + method.name().xrl());
    }
    return std::move(**result);
  }

 private:
  boost::asio::io_context io_;
  std::unique_ptr<ipc::XrlRouter> router_;
  int timeout_ms_;
};

}  // namespace sluice::rtrmgr::cli
