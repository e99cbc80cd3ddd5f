#include "tests/bgp/process_harness.h"

#include <stdlib.h>

#include <filesystem>

#include "ipc/methods/bgp.h"
#include "ipc/types_convert.h"
#include "tests/bgp/session_test_util.h"

namespace sluice::bgp::testing {

BgpDaemonHarness::~BgpDaemonHarness() {
  client_.reset();
  daemon_.reset();
  finder_.reset();
  if (!rundir_.empty()) std::filesystem::remove_all(rundir_);
}

absl::Status BgpDaemonHarness::Start(process::BgpDaemonOptions options) {
  char dir[] = "/tmp/sluice-bgp-test-XXXXXX";
  if (mkdtemp(dir) == nullptr) return absl::InternalError("mkdtemp failed");
  rundir_ = dir;
  setenv("SLUICE_RUNDIR", rundir_.c_str(), 1);
  finder::FinderOptions finder_options;
  finder_options.listen = {"unix:" + rundir_ + "/finder.sock"};
  finder_options.recovery_grace = std::chrono::milliseconds(0);
  finder_ = std::make_unique<sluice::testing::FinderThread>(std::move(finder_options));
  if (!finder_->status().ok()) return finder_->status();
  options.router = Options();
  daemon_ = std::make_unique<process::BgpDaemon>(io_, options);
  if (absl::Status st = daemon_->Start(); !st.ok()) return st;
  ipc::RouterOptions co = Options();
  co.serve = false;
  client_ = std::make_unique<ipc::XrlRouter>(io_, "cli", "", co);
  if (absl::Status st = client_->Start(); !st.ok()) return st;
  if (!Run([&] { return daemon_->router().registered() && client_->registered(); })) {
    return absl::DeadlineExceededError("the daemon or the client did not register");
  }
  return absl::OkStatus();
}

ipc::RouterOptions BgpDaemonHarness::Options() const {
  ipc::RouterOptions o;
  o.finder_address = "unix:" + rundir_ + "/finder.sock";
  o.allow_inproc = false;  // through gRPC and the reflection codec, as between processes
  o.finder_wait_ms = 2000;
  return o;
}

absl::Status BgpDaemonHarness::SetIdentity(uint32_t as, net::IPv4Address bgp_id) {
  bgp::v1::SetLocalAsRequest a;
  a.set_as(as);
  if (absl::Status st = Call(ipc::methods::bgp::kSetLocalAs, a).status(); !st.ok()) return st;
  bgp::v1::SetBgpIdRequest id;
  ipc::ToProto(bgp_id, id.mutable_id());
  return Call(ipc::methods::bgp::kSetBgpId, id).status();
}

bool BgpDaemonHarness::Run(const std::function<bool()>& condition, double seconds) {
  return RunUntil(io_, condition, seconds);
}

}  // namespace sluice::bgp::testing
