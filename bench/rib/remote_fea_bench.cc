// remote_fea_bench: one RIB feeding the kernels of several forwarding hosts (DESIGN.md
// § Processes; the multistage router of Bianco et al.). Each host is a network namespace held by
// a process of its own, running sluice-fea with the netlink backend (kernel table 100) that
// reaches the Finder and the RIB over TCP with mutual TLS across a bridge
// (tests/system/netns_hosts.h). This program runs in a private namespace of its own (host A) with
// sluice-finder and sluice-rib on 10.0.0.1, and is the protocol: the PCH table's prefixes
// (bench::PchPrefixes) as ebgp routes via 10.9.0.2, which every host has on-link.
//
// For each count of FEAs, in interleaved rounds (1, 2, 4, 1, 2, 4, ...), it prints:
//   - the seconds from the first batch sent until every FEA's FIB holds every route (its
//     describe_plumbing "Fib: N routes", which counts what the kernel acknowledged), and each
//     kernel's count afterwards (`ip route`, table 100, Sluice's protocol);
//   - sluice-rib's CPU seconds over that time, per route, and per FEA added;
// then medians (min-max) over the rounds.
//
//   remote_fea_bench [--rounds N] [--feas 1,2,4] [--prefixes N]
//
// Needs root (namespaces) and the openssl command; says so and exits 0 without them.
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/program_options.h"
#include "bench/rib/rib_load.h"
#include "ipc/proto/rib.pb.h"
#include "ipc/transport.h"
#include "ipc/xrl_router.h"
#include "tests/fea/netns.h"
#include "tests/system/child_process.h"
#include "tests/system/netns_hosts.h"
#include "tests/system/test_certificates.h"

namespace sluice {
namespace {

using Clock = std::chrono::steady_clock;
using testing::BuildPath;
using testing::ChildProcess;
using testing::NetnsHost;

const std::string kFinder = "tcp:10.0.0.1:7001";
const ipc::Method<rib::v1::ListFeasRequest, rib::v1::ListFeasReply> kListFeas{"rib/1.0/list_feas"};

struct Options {
  int rounds = 3;
  std::vector<int> feas = {1, 2, 4};
  size_t prefixes = 0;  // 0: all
};

struct Run {
  double seconds = 0;  // until every FEA holds every route
  double rib_cpu = 0;  // sluice-rib's CPU seconds meanwhile
  std::vector<size_t> kernels;
};

// The processes of one run: A's Finder and RIB, and `n` hosts with an FEA each.
class Hosts {
 public:
  Hosts(std::string dir, int n) : dir_(std::move(dir)) {
    testing::StartBridge();
    hosts_.resize(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      testing::StartHost(hosts_[i], absl::StrCat("fea-", i + 1), absl::StrCat("10.0.0.", i + 2),
                         absl::StrCat("v", i + 1));
    }
    finder_ = ChildProcess::Start(
        {BuildPath("finder/sluice-finder"), "--listen", kFinder, "--grace-ms", "0"}, Env("finder"));
    rib_ = ChildProcess::Start(
        {BuildPath("rib/sluice-rib"), "--finder", kFinder, "--listen", "tcp:10.0.0.1:0"},
        Env("rib"));
    for (NetnsHost& h : hosts_) {
      h.fea = ChildProcess::Start(testing::NetlinkFeaArgv(h, kFinder), Env("fea/" + h.fea_name));
    }
  }
  ~Hosts() {
    rib_.reset();
    for (NetnsHost& h : hosts_) h.fea.reset();
    finder_.reset();
    for (NetnsHost& h : hosts_) h.holder.reset();
    testing::StopBridge();
  }
  bool started() const {
    if (!finder_ || !rib_) return false;
    return std::ranges::all_of(hosts_, [](const NetnsHost& h) { return h.holder && h.fea; });
  }
  const std::vector<NetnsHost>& hosts() const { return hosts_; }
  pid_t rib_pid() const { return rib_->pid(); }

 private:
  std::vector<std::string> Env(const std::string& name) const {
    std::vector<std::string> env = testing::TlsEnv(dir_, name);
    env.push_back("SLUICE_RUNDIR=" + dir_);
    return env;
  }

  std::string dir_;
  std::vector<NetnsHost> hosts_;
  std::unique_ptr<ChildProcess> finder_, rib_;
};

// Every FEA of `hosts` is up in the RIB and has reported its interfaces.
bool FeasReady(boost::asio::io_context& io, ipc::XrlRouter& router, size_t n) {
  std::optional<absl::StatusOr<rib::v1::ListFeasReply>> reply;
  router.Call("rib", kListFeas, rib::v1::ListFeasRequest(),
              [&](absl::StatusOr<rib::v1::ListFeasReply> r) { reply = std::move(r); });
  if (!bench::RunUntil(
          io, [&] { return reply.has_value(); }, 10000) ||
      !reply->ok())
    return false;
  size_t ready = 0;
  for (const rib::v1::FeaFeed& f : (*reply)->feas()) {
    if (f.up() && f.interfaces_known() && !f.resyncing()) ++ready;
  }
  return ready == n;
}

class Bench {
 public:
  Bench(std::string dir, const std::vector<net::Prefix>& prefixes)
      : dir_(std::move(dir)), prefixes_(prefixes) {}

  std::optional<Run> RunOnce(int n) {
    Hosts hosts(dir_, n);
    if (!hosts.started()) return std::nullopt;
    boost::asio::io_context io;
    auto guard = boost::asio::make_work_guard(io);
    ipc::RouterOptions router_options;
    router_options.finder_address = kFinder;
    router_options.serve = false;
    ipc::XrlRouter router(io, "bgp", "bgp", router_options);
    if (!router.Start().ok()) return std::nullopt;
    if (!bench::RunUntil(
            io, [&] { return router.registered(); }, 20000) ||
        !WaitForFeas(io, router, n)) {
      return std::nullopt;
    }
    // What each FIB holds before: the connected routes the RIB sent it.
    std::map<std::string, int64_t> target;
    for (const NetnsHost& h : hosts.hosts()) {
      target[h.fea_name] =
          bench::FibSize(io, router, h.fea_name) + static_cast<int64_t>(prefixes_.size());
    }
    const double cpu0 = bench::CpuSeconds(hosts.rib_pid());
    const auto t0 = Clock::now();
    if (!bench::LoadRoutes(io, router, prefixes_,
                           bench::LoadOptions{.nexthop = *net::IPAddress::Parse("10.9.0.2")})) {
      return std::nullopt;
    }
    for (const auto& [fea, want] : target) {
      int64_t size = 0;
      while ((size = bench::FibSize(io, router, fea)) < want) {
        if (size < 0 || Clock::now() - t0 > std::chrono::minutes(10)) return std::nullopt;
        io.run_for(std::chrono::milliseconds(5));
      }
    }
    Run run;
    run.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    run.rib_cpu = bench::CpuSeconds(hosts.rib_pid()) - cpu0;
    for (const NetnsHost& h : hosts.hosts()) run.kernels.push_back(testing::KernelRoutes(h).size());
    return run;
  }

 private:
  bool WaitForFeas(boost::asio::io_context& io, ipc::XrlRouter& router, int n) {
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    while (Clock::now() < deadline) {
      if (FeasReady(io, router, static_cast<size_t>(n))) return true;
      io.run_for(std::chrono::milliseconds(100));
    }
    std::fprintf(stderr, "the RIB did not feed %d FEAs within 60 s\n", n);
    return false;
  }

  std::string dir_;
  const std::vector<net::Prefix>& prefixes_;
};

double MedianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// "median (min-max)" of `v`, each printed with `decimals` decimals.
std::string Median(const std::vector<double>& v, int decimals) {
  const auto [low, high] = std::ranges::minmax(v);
  return absl::StrFormat("%.*f (%.*f-%.*f)", decimals, MedianOf(v), decimals, low, decimals, high);
}

void Report(const Options& options, const std::map<int, std::vector<Run>>& runs, size_t routes) {
  std::printf(
      "\n| FEAs | until every kernel holds the table, s | sluice-rib CPU, s | "
      "sluice-rib CPU per route, us |\n|---|---|---|---|\n");
  std::map<int, double> cpu_median;
  for (int n : options.feas) {
    std::vector<double> seconds, cpu, per_route;
    for (const Run& r : runs.at(n)) {
      seconds.push_back(r.seconds);
      cpu.push_back(r.rib_cpu);
      per_route.push_back(r.rib_cpu * 1e6 / static_cast<double>(routes));
    }
    cpu_median[n] = MedianOf(cpu);
    std::printf("| %d | %s | %s | %s |\n", n, Median(seconds, 3).c_str(), Median(cpu, 3).c_str(),
                Median(per_route, 2).c_str());
  }
  // What each FEA beyond the fewest costs the RIB, from the medians.
  const auto& [fewest, base] = *cpu_median.begin();
  for (const auto& [n, cpu] : cpu_median) {
    if (n == fewest) continue;
    std::printf("sluice-rib CPU per FEA added, %d -> %d FEAs: %.3f s\n", fewest, n,
                (cpu - base) / (n - fewest));
  }
}

std::optional<int> ParseArgs(int argc, char** argv, Options& o) {
  base::ProgramOptions options(
      "remote_fea_bench",
      "remote_fea_bench: the PCH table ($SLUICE_DATA_DIR, else a synthetic table) from one "
      "sluice-rib into the kernels of 1, 2 and 4 hosts (network namespaces, netlink sluice-fea "
      "over TCP with mutual TLS); prints the time until every kernel holds it and the RIB's CPU");
  CLI::App& app = options.app();
  app.add_option("--rounds", o.rounds, "rounds, each with every FEA count")
      ->check(CLI::Range(1, 100));
  app.add_option("--feas", o.feas, "the FEA counts, in the order each round runs them")
      ->delimiter(',')
      ->check(CLI::Range(1, 16));
  app.add_option("--prefixes", o.prefixes, "send only the first N prefixes of the table")
      ->check(CLI::Range(size_t{1}, size_t{1} << 32));
  return options.Parse(argc, argv);
}

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) {
  using namespace sluice;
  fea::testing::EnterPrivateNetworkNamespace();  // before any thread exists
  Options options;
  if (std::optional<int> exit = ParseArgs(argc, argv, options)) return *exit;
  if (!fea::testing::KernelSkipReason().empty() || !testing::HaveOpenssl()) {
    std::printf("remote_fea_bench: skipped: %s\n", fea::testing::KernelSkipReason().empty()
                                                       ? "needs the openssl command"
                                                       : fea::testing::KernelSkipReason().c_str());
    return 0;
  }
  setenv("SLUICE_BUILD_DIR", SLUICE_BENCH_BUILD_DIR, /*overwrite=*/0);
  std::string source;
  std::vector<net::Prefix> prefixes = bench::PchPrefixes(&source);
  if (options.prefixes > 0 && options.prefixes < prefixes.size()) prefixes.resize(options.prefixes);
  char dir[] = "/tmp/sluice-remote-fea-bench.XXXXXX";
  if (mkdtemp(dir) == nullptr) return 1;
  std::vector<std::string> names = {"finder", "rib", "bgp"};
  const int most = *std::ranges::max_element(options.feas);
  for (int i = 1; i <= most; ++i) names.push_back(absl::StrCat("fea/fea-", i));
  if (!testing::MakeCertificates(dir, names)) return 1;
  ipc::SetTransportSecurity(ipc::TransportSecurity{
      .tls = ipc::TlsFiles{absl::StrCat(dir, "/ca.pem"), testing::CertificateFile(dir, "bgp"),
                           testing::KeyFile(dir, "bgp")},
      .insecure = false});
  std::printf("remote_fea_bench: %zu prefixes from %s; FEAs %s; %d rounds\n", prefixes.size(),
              source.c_str(), absl::StrJoin(options.feas, ", ").c_str(), options.rounds);
  Bench bench(dir, prefixes);
  std::map<int, std::vector<Run>> runs;
  for (int round = 1; round <= options.rounds; ++round) {
    for (int n : options.feas) {
      std::optional<Run> r = bench.RunOnce(n);
      if (!r) {
        std::fprintf(stderr, "round %d with %d FEAs failed\n", round, n);
        return 1;
      }
      std::printf(
          "  round %d, %d FEAs: every kernel holds the table after %.3f s; sluice-rib "
          "CPU %.3f s; kernels hold %s routes\n",
          round, n, r->seconds, r->rib_cpu, absl::StrJoin(r->kernels, ", ").c_str());
      runs[n].push_back(std::move(*r));
    }
  }
  Report(options, runs, prefixes.size());
  std::filesystem::remove_all(dir);
  return 0;
}
