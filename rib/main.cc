// sluice-rib: the RIB process (DESIGN.md § Processes; XORP NSDI'05 §5.2). Wiring only: the
// stage networks are in rib/ (rib.h), the RPC adapters in rib/service/.
//
//   sluice-rib [--finder ADDR] [--instance NAME] [--listen EP]... [--fea INSTANCE]
//              [--fea-batch-size N] [--fea-max-in-flight N] [--fea-max-backlog N]
//              [--restart-time SECONDS] [--expect-protocols P,P...]
//
//   --finder     the Finder (default $SLUICE_FINDER or unix:$SLUICE_RUNDIR/finder.sock)
//   --instance   the component instance name (default "rib"); the class is "rib"
//   --listen     where to serve (unix:/PATH or tcp:127.0.0.1:PORT); default a Unix socket
//   --fea        the one FEA instance to feed (default: every component of class "fea", each
//                with its own FIB stream, full pushes and backlog; rib/service/fea_feeds.h)
//   --fea-batch-size     route changes per FIB transaction (default 4000)
//   --fea-max-in-flight  FIB transactions sent and not yet answered (default 4)
//   --fea-max-backlog    route changes queued for an FEA and not yet sent (default 524288;
//                        0: no bound); past it the FEA is lagging, and once it has caught up
//                        the RIB re-sends the whole FIB (rib/fea_out_stage.h)
//   --restart-time       after this RIB starts, how long the FEA keeps the routes it holds for
//                        protocols that have not re-fed this RIB yet (default 60; DESIGN.md
//                        § Restarts)
//   --expect-protocols   the protocols the configuration runs (e.g. static,ebgp,ibgp): what the
//                        FEA's routes of unknown origin wait for
//
// Serves rib/1.0, fea_ifmgr_client/1.0 (the FEA's interface events), profile/1.0,
// policy_backend/1.0 (origin:static, origin:connected) and
// common/1.0; calls fea_fib/1.0, fea_ifmgr/1.0 and its clients' rib_client/1.0. Status:
// NOT_READY while no FEA is up, READY while at least one is. SIGTERM, SIGINT or common/1.0/shutdown
// exit 0 (the FEA keeps the FIB; a new RIB re-sends it). --help lists the options; a bad option
// exits 2 with a message naming it.

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/log.h"
#include "base/program_options.h"
#include "ipc/methods/common.h"
#include "ipc/process_security.h"
#include "ipc/profile_service.h"
#include "ipc/run_loop.h"
#include "ipc/xrl_router.h"
#include "rib/rib.h"
#include "rib/service/fea_feeds.h"
#include "rib/service/full_push_gate.h"
#include "rib/service/policy_service.h"
#include "rib/service/rib_clients.h"
#include "rib/service/rib_service.h"
#include "rib/service/xrl_interface_source.h"
#include "stage/profile.h"

namespace {

using namespace sluice;

struct Flags {
  ipc::RouterOptions router;
  std::string instance = "rib";
  std::string fea;
  rib::RibOptions rib;
  int64_t restart_time = 60;
  std::vector<std::string> expect_protocols;
};

// Returns the status to exit with when the program should not go on (--help, --version, a bad
// command line; base/program_options.h).
std::optional<int> ParseFlags(int argc, char** argv, Flags* flags) {
  base::ProgramOptions options("sluice-rib",
                               "sluice-rib: the RIB process, routes of every protocol");
  CLI::App& app = options.app();
  app.add_option("--finder", flags->router.finder_address,
                 "the Finder: unix:/PATH or tcp:127.0.0.1:PORT (default $SLUICE_FINDER or "
                 "unix:$SLUICE_RUNDIR/finder.sock)");
  app.add_option("--instance", flags->instance, "the component instance name; the class is rib")
      ->check(
          CLI::Validator([](std::string& v) { return v.empty() ? "wants a name" : ""; }, "NAME"));
  base::AddRepeatedOption(app, "--listen", flags->router.listen,
                          "where to serve: unix:/PATH or tcp:127.0.0.1:PORT (default a Unix "
                          "socket in the run directory); repeatable");
  app.add_option("--fea", flags->fea,
                 "the one FEA instance to feed (default every one of class fea)");
  app.add_option("--fea-batch-size", flags->rib.fea.batch_size, "route changes per FIB transaction")
      ->check(CLI::Range(1, 100000));
  app.add_option("--fea-max-in-flight", flags->rib.fea.max_in_flight,
                 "FIB transactions sent and not yet answered")
      ->check(CLI::Range(1, 1000));
  app.add_option("--fea-max-backlog", flags->rib.fea.max_backlog,
                 "route changes queued for the FEA and not yet sent (0: no bound); past it the "
                 "whole FIB is re-sent once the FEA has caught up")
      ->check(CLI::Range(0, 100000000));
  app.add_option("--restart-time", flags->restart_time,
                 "seconds the FEA keeps, after this RIB starts, the routes of protocols that "
                 "have not re-fed it yet")
      ->check(CLI::Range(0, 86400));
  base::AddParsedOption(
      app, "--expect-protocols",
      [flags](const std::string& v) {
        flags->expect_protocols = absl::StrSplit(v, ',', absl::SkipEmpty());
        return absl::OkStatus();
      },
      "P,P...: the protocols the configuration runs (e.g. static,ebgp,ibgp), what the FEA's "
      "routes of unknown origin wait for");
  options.AddLogOptions();
  return options.Parse(argc, argv);
}

}  // namespace

int main(int argc, char** argv) {
  base::SetLogTag("rib");
  // Before any thread: umask, non-dumpable, the inherited class credential.
  if (absl::Status status = ipc::HardenProcess(); !status.ok()) {
    std::cerr << "sluice-rib: " << status.message() << "\n";
    return 1;
  }
  Flags flags;
  if (std::optional<int> exit = ParseFlags(argc, argv, &flags)) return *exit;

  boost::asio::io_context io;
  stage::Profiler& profiler = stage::Profiler::Default();
  flags.rib.profiler = &profiler;

  ipc::XrlRouter router(io, "rib", flags.instance, flags.router);
  // When a restarted RIB lets the FEAs sweep what it did not re-send (full_push_gate.h).
  rib::FullPushGate gate(io, std::chrono::seconds(flags.restart_time), flags.expect_protocols,
                         nullptr);
  // End-of-RIB (rib/1.0 end_of_rib, connected routes synced) -> the gate.
  flags.rib.on_end_of_rib = [&gate](std::string_view protocol) { gate.EndOfRib(protocol); };
  rib::Rib rib(io, nullptr, flags.rib);
  // FEA fea_ifmgr_client/1.0/interface_events -> the Rib's connected routes.
  rib::XrlInterfaceSource interfaces(router);
  rib.AttachInterfaceSource(&interfaces);
  // Rib interest and redistribution notifications -> clients' rib_client/1.0; client deaths ->
  // Rib::ProtocolDied for the protocols they own.
  rib::RibClients clients(io, router, rib);
  // rib/1.0 -> Rib and RibClients.
  rib::RibService service(router, rib, clients);
  // Nexthop questions wait for the IGP routes a restarted RIB is re-fed (full_push_gate.h).
  service.SetInterestGate(&gate);
  // profile/1.0 -> the profiling points; describe_plumbing -> the stage networks.
  std::unique_ptr<rib::FeaFeeds> feas;
  auto describe_plumbing = [&] {
    return absl::StrCat(rib.Describe(), "\n", feas->Describe(), "\n", clients.Describe(), "\n");
  };
  // policy_backend/1.0 -> the Rib's origin policy on static and connected routes.
  rib::RibPolicyService policy(router, rib);
  for (absl::Status s :
       {service.Register(), interfaces.Register(),
        ipc::ServeProfile(router, profiler, ipc::DescribeNow(describe_plumbing)),
        ipc::ServeStageStats(router, [&rib] { return rib.QueueDepths(); }), policy.Register()}) {
    if (!s.ok()) {
      std::cerr << "sluice-rib: " << s.message() << "\n";
      return 1;
    }
  }

  // FEA births and deaths (Finder) -> a full re-send of the FIB to that FEA (fea_fib/1.0),
  // the interface subscription, the status.
  feas = std::make_unique<rib::FeaFeeds>(
      io, router, rib, gate, interfaces, rib::FeaFeeds::Options{.instance = flags.fea},
      [&router](size_t live) {
        if (live > 0) {
          router.SetStatus(common::v1::READY);
        } else {
          router.SetStatus(common::v1::NOT_READY, "waiting for the FEA");
        }
      });

  bool shutting_down = false;
  auto shutdown = [&](const std::string& why) {
    if (shutting_down) return;
    shutting_down = true;
    router.SetStatus(common::v1::SHUTDOWN, why);
    SLUICE_LOG(kInfo) << why << ": shutting down";
    interfaces.Stop();
    io.stop();
  };
  router.SetShutdownHandler([&] { shutdown(ipc::methods::common::kShutdown.name().xrl()); });
  boost::asio::signal_set signals(io, SIGINT, SIGTERM, SIGUSR2);
  signals.async_wait([&](const boost::system::error_code& error, int signal) {
    if (!error) shutdown(absl::StrCat("signal ", signal));
  });

  router.SetStatus(common::v1::STARTUP, "registering with the Finder");
  router.OnReady([&](absl::Status status) {
    if (!status.ok()) {
      SLUICE_LOG(kWarning) << "Finder: " << status.message() << " (still trying)";
      return;
    }
    if (feas->live() == 0) router.SetStatus(common::v1::NOT_READY, "waiting for the FEA");
    SLUICE_LOG(kInfo) << "ready: instance " << router.instance_name();
  });
  feas->Start();
  if (absl::Status s = router.Start(); !s.ok()) {
    std::cerr << "sluice-rib: " << s.message() << "\n";
    return 1;
  }
  ipc::RunLoop(io);
  interfaces.Stop();
  return 0;
}
