// sluice-rtrmgr: the router manager (DESIGN.md § Processes). Wiring only: the work is
// in router_manager.h (start, configure, supervise, reload), configurator.h (config → XRLs),
// supervisor.h (child processes) and rtrmgr/config/ (the language).
//
//   sluice-rtrmgr --config FILE [--rundir DIR] [--bin-dir DIR] [--user NAME] [--check]
//
//   --config   the configuration file (rtrmgr/examples/ has annotated ones)
//   --rundir   sockets and the processes' logs (NAME.log); default $SLUICE_RUNDIR, else
//              /run/sluice for root (ipc/rundir.h). The children and the `sluice` CLI find the
//              Finder there. It must belong to us and be writable by nobody else.
//   --user     started as root, run the processes as this user (default: the configuration's
//              `user NAME;`, else "sluice" when it exists)
//   --bin-dir  where the programs are: an installed directory (sluice-finder, sluice-fea, ...)
//              or a build tree (finder/sluice-finder, ...). Default: PREFIX/lib/sluice when this
//              program is PREFIX/sbin/sluice-rtrmgr and the daemons are there, else the build
//              tree this program is in (program_dir.h)
//   --check    validate the file, print it back in canonical form, and exit
//
// Prints "ready" on stdout once every process has taken its configuration, and tells systemd
// (READY=1 on $NOTIFY_SOCKET, service_notify.h). SIGHUP re-reads the file and applies the change
// all or nothing (a change a process refuses is rolled back; RELOADING=1, then READY=1);
// SIGTERM/SIGINT stop every process (BGP first; STOPPING=1) and exit 0. A file with errors exits 1
// before anything starts, with one "FILE:LINE:COL: message" per error on stderr; a bad option
// exits 2 with a message naming it. --help lists the options. The manual page is
// docs/man/sluice-rtrmgr.8.
//
// If the router manager dies otherwise (SIGKILL, a crash), its processes keep running; started
// again with the same run directory, it takes them over (router_manager.h) instead of starting
// copies, and a file with errors then leaves the saved configuration running.

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>

#include "base/log.h"
#include "base/program_options.h"
#include "ipc/process_security.h"
#include "ipc/run_loop.h"
#include "ipc/rundir.h"
#include "rtrmgr/config/config_loader.h"
#include "rtrmgr/config/config_printer.h"
#include "rtrmgr/process/program_dir.h"
#include "rtrmgr/process/router_manager.h"
#include "rtrmgr/process/service_notify.h"

namespace {

// Returns the status to exit with when the program should not go on (--help, --version, a bad
// command line; base/program_options.h).
std::optional<int> ParseFlags(int argc, char** argv, sluice::rtrmgr::RouterManagerOptions* o,
                              bool* check) {
  sluice::base::ProgramOptions options(
      "sluice-rtrmgr",
      "sluice-rtrmgr: the router manager; starts, configures and supervises the Sluice "
      "processes.\nSIGHUP re-reads the configuration file, SIGTERM stops every process.");
  CLI::App& app = options.app();
  app.add_option("--config", o->config_file, "the configuration file (sluice.conf(5)); required");
  app.add_option("--rundir", o->rundir,
                 "sockets and the processes' logs; $SLUICE_RUNDIR, else /run/sluice for root, "
                 "else $XDG_RUNTIME_DIR/sluice");
  app.add_option("--bin-dir", o->bin_dir,
                 "where the programs are: an installed directory (PREFIX/lib/sluice) or a build "
                 "tree");
  app.add_option("--user", o->user,
                 "started as root, run the processes as this user (default: the "
                 "configuration's `user NAME;`, else sluice when it exists)");
  app.add_flag("--check", *check, "validate the file, print it back in canonical form, and exit");
  options.AddLogOptions();
  if (std::optional<int> exit = options.Parse(argc, argv)) return exit;
  if (o->config_file.empty()) return options.Fail("--config FILE is required");
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace sluice;
  base::SetLogTag("rtrmgr");
  // Before any thread: umask, non-dumpable, the inherited class credential.
  if (absl::Status status = ipc::HardenProcess(); !status.ok()) {
    std::cerr << "sluice-rtrmgr: " << status.message() << "\n";
    return 1;
  }
  std::signal(SIGPIPE, SIG_IGN);
  rtrmgr::RouterManagerOptions options;
  options.rundir = ipc::RunDir();
  options.bin_dir = rtrmgr::DefaultProgramDir();
  bool check = false;
  if (std::optional<int> exit = ParseFlags(argc, argv, &options, &check)) return *exit;
  // Absolute, so that SIGHUP re-reads the same file whatever the working directory.
  if (char* absolute = realpath(options.config_file.c_str(), nullptr); absolute != nullptr) {
    options.config_file = absolute;
    free(absolute);
  }
  if (check) {
    absl::StatusOr<rtrmgr::Config> config = rtrmgr::LoadConfigFile(options.config_file);
    if (!config.ok()) {
      std::cerr << config.status().message() << "\n";
      return 1;
    }
    std::cout << rtrmgr::PrintConfig(*config);
    return 0;
  }
  // Children and the CLI find the Finder through the rundir.
  setenv("SLUICE_RUNDIR", options.rundir.c_str(), 1);

  boost::asio::io_context io;
  rtrmgr::RouterManager manager(io, options);
  manager.on_ready = [] {
    std::cout << "ready" << std::endl;
    rtrmgr::NotifyReady();
  };
  if (absl::Status s = manager.Start(); !s.ok()) {
    std::cerr << (s.code() == absl::StatusCode::kInvalidArgument ? "" : "sluice-rtrmgr: ")
              << s.message() << "\n";
    manager.Shutdown();
    return 1;
  }
  boost::asio::signal_set hup(io, SIGHUP);
  std::function<void()> wait_hup = [&] {
    hup.async_wait([&](const boost::system::error_code& error, int) {
      if (error) return;
      rtrmgr::NotifyReloading();
      manager.Reload(
          "", false, [](absl::StatusOr<std::string> delta, std::vector<std::string> warnings) {
            if (delta.ok()) {
              SLUICE_LOG(kInfo) << "SIGHUP: applied:\n" << *delta;
            } else {
              SLUICE_LOG(kWarning) << "SIGHUP: not applied: " << delta.status().message();
            }
            for (const std::string& w : warnings) SLUICE_LOG(kWarning) << w;
            rtrmgr::NotifyReady();
          });
      wait_hup();
    });
  };
  wait_hup();
  boost::asio::signal_set term(io, SIGTERM, SIGINT);
  term.async_wait([&](const boost::system::error_code& error, int) {
    if (error) return;
    rtrmgr::NotifyStopping();
    manager.Shutdown();
    io.stop();
  });
  ipc::RunLoop(io);
  rtrmgr::NotifyStopping();  // also after common/1.0 shutdown, which stopped the loop itself
  manager.Shutdown();
  return 0;
}
