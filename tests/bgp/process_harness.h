#pragma once
// BgpDaemonHarness: sluice-bgp in the test's process, reached as between processes — an
// in-process Finder in a fresh run directory, a BgpDaemon (the wiring of sluice-bgp) and a client
// router that calls it over gRPC through the reflection codec. Everything but the Finder runs on
// the harness's event loop, which the test drives with Run().
//
//   BgpDaemonHarness h;
//   ASSERT_TRUE(h.Start().ok());
//   absl::StatusOr<v1::ListPeersReply> peers = h.Call(kListPeers, v1::ListPeersRequest());
//
// Set SLUICE_RUNDIR for the process (the run directory). Routers a test adds (a FakeRib) use
// Options() and must go before the harness.

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bgp/process/bgp_daemon.h"
#include "ipc/method.h"
#include "ipc/xrl_router.h"
#include "tests/ipc/finder_thread.h"

namespace sluice::bgp::testing {

class BgpDaemonHarness {
 public:
  BgpDaemonHarness() = default;
  ~BgpDaemonHarness();  // the client, the daemon and the Finder stopped; the run directory gone
  BgpDaemonHarness(const BgpDaemonHarness&) = delete;
  BgpDaemonHarness& operator=(const BgpDaemonHarness&) = delete;

  // Starts the Finder, the daemon with `options` (its router options are Options()) and the
  // client; returns once both are registered (errors: what failed, or DeadlineExceeded).
  absl::Status Start(process::BgpDaemonOptions options = {});

  // Router options reaching this Finder over gRPC (no in-process shortcut).
  ipc::RouterOptions Options() const;
  boost::asio::io_context& io() { return io_; }
  process::BgpDaemon& daemon() { return *daemon_; }
  ipc::XrlRouter& client() { return *client_; }

  // The local AS and BGP Identifier (bgp/1.0/set_local_as and set_bgp_id), which peers need.
  absl::Status SetIdentity(uint32_t as, net::IPv4Address bgp_id);

  // Runs the loop until `condition` holds (checked every 10 ms) or `seconds` pass.
  bool Run(const std::function<bool()>& condition, double seconds = 10);

  // Calls the daemon's bgp/1.0 `method` and runs the loop until the answer is in.
  template <typename Request, typename Reply>
  absl::StatusOr<Reply> Call(const ipc::Method<Request, Reply>& method, Request request) {
    std::optional<absl::StatusOr<Reply>> result;
    client_->Call("bgp", method, std::move(request),
                  [&](absl::StatusOr<Reply> reply) { result = std::move(reply); });
    if (!Run([&] { return result.has_value(); })) return absl::DeadlineExceededError("no answer");
    return *result;
  }

 private:
  std::string rundir_;
  std::unique_ptr<sluice::testing::FinderThread> finder_;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_ =
      boost::asio::make_work_guard(io_);
  std::unique_ptr<process::BgpDaemon> daemon_;
  std::unique_ptr<ipc::XrlRouter> client_;
};

}  // namespace sluice::bgp::testing
