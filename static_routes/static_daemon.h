#pragma once
// StaticDaemon: the wiring of sluice-static (main.cc adds flags, signals and the loop):
// StaticRoutes (the routes and their nexthops) fed to the RIB through XrlRibClient, and
// static_routes/1.0 and rib_client/1.0 served (ServeStatic).
//
// The RIB is brought up to date (registered as the owner of protocol "static", nexthops asked
// again, every route sent, then end-of-RIB) at each birth of the RIB's class, and after a call
// lost on its way to a RIB that stayed up, with `resync` so that the RIB withdraws what we no
// longer have (ipc/resync.h). End-of-RIB waits for static_routes/1.0/synced with
// `wait_for_sync` (the router manager has pushed the whole configuration).
//
// Everything on the router's event loop.

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "ipc/resync.h"
#include "ipc/xrl_router.h"
#include "static_routes/static_routes.h"
#include "static_routes/static_xrl.h"

namespace sluice::static_routes {

struct StaticDaemonOptions {
  std::string rib = "rib";  // the RIB's class or instance
  std::chrono::seconds restart_time{60};
  bool wait_for_sync = false;
  // Runs at each birth of a RIB, once it was sent our routes (instance name).
  std::function<void(const std::string&)> on_rib_up;
};

class StaticDaemon {
 public:
  // `router` (not started yet) outlives the daemon.
  StaticDaemon(boost::asio::io_context& io, ipc::XrlRouter* router, StaticDaemonOptions options);
  StaticDaemon(const StaticDaemon&) = delete;
  StaticDaemon& operator=(const StaticDaemon&) = delete;

  // Serves static_routes/1.0 and rib_client/1.0 and watches the RIB's class; call before the
  // router starts. Errors: those of XrlRouter::Handle.
  absl::Status Start();

  StaticRoutes& routes() { return routes_; }
  const XrlRibClient& rib() const { return rib_; }
  // A deliberate stop: deregister_protocol (the RIB withdraws our routes), then `done`.
  void Deregister(std::function<void()> done);
  // An exit for a restart: no more re-synchronisation (the RIB keeps our routes, stale).
  void Stop() { resync_.Stop(); }

 private:
  void SyncWithRib(bool after_lost_call);
  void MaybeEndOfRib();

  ipc::XrlRouter* router_;
  StaticDaemonOptions options_;
  XrlRibClient rib_;
  StaticRoutes routes_;
  ipc::Resync resync_;
  bool end_of_rib_due_ = false;
  bool synced_;
};

}  // namespace sluice::static_routes
