// sluice: the operator and scripting CLI (DESIGN.md § Processes). Wiring only: the subcommands
// are in rtrmgr/cli/command.h.
//
//   sluice [--finder ADDRESS] [--timeout MS] COMMAND [ARGS...]
//   sluice call 'finder://rib/common/1.0/get_status'
//   sluice call -f calls.txt
//   sluice targets
//
// Exit status: 0 success, 1 a call failed (the error is printed), 2 bad command line.

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "ipc/rundir.h"
#include "net/log.h"
#include "net/version.h"
#include "rtrmgr/cli/command.h"

namespace {

using sluice::rtrmgr::cli::Commands;

int Help(std::ostream& out, int code) {
  out << "usage: sluice [--finder unix:/PATH|tcp:127.0.0.1:PORT] [--timeout MS] COMMAND [ARGS]\n"
      << "       sluice --version\n"
      << "commands:\n";
  for (const auto& command : Commands()) {
    out << "  " << command.usage << "\n      " << command.summary << "\n";
  }
  out << "The Finder defaults to $SLUICE_FINDER or unix:$SLUICE_RUNDIR/finder.sock "
         "($SLUICE_RUNDIR defaults to /run/sluice for root, $XDG_RUNTIME_DIR/sluice otherwise).\n"
         "Your rights come from your Unix groups: sluice-ops may read, sluice-admin may change.\n";
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  sluice::net::SetLogTag("sluice");
  if (std::getenv("SLUICE_LOG_LEVEL") == nullptr) {
    sluice::net::SetLogLevel(sluice::net::LogLevel::kError);  // the CLI prints its own errors
  }
  sluice::rtrmgr::cli::Context context{sluice::ipc::DefaultFinderAddress(), 5000, &std::cout,
                                       &std::cerr};
  int i = 1;
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--finder" && i + 1 < argc) {
      context.finder_address = argv[++i];
    } else if (arg == "--timeout" && i + 1 < argc) {
      context.timeout_ms = std::atoi(argv[++i]);
      if (context.timeout_ms <= 0) {
        std::cerr << "sluice: --timeout wants a positive number of milliseconds\n";
        return sluice::rtrmgr::cli::kUsage;
      }
    } else if (arg == "--help" || arg == "-h" || arg == "help") {
      return Help(std::cout, sluice::rtrmgr::cli::kOk);
    } else if (arg == "--version") {
      sluice::net::PrintVersion("sluice");
      return sluice::rtrmgr::cli::kOk;
    } else if (!arg.empty() && arg[0] == '-') {
      std::cerr << "sluice: unknown option " << arg << "\n";
      return Help(std::cerr, sluice::rtrmgr::cli::kUsage);
    } else {
      break;
    }
  }
  if (i >= argc) return Help(std::cerr, sluice::rtrmgr::cli::kUsage);
  std::string name = argv[i];
  std::vector<std::string> args(argv + i + 1, argv + argc);
  for (const auto& command : Commands()) {
    if (name == command.name) return command.run(args, context);
  }
  std::cerr << "sluice: unknown command " << name << "\n";
  return Help(std::cerr, sluice::rtrmgr::cli::kUsage);
}
