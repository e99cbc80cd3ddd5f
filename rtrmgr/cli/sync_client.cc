#include "rtrmgr/cli/sync_client.h"

#include <unistd.h>

#include "absl/strings/str_cat.h"

namespace sluice::rtrmgr::cli {

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
