#pragma once
// One phase of restart_bench: SIGKILL one process of a running router and measure its recovery
// (DESIGN.md § Restarts): the kernel's route deletions on the FEA's table, the downstream's
// lowest count of held prefixes, the time until the process is back (registered and configured
// again), until the router has converged again, and until a new upstream route reaches the
// kernel.

#include <sys/types.h>

#include <string>
#include <vector>

#include "bench/restart/bench_watch.h"
#include "rtrmgr/cli/sync_client.h"

namespace sluice::bench::restart {

// The running router and its peers, as the phases share them.
struct Router {
  std::string rundir;  // sluice-rtrmgr --rundir: the processes' NAME.log are here
  std::vector<std::string> rtrmgr_argv;
  pid_t rtrmgr = -1;           // replaced when the router manager itself is killed
  pid_t upstream = -1;         // sluice-replay --extra: SIGUSR2 announces one more route
  std::string downstream_out;  // the downstream sluice-replay --json's stdout
  unsigned table = 100;        // the FEA's kernel table
  KernelMonitor* monitor = nullptr;
  rtrmgr::cli::SyncClient* client = nullptr;
  int probes_since_reconnect = 0;  // routes announced by SIGUSR2 since the upstream reconnected
};

struct PhaseResult {
  std::string process;
  size_t deletions = 0;             // kernel deletions on the table while it recovered
  size_t expected_deletions = 0;    // of those, probe routes the upstream no longer sends
  long lowest_held = -1;            // the downstream's lowest prefix count (-1: unknown)
  double back_s = -1;               // SIGKILL → registered and configured again
  double converged_s = -1;          // SIGKILL → its job done (full push, End-of-RIB sweep)
  double swept_after_start_s = -1;  // sluice-bgp only: its new start → the RIB's stale sweep
  double probe_ms = -1;             // after convergence: a new upstream route → in the kernel
};

// Kills `process` ("finder", "rib", "fea", "static_routes", "bgp" or "rtrmgr") with SIGKILL and
// measures its recovery; -1 fields when a step did not happen within its time limit.
PhaseResult KillAndRecover(Router& router, const std::string& process);

}  // namespace sluice::bench::restart
