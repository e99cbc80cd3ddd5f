// xrl_bench: XRL throughput, XORP NSDI'05 Figure 9 — calls per second for 10,000 calls with 100
// in flight, with 1, 4 and 8 u32 arguments, in-process, over a Unix socket and over TCP
// (127.0.0.1); the median of 5 runs. Prints a table.
//
//   xrl_bench [--calls N] [--in-flight N] [--runs N] [--only ROW-NAME-PART]
//
// The Finder runs on a thread of this process; for the socket transports the target is a
// second process (this program with --serve), so caller and target each have their own loop
// as in a real router. Rows:
//   in-process (one loop)    caller and target routers on one io_context
//   in-process (two loops)   target router on its own thread and io_context
//   unix socket              the ordered call stream over a Unix socket
//   tcp 127.0.0.1            the ordered call stream over TCP
//   unix socket, unary gRPC  one plain unary gRPC call per XRL (how `sluice call` calls)
//
//   xrl_bench --latency GAP_MS [--calls N]
//
// instead measures the round trip of single calls over the Unix socket (one call at a time,
// GAP_MS of idle time on the caller's loop before each): median, 90th percentile and max in
// microseconds. With a gap the target's threads have gone to sleep, as in a router that waits
// for the next route; 0 is back-to-back.

#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/log.h"
#include "base/program_options.h"
#include "bench/ipc/proto/bench.pb.h"
#include "ipc/transport.h"
#include "ipc/xrl_router.h"
#include "tests/ipc/finder_thread.h"

namespace {

using namespace sluice;
namespace bv1 = bench::v1;

const ipc::Method<bv1::Call1Request, bv1::CallReply> kCall1{"bench/1.0/call1"};
const ipc::Method<bv1::Call4Request, bv1::CallReply> kCall4{"bench/1.0/call4"};
const ipc::Method<bv1::Call8Request, bv1::CallReply> kCall8{"bench/1.0/call8"};

absl::Status ServeBench(ipc::XrlRouter& router) {
  auto reply = [](const auto&) -> absl::StatusOr<bv1::CallReply> { return bv1::CallReply(); };
  if (auto s = router.Handle(kCall1, reply); !s.ok()) return s;
  if (auto s = router.Handle(kCall4, reply); !s.ok()) return s;
  return router.Handle(kCall8, reply);
}

bv1::Call1Request Request1() {
  bv1::Call1Request r;
  r.set_a1(1);
  return r;
}
bv1::Call4Request Request4() {
  bv1::Call4Request r;
  r.set_a1(1);
  r.set_a2(2);
  r.set_a3(3);
  r.set_a4(4);
  return r;
}
bv1::Call8Request Request8() {
  bv1::Call8Request r;
  r.set_a1(1);
  r.set_a2(2);
  r.set_a3(3);
  r.set_a4(4);
  r.set_a5(5);
  r.set_a6(6);
  r.set_a7(7);
  r.set_a8(8);
  return r;
}

template <typename P>
bool RunUntil(boost::asio::io_context& io, P done, int ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (!done() && std::chrono::steady_clock::now() < deadline) {
    io.run_one_for(std::chrono::milliseconds(10));
  }
  return done();
}

// One run: `calls` calls with `in_flight` outstanding; calls per second (0 on failure).
template <typename Request>
double RunOnce(boost::asio::io_context& io, ipc::XrlRouter& caller, const std::string& target,
               const ipc::Method<Request, bv1::CallReply>& method, const Request& request,
               int calls, int in_flight) {
  int sent = 0, done = 0, failed = 0;
  std::function<void()> send = [&] {
    ++sent;
    caller.Call(target, method, request, [&](absl::StatusOr<bv1::CallReply> reply) {
      ++done;
      if (!reply.ok() && failed++ == 0) std::cerr << "call failed: " << reply.status() << "\n";
      if (sent < calls) send();
    });
  };
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < in_flight && sent < calls; ++i) send();
  if (!RunUntil(
          io, [&] { return done == calls; }, 30000)) {
    std::cerr << "timed out: " << done << " of " << calls << " calls answered\n";
    return 0;
  }
  if (failed > 0) return 0;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return calls / seconds;
}

struct Config {
  int calls = 10000;
  int in_flight = 100;
  int runs = 5;
  std::string only;         // run only the rows whose name contains this
  int latency_gap_ms = -1;  // >= 0: the latency mode
};

// Round trips of `calls` single calls, each after `gap_ms` of idle time; prints percentiles.
void LatencyRow(boost::asio::io_context& io, ipc::XrlRouter& caller, const std::string& target,
                const Config& config) {
  std::vector<double> us;
  for (int i = 0; i < config.calls; ++i) {
    if (config.latency_gap_ms > 0) {
      RunUntil(
          io, [] { return false; }, config.latency_gap_ms);
    }
    bool done = false;
    const auto start = std::chrono::steady_clock::now();
    caller.Call(target, kCall1, Request1(), [&](absl::StatusOr<bv1::CallReply>) { done = true; });
    while (!done) io.run_one();
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  std::sort(us.begin(), us.end());
  std::printf(
      "unix socket round trip, %d calls after %d ms idle: median %.0f us, p90 %.0f us, "
      "max %.0f us\n",
      config.calls, config.latency_gap_ms, us[us.size() / 2], us[us.size() * 9 / 10], us.back());
  std::fflush(stdout);
}

template <typename Request>
double Median(boost::asio::io_context& io, ipc::XrlRouter& caller, const std::string& target,
              const ipc::Method<Request, bv1::CallReply>& method, const Request& request,
              const Config& config) {
  RunOnce(io, caller, target, method, request, config.calls / 10, config.in_flight);  // warm up
  std::vector<double> rates;
  for (int i = 0; i < config.runs; ++i) {
    rates.push_back(RunOnce(io, caller, target, method, request, config.calls, config.in_flight));
  }
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

void PrintRow(const std::string& name, boost::asio::io_context& io, ipc::XrlRouter& caller,
              const std::string& target, const Config& config) {
  if (name.find(config.only) == std::string::npos) return;
  double r1 = Median(io, caller, target, kCall1, Request1(), config);
  double r4 = Median(io, caller, target, kCall4, Request4(), config);
  double r8 = Median(io, caller, target, kCall8, Request8(), config);
  std::printf("%-28s %12.0f %12.0f %12.0f\n", name.c_str(), r1, r4, r8);
  std::fflush(stdout);
}

ipc::RouterOptions CallerOptions(const std::string& finder) {
  ipc::RouterOptions options;
  options.finder_address = finder;
  options.serve = false;
  return options;
}

// --serve: the target process for the socket transports.
int Serve(const std::string& finder, const std::string& rundir) {
  boost::asio::io_context io;
  ipc::RouterOptions options;
  options.finder_address = finder;
  options.listen = {"unix:" + rundir + "/bench_target.sock", "tcp:127.0.0.1:0"};
  options.allow_inproc = false;
  ipc::XrlRouter router(io, "bench_target", "bench_target", options);
  if (auto s = ServeBench(router); !s.ok()) {
    std::cerr << s << "\n";
    return 1;
  }
  if (auto s = router.Start(); !s.ok()) {
    std::cerr << s << "\n";
    return 1;
  }
  boost::asio::signal_set signals(io, SIGTERM, SIGINT);
  signals.async_wait([&](auto, int) { io.stop(); });
  io.run();
  return 0;
}

void InProcessRows(const std::string& finder, const Config& config) {
  {
    boost::asio::io_context io;
    ipc::RouterOptions target_options = CallerOptions(finder);
    ipc::XrlRouter target(io, "bench_target", "bench_inproc", target_options);
    if (!ServeBench(target).ok() || !target.Start().ok()) return;
    ipc::XrlRouter caller(io, "bench_caller", "", CallerOptions(finder));
    if (!caller.Start().ok()) return;
    RunUntil(
        io, [&] { return target.registered() && caller.registered(); }, 5000);
    PrintRow("in-process (one loop)", io, caller, "bench_inproc", config);
  }
  {
    boost::asio::io_context target_io;
    auto guard = boost::asio::make_work_guard(target_io);
    auto target = std::make_unique<ipc::XrlRouter>(target_io, "bench_target", "bench_inproc2",
                                                   CallerOptions(finder));
    if (!ServeBench(*target).ok() || !target->Start().ok()) return;
    std::thread thread([&] { target_io.run(); });
    boost::asio::io_context io;
    ipc::XrlRouter caller(io, "bench_caller", "", CallerOptions(finder));
    if (!caller.Start().ok()) return;
    std::optional<bool> born;
    caller.WatchInstance("bench_inproc2", [&](const ipc::TargetEvent& e) {
      born = e.kind == ipc::TargetEvent::kBirth;
    });
    RunUntil(
        io, [&] { return born.has_value(); }, 5000);
    PrintRow("in-process (two loops)", io, caller, "bench_inproc2", config);
    boost::asio::post(target_io, [&] {
      target.reset();
      target_io.stop();
    });
    thread.join();
  }
}

void SocketRows(const std::string& self, const std::string& finder, const std::string& rundir,
                const Config& config) {
  pid_t child = fork();
  if (child == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    execl(self.c_str(), self.c_str(), "--serve", finder.c_str(), rundir.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  struct Row {
    const char* name;
    bool prefer_tcp;
    bool unary;
  };
  for (const Row& row : {Row{"unix socket", false, false}, Row{"tcp 127.0.0.1", true, false},
                         Row{"unix socket, unary gRPC", false, true}}) {
    boost::asio::io_context io;
    ipc::RouterOptions options = CallerOptions(finder);
    options.allow_inproc = false;
    options.prefer_tcp = row.prefer_tcp;
    options.unary_calls = row.unary;
    ipc::XrlRouter caller(io, "bench_caller", "", options);
    if (!caller.Start().ok()) break;
    std::optional<bool> born;
    caller.WatchInstance("bench_target", [&](const ipc::TargetEvent& e) {
      born = e.kind == ipc::TargetEvent::kBirth;
    });
    if (!RunUntil(
            io, [&] { return born.value_or(false); }, 10000)) {
      std::cerr << "the target process did not register\n";
      break;
    }
    if (config.latency_gap_ms >= 0) {
      LatencyRow(io, caller, "bench_target", config);
      break;
    }
    PrintRow(row.name, io, caller, "bench_target", config);
  }
  kill(child, SIGTERM);
  waitpid(child, nullptr, 0);
}

// Fills `config` (and `serve` in the target process) from argv; the status to exit with when
// the program should not go on.
std::optional<int> ParseArgs(int argc, char** argv, Config& config,
                             std::vector<std::string>& serve) {
  base::ProgramOptions options(
      "xrl_bench",
      "xrl_bench: XRL calls per second with 1, 4 and 8 u32 arguments, in-process, over a Unix "
      "socket and over TCP (the median of --runs runs); with --latency, the round trip of single "
      "calls over the Unix socket instead");
  CLI::App& app = options.app();
  app.add_option("--calls", config.calls, "calls per run (--latency: calls measured)")
      ->check(CLI::Range(1, 10000000));
  app.add_option("--in-flight", config.in_flight, "calls outstanding at a time")
      ->check(CLI::Range(1, 100000));
  app.add_option("--runs", config.runs, "runs per cell (the median is printed)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--only", config.only, "run only the rows whose name contains this");
  app.add_option("--latency", config.latency_gap_ms,
                 "GAP_MS: measure single round trips, each after GAP_MS of idle time")
      ->check(CLI::Range(0, 60000))
      ->default_str("");
  // The target process of the socket rows: this program run by itself with --serve.
  app.add_option("--serve", serve, "FINDER RUNDIR: be the target process (run by the bench)")
      ->expected(2)
      ->group("");
  return options.Parse(argc, argv);
}

}  // namespace

int main(int argc, char** argv) {
  base::SetLogTag("xrl_bench");
  if (std::getenv("SLUICE_LOG_LEVEL") == nullptr) base::SetLogLevel(base::LogLevel::kWarning);
  // The TCP row measures the transport itself: plain TCP on loopback, as `insecure;` allows.
  ipc::SetTransportSecurity(ipc::TransportSecurity{.tls = {}, .insecure = true});
  Config config;
  std::vector<std::string> serve;
  if (std::optional<int> exit = ParseArgs(argc, argv, config, serve)) return *exit;
  if (!serve.empty()) return Serve(serve[0], serve[1]);
  char dir[] = "/tmp/sluice-bench-XXXXXX";
  if (mkdtemp(dir) == nullptr) return 1;
  std::string rundir = dir;
  setenv("SLUICE_RUNDIR", rundir.c_str(), 1);
  std::string finder = "unix:" + rundir + "/finder.sock";
  {
    finder::FinderOptions finder_options;
    finder_options.listen = {finder};
    finder_options.recovery_grace = std::chrono::milliseconds(0);
    testing::FinderThread finder_thread(std::move(finder_options));
    if (!finder_thread.status().ok()) {
      std::cerr << finder_thread.status() << "\n";
      return 1;
    }
    if (config.latency_gap_ms < 0) {
      std::printf("XRL calls per second: %d calls, %d in flight, median of %d runs\n", config.calls,
                  config.in_flight, config.runs);
      std::printf("%-28s %12s %12s %12s\n", "transport", "1 arg", "4 args", "8 args");
      InProcessRows(finder, config);
    }
    SocketRows(std::filesystem::canonical("/proc/self/exe").string(), finder, rundir, config);
  }
  std::filesystem::remove_all(rundir);
  return 0;
}
