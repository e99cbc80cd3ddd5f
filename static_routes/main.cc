// sluice-static: static routes as a process of their own (XORP's static_routes), a
// client of the RIB's public interface (rib/1.0) only. Flags, a config file and signals here;
// StaticDaemon (static_daemon.h) wires StaticRoutes (static_routes.h), which decides, and
// XrlRibClient / ServeStatic (static_xrl.h), which talk.
//
//   sluice-static [--finder ENDPOINT] [--instance NAME] [--rib TARGET]
//                 [--route "NETWORK [via NH] [dev IF] [metric N] [tag N] [track]"]... [--config
//                 FILE] [--restart-time SECONDS] [--wait-for-sync]
//
// Wiring:
//   static_routes/1.0 (router manager, `sluice call`) ─┐
//   --route / --config                           ├► StaticRoutes ─► XrlRibClient ─► rib/1.0
//   rib_client/1.0/route_info_invalid ───────────┘
//   Finder birth of the RIB class, or a call lost while it is up → register_protocol("static"),
//   StaticRoutes::RibBorn, end_of_rib
//
// Prints "ready INSTANCE" once registered with the Finder and "rib up INSTANCE" when a RIB is
// found. After sending a RIB our routes we say end-of-RIB (with --wait-for-sync only once the
// router manager has said static_routes/1.0/synced): the RIB then withdraws the stale routes a
// previous sluice-static left and we did not send. SIGINT/SIGTERM or common/1.0/shutdown (a
// deliberate stop): deregister_protocol, so the RIB withdraws our routes, and exit 0. SIGUSR2
// (exit for a restart) or a crash: the RIB keeps our routes, stale, for the restart time
// (DESIGN.md § Restarts). --help lists the options; a bad option or route exits 2 with a message
// naming it.

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <csignal>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/program_options.h"
#include "ipc/methods/common.h"
#include "ipc/process_security.h"
#include "ipc/run_loop.h"
#include "ipc/xrl_router.h"
#include "static_routes/static_daemon.h"

namespace sluice::static_routes {
namespace {

struct Flags {
  ipc::RouterOptions router;
  std::string instance = "static_routes";
  std::string rib = "rib";
  std::vector<StaticRoute> routes;
  int restart_time = 60;
  bool wait_for_sync = false;
};

int Bad(const std::string& message) {
  std::cerr << "sluice-static: " << message << "\n";
  return base::kExitUsage;
}

// One ROUTE per line of `path`; '#' starts a comment. Errors name the file and line.
absl::Status ReadConfig(const std::string& path, std::vector<StaticRoute>* out) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError("cannot read " + path);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    absl::StatusOr<StaticRoute> r = ParseStaticRoute(line);
    if (!r.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", number, ": ", r.status().message()));
    }
    out->push_back(*r);
  }
  return absl::OkStatus();
}

// Returns the status to exit with when the program should not go on (--help, --version, a bad
// command line; base/program_options.h).
std::optional<int> ParseFlags(int argc, char** argv, Flags* flags) {
  base::ProgramOptions options(
      "sluice-static",
      "sluice-static: static routes, handed to the RIB as protocol \"static\" (admin distance "
      "1).\nAlso configurable at run time through static_routes/1.0 (add_route, delete_route, "
      "list_routes).");
  CLI::App& app = options.app();
  app.add_option("--finder", flags->router.finder_address,
                 "the Finder (default unix:$SLUICE_RUNDIR/finder.sock)");
  app.add_option("--instance", flags->instance, "our instance name");
  app.add_option("--rib", flags->rib, "the RIB's class or instance name");
  base::AddParsedOption(
      app, "--route",
      [flags](const std::string& text) {
        absl::StatusOr<StaticRoute> r = ParseStaticRoute(text);
        if (!r.ok()) return r.status();
        flags->routes.push_back(*r);
        return absl::OkStatus();
      },
      "one static route, repeatable: NETWORK [via NEXTHOP] [dev IFNAME] [metric N] [tag N] "
      "[track]; track: in the RIB only while the RIB resolves the nexthop",
      true);
  base::AddParsedOption(
      app, "--config",
      [flags](const std::string& path) { return ReadConfig(path, &flags->routes); },
      "FILE: one ROUTE per line; '#' starts a comment", true);
  app.add_option("--restart-time", flags->restart_time,
                 "seconds the RIB keeps our routes if we die (0: none)")
      ->check(CLI::Range(0, 86400));
  app.add_flag("--wait-for-sync", flags->wait_for_sync,
               "end-of-RIB only after static_routes/1.0/synced (the router manager calls it once "
               "it has pushed the configuration)");
  options.AddLogOptions();
  return options.Parse(argc, argv);
}

int Run(const Flags& flags) {
  boost::asio::io_context io;
  ipc::XrlRouter router(io, "static_routes", flags.instance, flags.router);
  StaticDaemonOptions options;
  options.rib = flags.rib;
  options.restart_time = std::chrono::seconds(flags.restart_time);
  options.wait_for_sync = flags.wait_for_sync;
  options.on_rib_up = [](const std::string& instance) {
    std::cout << "rib up " << instance << std::endl;
  };
  StaticDaemon daemon(io, &router, std::move(options));
  if (absl::Status s = daemon.Start(); !s.ok()) {
    std::cerr << "sluice-static: " << s.message() << "\n";
    return 1;
  }
  for (const StaticRoute& r : flags.routes) {
    if (absl::Status s = daemon.routes().Add(r); !s.ok()) return Bad(std::string(s.message()));
  }

  // A deliberate stop withdraws our routes (deregister_protocol, at most 2 s); an exit for a
  // restart leaves them to the RIB's restart time.
  bool stopping = false;
  boost::asio::steady_timer stop_timer(io);
  auto shutdown = [&](const std::string& why, bool deliberate) {
    if (stopping) return;
    stopping = true;
    router.SetStatus(common::v1::SHUTDOWN, why);
    SLUICE_LOG(kInfo) << why << ": shutting down"
                      << (deliberate ? "; the RIB withdraws our routes" : "");
    if (!deliberate) {
      daemon.Stop();
      return io.stop();
    }
    daemon.Deregister([&io] { io.stop(); });
    stop_timer.expires_after(std::chrono::seconds(2));
    stop_timer.async_wait([&io](const boost::system::error_code& error) {
      if (!error) io.stop();
    });
  };
  router.SetShutdownHandler([&] { shutdown(ipc::methods::common::kShutdown.name().xrl(), true); });
  boost::asio::signal_set signals(io, SIGINT, SIGTERM, SIGUSR2);
  signals.async_wait([&](const boost::system::error_code& error, int signal) {
    if (!error) shutdown(absl::StrCat("signal ", signal), signal != SIGUSR2);
  });
  router.OnReady([&](absl::Status status) {
    if (!status.ok()) {
      SLUICE_LOG(kWarning) << "Finder: " << status.message() << " (still trying)";
      return;
    }
    router.SetStatus(common::v1::READY);
    std::cout << "ready " << router.instance_name() << std::endl;
  });
  if (absl::Status s = router.Start(); !s.ok()) {
    std::cerr << "sluice-static: " << s.message() << "\n";
    return 1;
  }
  sluice::ipc::RunLoop(io);
  return 0;
}

}  // namespace
}  // namespace sluice::static_routes

int main(int argc, char** argv) {
  sluice::base::SetLogTag("static");
  // Before any thread: umask, non-dumpable, the inherited class credential.
  if (absl::Status status = sluice::ipc::HardenProcess(); !status.ok()) {
    std::cerr << "sluice-static: " << status.message() << "\n";
    return 1;
  }
  std::signal(SIGPIPE, SIG_IGN);
  sluice::static_routes::Flags flags;
  if (std::optional<int> exit = sluice::static_routes::ParseFlags(argc, argv, &flags)) {
    return *exit;
  }
  return sluice::static_routes::Run(flags);
}
