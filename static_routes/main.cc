// sluice-static: static routes as a process of their own (issue 13; XORP's static_routes), a
// client of the RIB's public interface (rib/1.0) only. Flags, a config file and signals here;
// StaticRoutes (static_routes.h) decides, XrlRibClient / ServeStatic (static_xrl.h) talk.
//
//   sluice-static [--finder ENDPOINT] [--instance NAME] [--rib TARGET]
//                 [--route "NETWORK [via NH] [dev IF] [metric N] [tag N] [track]"]... [--config
//                 FILE]
//
// Wiring:
//   static_routes/1.0 (router manager, `sluice call`) ─┐
//   --route / --config                           ├► StaticRoutes ─► XrlRibClient ─► rib/1.0
//   rib_client/1.0/route_info_invalid ───────────┘
//   Finder birth of the RIB class → register_protocol("static"), StaticRoutes::RibBorn
//
// Prints "ready INSTANCE" once registered with the Finder and "rib up INSTANCE" when a RIB is
// found. SIGINT/SIGTERM or common/1.0/shutdown: exit 0 (the RIB drops our routes when the
// Finder reports us gone; it does the same after kill -9).

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ipc/process_security.h"
#include "ipc/run_loop.h"
#include "ipc/xrl_router.h"
#include "net/log.h"
#include "static_routes/static_routes.h"
#include "static_routes/static_xrl.h"

namespace sluice::static_routes {
namespace {

constexpr char kUsage[] = R"(usage: sluice-static [options]

Static routes, handed to the RIB as protocol "static" (admin distance 1).

  --finder ENDPOINT   the Finder (default unix:$SLUICE_RUNDIR/finder.sock)
  --instance NAME     our instance name (default "static_routes")
  --rib TARGET        the RIB's class or instance name (default "rib")
  --route ROUTE       one static route, repeatable:
                        NETWORK [via NEXTHOP] [dev IFNAME] [metric N] [tag N] [track]
                      `track`: in the RIB only while the RIB resolves the nexthop
  --config FILE       one ROUTE per line; '#' starts a comment
Also configurable at run time through static_routes/1.0 (add_route, delete_route, list_routes).
)";

struct Flags {
  ipc::RouterOptions router;
  std::string instance = "static_routes";
  std::string rib = "rib";
  std::vector<StaticRoute> routes;
};

int Bad(const std::string& message) {
  std::cerr << "sluice-static: " << message << "\n" << kUsage;
  return 2;
}

int ReadConfig(const std::string& path, std::vector<StaticRoute>* out) {
  std::ifstream in(path);
  if (!in) return Bad("cannot read " + path);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    absl::StatusOr<StaticRoute> r = ParseStaticRoute(line);
    if (!r.ok()) return Bad(absl::StrCat(path, ":", number, ": ", r.status().message()));
    out->push_back(*r);
  }
  return 0;
}

int ParseFlags(int argc, char** argv, Flags* flags) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 1;
    }
    if (i + 1 >= argc)
      return Bad(arg == "--finder" || arg == "--instance" || arg == "--rib" || arg == "--route" ||
                         arg == "--config"
                     ? arg + " needs a value"
                     : "unknown argument " + arg);
    const std::string value = argv[++i];
    if (arg == "--finder") {
      flags->router.finder_address = value;
    } else if (arg == "--instance") {
      flags->instance = value;
    } else if (arg == "--rib") {
      flags->rib = value;
    } else if (arg == "--route") {
      absl::StatusOr<StaticRoute> r = ParseStaticRoute(value);
      if (!r.ok()) return Bad(std::string(r.status().message()));
      flags->routes.push_back(*r);
    } else if (arg == "--config") {
      if (int s = ReadConfig(value, &flags->routes); s != 0) return s;
    } else {
      return Bad("unknown argument " + arg);
    }
  }
  return 0;
}

int Run(const Flags& flags) {
  boost::asio::io_context io;
  ipc::XrlRouter router(io, "static_routes", flags.instance, flags.router);
  // StaticRoutes → rib/1.0 (routes and nexthop interest).
  XrlRibClient rib(&router, flags.rib);
  StaticRoutes routes(&rib, &rib);
  // static_routes/1.0 and rib_client/1.0 → StaticRoutes.
  if (absl::Status s = ServeStatic(router, routes); !s.ok()) {
    std::cerr << "sluice-static: " << s.message() << "\n";
    return 1;
  }
  for (const StaticRoute& r : flags.routes) {
    if (absl::Status s = routes.Add(r); !s.ok()) return Bad(std::string(s.message()));
  }
  // Finder birth of a RIB → register "static" as ours, ask nexthops again, send every route.
  router.WatchClass(flags.rib, [&](const ipc::TargetEvent& e) {
    if (e.kind == ipc::TargetEvent::kBirth) {
      SLUICE_LOG(kInfo) << "RIB " << e.instance_name << " is up: sending " << routes.List().size()
                        << " static routes";
      rib.RegisterProtocol();
      routes.RibBorn();
      std::cout << "rib up " << e.instance_name << std::endl;
    } else {
      SLUICE_LOG(kWarning) << "RIB " << e.instance_name << " died";
    }
  });

  bool stopping = false;
  auto shutdown = [&](const std::string& why) {
    if (stopping) return;
    stopping = true;
    router.SetStatus(common::v1::SHUTDOWN, why);
    SLUICE_LOG(kInfo) << why << ": shutting down";
    io.stop();
  };
  router.SetShutdownHandler([&] { shutdown("common/1.0/shutdown"); });
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code& error, int signal) {
    if (!error) shutdown(absl::StrCat("signal ", signal));
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
  sluice::net::SetLogTag("static");
  // Before any thread: umask, non-dumpable, the inherited class credential.
  if (absl::Status status = sluice::ipc::HardenProcess(); !status.ok()) {
    std::cerr << "sluice-static: " << status.message() << "\n";
    return 1;
  }
  std::signal(SIGPIPE, SIG_IGN);
  sluice::static_routes::Flags flags;
  if (int s = sluice::static_routes::ParseFlags(argc, argv, &flags); s != 0) return s == 1 ? 0 : s;
  return sluice::static_routes::Run(flags);
}
