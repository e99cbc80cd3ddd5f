// restart_bench: hitless restarts measured (DESIGN.md § Restarts). A router in a private network
// namespace of its own — sluice-rtrmgr, the netlink FEA programming kernel table 100,
// sluice-static with 10 routes, sluice-bgp — is fed a full table by a `sluice-replay
// --graceful-restart --reconnect` upstream and passes it on to a `sluice-replay --receive-only
// --graceful-restart` downstream. Then each process is killed with SIGKILL in turn, and for each
// it prints: the kernel's deletions on table 100 while it recovered (the target is 0; after
// sluice-bgp's restart the routes announced since the upstream's previous session are
// expected to go), the downstream's lowest prefix count, the seconds until the process is back
// (registered and configured) and until the router converged again (the FEA's full push
// complete after a RIB or FEA restart, the RIB's End-of-RIB sweep after a sluice-bgp or
// sluice-static restart), for sluice-bgp the seconds from its new start to the last stale route
// swept, and the milliseconds a new upstream route then takes to reach the kernel.
//
//   restart_bench [--mrt FILE | --synthetic N] [--rounds R] [--processes a,b,...]
//
// The default table is the PCH full-table capture from $SLUICE_DATA_DIR/mrt (or
// ../shared/data/mrt), sent as its final table; --synthetic N sends a generated table instead.
// Root only (unshare -n). Not a test: it prints numbers; logs stay in the run directory.

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/log.h"
#include "base/program_options.h"
#include "bench/restart/restart_phase.h"
#include "ipc/methods/rib.h"
#include "rtrmgr/cli/queries.h"
#include "rtrmgr/mainjob/programs.h"

namespace sluice::bench::restart {
namespace {

using rtrmgr::mainjob::BuildDir;
using rtrmgr::mainjob::Spawn;
using rtrmgr::mainjob::Stop;

constexpr int kPort = 10182;
constexpr int kStatics = 10;
constexpr char kPch[] = "mrt/pch-2015-10-23-fulltable-updates.mrt.gz";

// The processes --processes may name, in the default order.
const std::vector<std::string> kProcesses = {"finder",        "rib",    "fea",
                                             "static_routes", "rtrmgr", "bgp"};

struct Options {
  std::string mrt;
  uint64_t synthetic = 0;
  int rounds = 1;
  std::vector<std::string> processes = kProcesses;
};

std::string Config() {
  std::string statics;
  for (int i = 0; i < kStatics; ++i) {
    absl::StrAppend(&statics, "        route 192.0.", i, ".0/24 { next-hop 10.1.0.2; }\n");
  }
  return absl::StrCat("fea { backend netlink; table 100; }\nprotocols {\n    static {\n", statics,
                      R"(    }
    bgp {
        local-as 4200000001;
        bgp-id 10.255.0.1;
        listen 127.0.0.1 port )",
                      kPort, R"(;
        peer 127.0.0.2 { as 4200000002; local-ip 127.0.0.1; passive; }
        peer 127.0.0.3 { as 4200000003; local-ip 127.0.0.1; passive; }
    }
}
)");
}

// The routes of protocol `protocol` in the RIB; 0 when unknown.
uint64_t RibRoutes(rtrmgr::cli::SyncClient& client, const std::string& protocol) {
  auto r = client.Call("rib", ipc::methods::rib::kListProtocols, rib::v1::ListProtocolsRequest());
  if (!r.ok()) return 0;
  for (const auto& p : r->protocols()) {
    if (p.protocol() == protocol) return p.routes();
  }
  return 0;
}

// Waits until the RIB's BGP route count has not changed for 5 s; returns it.
uint64_t WaitTableLoaded(rtrmgr::cli::SyncClient& client) {
  uint64_t count = 0, last = 0;
  auto changed = std::chrono::steady_clock::now();
  const auto start = changed;
  while (count == 0 || std::chrono::steady_clock::now() - changed < std::chrono::seconds(5)) {
    if (std::chrono::steady_clock::now() - start > std::chrono::minutes(15)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    count = RibRoutes(client, "ebgp");
    if (count != last) {
      last = count;
      changed = std::chrono::steady_clock::now();
    }
  }
  return count;
}

std::vector<std::string> UpstreamArgv(const Options& o, const std::string& bin) {
  std::vector<std::string> argv = {bin + "/bgp/replay/sluice-replay",
                                   "--connect",
                                   absl::StrCat("127.0.0.1:", kPort),
                                   "--local-address",
                                   "127.0.0.2",
                                   "--local-as",
                                   "4200000002",
                                   "--prepend-own-as",
                                   "--next-hop",
                                   "10.1.0.2",
                                   "--graceful-restart",
                                   "120",
                                   "--reconnect",
                                   "--extra",
                                   "100",
                                   "--linger",
                                   "--quiet",
                                   "--json"};
  if (o.synthetic > 0) {
    argv.insert(argv.end(), {"--synthetic", absl::StrCat(o.synthetic)});
  } else {
    argv.insert(argv.end(), {"--mrt", o.mrt, "--mode", "table", "--ipv4-only"});
  }
  return argv;
}

void PrintRow(const PhaseResult& p) {
  std::cout << absl::StrFormat(
      "%-14s %9zu %9zu %12ld %8.2f %10.2f %9s %9s\n", p.process, p.deletions, p.expected_deletions,
      p.lowest_held, p.back_s, p.converged_s,
      p.swept_after_start_s >= 0 ? absl::StrFormat("%.2f", p.swept_after_start_s) : "-",
      p.probe_ms >= 0 ? absl::StrFormat("%.0f", p.probe_ms) : "-");
  std::cout.flush();
}

int Run(const Options& o) {
  char dir_template[] = "/tmp/sluice-restart-bench.XXXXXX";
  Router r;
  r.rundir = mkdtemp(dir_template);
  const std::string bin = BuildDir();
  const std::string conf = r.rundir + "/bench.conf";
  std::ofstream(conf) << Config();
  KernelMonitor monitor(r.rundir + "/monitor.txt");
  r.monitor = &monitor;
  r.rtrmgr_argv = {bin + "/rtrmgr/process/sluice-rtrmgr", "--config", conf, "--rundir", r.rundir};
  r.rtrmgr = Spawn(r.rtrmgr_argv, r.rundir + "/rtrmgr.out", r.rundir + "/rtrmgr.log");
  rtrmgr::cli::SyncClient client("unix:" + r.rundir + "/finder.sock", 30000, "bench");
  r.client = &client;
  r.upstream = Spawn(UpstreamArgv(o, bin), r.rundir + "/upstream.out", r.rundir + "/upstream.log");
  r.downstream_out = r.rundir + "/downstream.out";
  const pid_t downstream =
      Spawn({bin + "/bgp/replay/sluice-replay", "--connect", absl::StrCat("127.0.0.1:", kPort),
             "--local-address", "127.0.0.3", "--local-as", "4200000003", "--receive-only",
             "--graceful-restart", "120", "--reconnect", "--linger", "--json", "--quiet"},
            r.downstream_out, r.rundir + "/downstream.log");
  std::cerr << "restart_bench: loading the table (logs in " << r.rundir << ")\n";
  const uint64_t bgp_routes = WaitTableLoaded(client);
  std::this_thread::sleep_for(std::chrono::seconds(5));  // the FEA and the downstream catch up
  std::cout << absl::StrFormat(
      "restart_bench: %d BGP routes and %d static routes in the RIB, %d routes in kernel table "
      "100, downstream holds %ld\n",
      bgp_routes, RibRoutes(client, "static"), KernelRoutes(100),
      LowestHeld(r.downstream_out, MonotonicSeconds() - 1.5));
  std::cout << absl::StrFormat("%-14s %9s %9s %12s %8s %10s %9s %9s\n", "killed", "deletions",
                               "expected", "downstream", "back s", "converged", "swept s",
                               "probe ms");
  for (int round = 0; round < o.rounds; ++round) {
    for (const std::string& process : o.processes) PrintRow(KillAndRecover(r, process));
  }
  std::cout << absl::StrFormat("restart_bench: %d routes in kernel table 100 at the end\n",
                               KernelRoutes(100));
  Stop(downstream, 5);
  Stop(r.upstream, 5);
  Stop(r.rtrmgr, 60);
  return 0;
}

// Fills `o` from argv; the status to exit with when the program should not go on.
std::optional<int> ParseArgs(int argc, char** argv, Options& o) {
  const char* data = std::getenv("SLUICE_DATA_DIR");
  o.mrt = absl::StrCat(data != nullptr ? data : BuildDir() + "/../../shared/data", "/", kPch);
  base::ProgramOptions options(
      "restart_bench",
      "restart_bench: hitless restarts measured: a router in a private network namespace (root) "
      "fed a full table, each process killed with SIGKILL in turn; prints per process the "
      "kernel's deletions, the downstream's lowest prefix count and the seconds to recover");
  CLI::App& app = options.app();
  app.add_option("--mrt", o.mrt, "the capture sent as its final table")
      ->default_str("$SLUICE_DATA_DIR/" + std::string(kPch));
  app.add_option("--synthetic", o.synthetic, "N: send a generated table of N prefixes instead")
      ->check(CLI::Range(uint64_t{1}, uint64_t{100000000}))
      ->default_str("");
  app.add_option("--rounds", o.rounds, "times each process is killed")->check(CLI::Range(1, 1000));
  base::AddParsedOption(
      app, "--processes",
      [&o](const std::string& value) {
        std::vector<std::string> names = absl::StrSplit(value, ',', absl::SkipEmpty());
        for (const std::string& name : names) {
          if (std::find(kProcesses.begin(), kProcesses.end(), name) == kProcesses.end()) {
            return absl::InvalidArgumentError(
                absl::StrCat("no process ", name, " (want ", absl::StrJoin(kProcesses, ","), ")"));
          }
        }
        if (names.empty()) return absl::InvalidArgumentError("no process named");
        o.processes = std::move(names);
        return absl::OkStatus();
      },
      "the processes to kill, in order, comma-separated")
      ->type_name("a,b,...")
      ->default_str(absl::StrJoin(kProcesses, ","));
  if (std::optional<int> exit = options.Parse(argc, argv)) return exit;
  if (o.synthetic == 0 && ::access(o.mrt.c_str(), R_OK) != 0) {
    return options.Fail(absl::StrCat(
        "no capture at ", o.mrt, " (set SLUICE_DATA_DIR, or give --mrt FILE or --synthetic N)"));
  }
  return std::nullopt;
}

}  // namespace
}  // namespace sluice::bench::restart

int main(int argc, char** argv) {
  sluice::base::SetLogLevel(sluice::base::LogLevel::kError);
  std::signal(SIGPIPE, SIG_IGN);
  sluice::bench::restart::Options options;
  if (std::optional<int> exit = sluice::bench::restart::ParseArgs(argc, argv, options)) {
    return *exit;
  }
  if (!sluice::rtrmgr::mainjob::EnterPrivateNetworkNamespace()) return 1;
  return sluice::bench::restart::Run(options);
}
