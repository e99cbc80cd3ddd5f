#include "rtrmgr/cli/sync_client.h"

#include <unistd.h>

#include <chrono>

#include "absl/strings/str_cat.h"

namespace sluice::rtrmgr::cli {

bool RunUntil(boost::asio::io_context& io, int timeout_ms, const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!done() && std::chrono::steady_clock::now() < deadline) {
    io.run_one_for(std::chrono::milliseconds(10));
    if (io.stopped()) io.restart();
  }
  return done();
}

SyncClient::SyncClient(const std::string& finder_address, int timeout_ms,
                       const std::string& class_name)
    : timeout_ms_(timeout_ms) {
  ipc::RouterOptions o;
  o.finder_address = finder_address;
  o.serve = false;
  o.unary_calls = true;
  o.finder_wait_ms = timeout_ms;
  router_ =
      std::make_unique<ipc::XrlRouter>(io_, class_name, absl::StrCat(class_name, "-", getpid()), o);
  (void)router_->Start();
}

SyncClient::~SyncClient() {
  router_.reset();
  io_.poll();
}

}  // namespace sluice::rtrmgr::cli
