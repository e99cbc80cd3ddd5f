// rib_process_bench: the RIB process end to end — real processes: a
// Finder, sluice-fea (dummy backend) and sluice-rib started by this program in a private
// SLUICE_RUNDIR, and this program as the protocol, sending the 577,706 prefixes of the PCH
// capture as ebgp routes (nexthop 192.0.2.2, resolvable through the FEA's eth0 192.0.2.1/24)
// with rib/1.0/add_routes_packed (--unpacked: add_routes), in batches, several in flight.
// Measured, each over N runs (median, min, max):
//   - routes per second from the first batch sent until the FEA's FIB holds every route
//     (polled through profile/1.0/describe_plumbing every 2 ms);
//   - RIB bytes per route: sluice-rib's VmRSS with the table loaded minus before, over routes;
//   - CPU microseconds per route used by sluice-rib and by sluice-fea over the load, which
//     depend much less than the rate on what else the machine runs (though on a loaded
//     machine they too move by tens of percent: shared caches, clock).
//
//   rib_process_bench [--runs N] [--batch N] [--in-flight N] [--fea-batch N]
//                     [--fea-in-flight N] [--prefixes N] [--rib-arg ARG]... [--unpacked]
//                     [--feas N] [--hold]
//
// --feas N starts N dummy FEAs ("fea", "fea-2", ...), all fed by the one RIB (DESIGN.md
// § Processes): the end-to-end time is then until every FEA holds every route, and the RIB's
// CPU per route shows what each added FEA costs it.
//
// The prefixes come from $SLUICE_DATA_DIR/mrt/pch-2015-10-23-fulltable-updates.mrt.gz read with
// the project's MRT reader (bgp/mrt); without it, a synthetic table of the same size.
// --hold keeps the processes running after the first run's load (for perf), until Enter.
#include <unistd.h>

#include <algorithm>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/program_options.h"
#include "bench/rib/rib_load.h"
#include "ipc/xrl_router.h"
#include "tests/system/fea_rib_processes.h"

namespace sluice {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  int runs = 5;
  size_t batch = 1000;
  size_t in_flight = 8;
  size_t fea_batch = 1000;
  size_t fea_in_flight = 4;
  size_t prefixes = 0;  // 0: all
  std::vector<std::string> rib_args;
  bool hold = false;
  bool unpacked = false;  // add_routes instead of add_routes_packed
  int feas = 1;
};

// User plus system CPU seconds the process has used so far (/proc/PID/stat fields 14 and 15).
struct Run {
  double routes_per_s = 0;
  double rib_cpu_us_per_route = 0;  // sluice-rib's CPU time over the load, per route
  double fea_cpu_us_per_route = 0;
  double rib_bytes_per_route = 0;
  double fea_bytes_per_route = 0;
};

class Bench {
 public:
  Bench(const Options& options, const std::vector<net::Prefix>& prefixes)
      : options_(options), prefixes_(prefixes) {}

  std::optional<Run> RunOnce(bool hold) {
    testing::FeaRibProcesses p;
    const std::vector<std::string> fea_args = {"--backend", "dummy", "--interface",
                                               "eth0=192.0.2.1/24"};
    if (!p.StartFinder() || !p.StartFea(fea_args)) return std::nullopt;
    std::vector<std::string> feas = {"fea"};
    for (int i = 2; i <= options_.feas; ++i) {
      feas.push_back("fea-" + std::to_string(i));
      if (!p.StartOtherFea(feas.back(), fea_args)) return std::nullopt;
    }
    std::vector<std::string> rib_args = {"--fea-batch-size", std::to_string(options_.fea_batch),
                                         "--fea-max-in-flight",
                                         std::to_string(options_.fea_in_flight)};
    rib_args.insert(rib_args.end(), options_.rib_args.begin(), options_.rib_args.end());
    if (!p.StartRib(rib_args) ||
        !testing::FeaRibProcesses::WaitFor([&] { return p.Status("rib") == "READY"; })) {
      return std::nullopt;
    }
    boost::asio::io_context io;
    auto guard = boost::asio::make_work_guard(io);
    ipc::RouterOptions router_options;
    router_options.finder_address = "unix:" + p.rundir() + "/finder.sock";
    router_options.serve = false;  // a pure client
    ipc::XrlRouter router(io, "bench", "bench", router_options);
    if (!router.Start().ok()) return std::nullopt;
    if (!bench::RunUntil(
            io, [&] { return router.registered(); }, 5000))
      return std::nullopt;

    // The FIB before: the connected routes (lo, eth0).
    const int64_t base = bench::FibSize(io, router, "fea");
    const int64_t connected_overlap =
        std::count_if(prefixes_.begin(), prefixes_.end(), [](const net::Prefix& x) {
          return x == *net::Prefix::Parse("192.0.2.0/24") ||
                 x == *net::Prefix::Parse("127.0.0.0/8");
        });
    const int64_t target = base + static_cast<int64_t>(prefixes_.size()) - connected_overlap;
    const int64_t rib_rss0 = bench::RssBytes(p.rib()->pid());
    const int64_t fea_rss0 = bench::RssBytes(p.fea()->pid());
    const double rib_cpu0 = bench::CpuSeconds(p.rib()->pid());
    const double fea_cpu0 = bench::CpuSeconds(p.fea()->pid());

    const auto t0 = Clock::now();
    if (!bench::LoadRoutes(io, router, prefixes_,
                           bench::LoadOptions{.nexthop = *net::IPAddress::Parse("192.0.2.2"),
                                              .batch = options_.batch,
                                              .in_flight = options_.in_flight,
                                              .unpacked = options_.unpacked})) {
      return std::nullopt;
    }
    const auto sent = Clock::now();
    int64_t size = 0;
    for (const std::string& fea : feas) {
      while ((size = bench::FibSize(io, router, fea)) < target) {
        if (size < 0 || Clock::now() - t0 > std::chrono::minutes(10)) return std::nullopt;
        io.run_for(std::chrono::milliseconds(2));
      }
    }
    const auto t1 = Clock::now();
    Run run;
    const double seconds = std::chrono::duration<double>(t1 - t0).count();
    run.routes_per_s = static_cast<double>(prefixes_.size()) / seconds;
    run.rib_bytes_per_route =
        static_cast<double>(bench::RssBytes(p.rib()->pid()) - rib_rss0) / prefixes_.size();
    run.fea_bytes_per_route =
        static_cast<double>(bench::RssBytes(p.fea()->pid()) - fea_rss0) / prefixes_.size();
    run.rib_cpu_us_per_route =
        (bench::CpuSeconds(p.rib()->pid()) - rib_cpu0) * 1e6 / prefixes_.size();
    run.fea_cpu_us_per_route =
        (bench::CpuSeconds(p.fea()->pid()) - fea_cpu0) * 1e6 / prefixes_.size();
    std::printf(
        "    all sent to the RIB after %.3f s, all in %s after %.3f s (FIB %lld)\n",
        std::chrono::duration<double>(sent - t0).count(),
        feas.size() == 1 ? "the FEA" : absl::StrCat("each of ", feas.size(), " FEAs").c_str(),
        seconds, static_cast<long long>(size));
    if (hold) {
      std::printf("    holding: rib pid %d, fea pid %d; press Enter\n", p.rib()->pid(),
                  p.fea()->pid());
      std::getchar();
    }
    p.Stop(p.rib_process(), SIGTERM);
    p.Stop(p.fea_process(), SIGTERM);
    return run;
  }

 private:
  const Options& options_;
  const std::vector<net::Prefix>& prefixes_;
};

void Report(const char* what, std::vector<double> v, const char* unit) {
  std::sort(v.begin(), v.end());
  std::printf("  %-22s median %12.1f  min %12.1f  max %12.1f  %s\n", what, v[v.size() / 2],
              v.front(), v.back(), unit);
}

// Fills `o` from argv; the status to exit with when the program should not go on.
std::optional<int> ParseArgs(int argc, char** argv, Options& o) {
  base::ProgramOptions options(
      "rib_process_bench",
      "rib_process_bench: the PCH full table ($SLUICE_DATA_DIR, else a synthetic table) through "
      "real processes (Finder, sluice-fea dummy, sluice-rib) over IPC; prints routes per second "
      "end to end, RSS and CPU per route, median, min and max over --runs runs");
  CLI::App& app = options.app();
  app.add_option("--runs", o.runs, "the number of runs")->check(CLI::Range(1, 1000));
  app.add_option("--batch", o.batch, "routes per add_routes call to the RIB")
      ->check(CLI::Range(size_t{1}, size_t{1} << 20));
  app.add_option("--in-flight", o.in_flight, "add_routes calls in flight to the RIB")
      ->check(CLI::Range(size_t{1}, size_t{1} << 20));
  app.add_option("--fea-batch", o.fea_batch, "sluice-rib --fea-batch-size: routes per FIB batch")
      ->check(CLI::Range(size_t{1}, size_t{100000}));
  app.add_option("--fea-in-flight", o.fea_in_flight,
                 "sluice-rib --fea-max-in-flight: FIB batches in flight")
      ->check(CLI::Range(size_t{1}, size_t{1000}));
  app.add_option("--prefixes", o.prefixes, "send only the first N prefixes of the table")
      ->check(CLI::Range(size_t{1}, size_t{1} << 32));
  base::AddRepeatedOption(app, "--rib-arg", o.rib_args,
                          "one more argument for sluice-rib (repeatable; `--rib-arg --flag` "
                          "passes --flag)");
  app.add_flag("--unpacked", o.unpacked, "rib/1.0/add_routes instead of add_routes_packed");
  app.add_option("--feas", o.feas, "dummy FEAs the RIB feeds; the time is until each holds all")
      ->check(CLI::Range(1, 64));
  app.add_flag("--hold", o.hold,
               "keep the processes running after the first run's load (for perf), until Enter");
  // CLI11 takes no value that looks like an option; --rib-arg's are sluice-rib's options.
  std::vector<std::string> args(argv, argv + argc);
  for (size_t i = 1; i + 1 < args.size(); ++i) {
    if (args[i] == "--rib-arg") {
      args[i] += "=" + args[i + 1];
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    }
  }
  std::vector<char*> pointers;
  for (std::string& arg : args) pointers.push_back(arg.data());
  return options.Parse(static_cast<int>(pointers.size()), pointers.data());
}

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) {
  using namespace sluice;
  Options options;
  if (std::optional<int> exit = ParseArgs(argc, argv, options)) return *exit;
  // The processes are found through SLUICE_BUILD_DIR (tests/system/child_process.h).
  setenv("SLUICE_BUILD_DIR", SLUICE_BENCH_BUILD_DIR, /*overwrite=*/0);
  std::string source;
  std::vector<net::Prefix> prefixes = bench::PchPrefixes(&source);
  if (options.prefixes > 0 && options.prefixes < prefixes.size()) prefixes.resize(options.prefixes);
  std::printf(
      "rib_process_bench: %zu prefixes from %s; %s batches of %zu, %zu in flight to the "
      "RIB; FIB batches of %zu, %zu in flight; %d FEA(s); %d runs\n",
      prefixes.size(), source.c_str(), options.unpacked ? "add_routes" : "add_routes_packed",
      options.batch, options.in_flight, options.fea_batch, options.fea_in_flight, options.feas,
      options.runs);
  Bench bench(options, prefixes);
  std::vector<double> rate, rib_bytes, fea_bytes, rib_cpu, fea_cpu;
  for (int i = 0; i < options.runs; ++i) {
    std::optional<Run> r = bench.RunOnce(options.hold && i == 0);
    if (!r) {
      std::cerr << "run " << i + 1 << " failed\n";
      return 1;
    }
    std::printf(
        "  run %d: %.0f routes/s end to end, RIB %.1f B/route, FEA %.1f B/route (RSS); CPU "
        "per route: RIB %.2f us, FEA %.2f us\n",
        i + 1, r->routes_per_s, r->rib_bytes_per_route, r->fea_bytes_per_route,
        r->rib_cpu_us_per_route, r->fea_cpu_us_per_route);
    rate.push_back(r->routes_per_s);
    rib_bytes.push_back(r->rib_bytes_per_route);
    fea_bytes.push_back(r->fea_bytes_per_route);
    rib_cpu.push_back(r->rib_cpu_us_per_route);
    fea_cpu.push_back(r->fea_cpu_us_per_route);
  }
  Report("end to end", rate, "routes/s");
  Report("sluice-rib RSS growth", rib_bytes, "bytes/route");
  Report("sluice-fea RSS growth", fea_bytes, "bytes/route");
  Report("sluice-rib CPU", rib_cpu, "us/route");
  Report("sluice-fea CPU", fea_cpu, "us/route");
  return 0;
}
