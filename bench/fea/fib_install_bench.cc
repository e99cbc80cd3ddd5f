// fea_fib_bench: routes per second installed through the Fib, into the dummy FIB and into the
// Linux kernel, for the 577,706 prefixes of the PCH capture (SLUICE_DATA_DIR), in transactions
// of 1, 100, 1,000 and 4,000 routes (the RIB's). Prints the median of several runs.
//
//   fea_fib_bench [--runs N] [--kernel-runs-batch1 N] [--only dummy|kernel] [--prefixes FILE]
//                 [--set]
//
// Routes are queued with Fib::AddRoute, or with --set with Fib::SetRoute, as the RIB's
// apply_batch does.
//
// The prefixes come from `bgpdump -m` of the capture (field 6 of the A lines), cached in the
// build folder; without the capture or bgpdump, 577,706 synthetic prefixes are used and the
// output says so. The kernel part needs root: the program moves itself into a private network
// namespace first thing (nothing is done to the host's network), makes a veth pair there and
// installs every route via a gateway on it into table 100. Each run starts from an empty table;
// the routes are removed afterwards by Shutdown (timed too).
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/program_options.h"
#include "fea/dummy_fib_backend.h"
#include "fea/dummy_ifmgr.h"
#include "fea/fib.h"
#include "fea/netlink_fib_backend.h"
#include "fea/netlink_ifmgr.h"

namespace sluice::fea {
namespace {

constexpr char kCapture[] = "mrt/pch-2015-10-23-fulltable-updates.mrt.gz";
constexpr size_t kPchPrefixes = 577706;

std::vector<net::Prefix> ReadPrefixes(const std::string& path) {
  std::vector<net::Prefix> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    auto p = net::Prefix::ParseAndMask(line);
    if (p.ok()) out.push_back(*p);
  }
  return out;
}

std::vector<net::Prefix> SyntheticPrefixes(size_t n) {
  std::vector<net::Prefix> out;
  uint32_t x = 0x12345678;
  while (out.size() < n) {
    x = x * 1664525u + 1013904223u;               // LCG: spread over the address space
    int length = 16 + static_cast<int>(x >> 29);  // /16 .. /23 and many /24 below
    if (out.size() % 2 == 0) length = 24;
    out.push_back(net::Prefix(net::IPv4Address(x | 0x01000000u), length));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<net::Prefix> LoadPrefixes(const std::string& file) {
  if (!file.empty()) return ReadPrefixes(file);
  const std::string cache = std::string(SLUICE_BENCH_CACHE_DIR) + "/pch_prefixes.txt";
  std::vector<net::Prefix> prefixes = ReadPrefixes(cache);
  if (prefixes.size() == kPchPrefixes) {
    std::cout << "prefixes: " << prefixes.size() << " from the PCH capture (cached in " << cache
              << ")\n";
    return prefixes;
  }
  const char* data = getenv("SLUICE_DATA_DIR");
  std::string capture = data ? std::string(data) + "/" + kCapture : "";
  if (data != nullptr && access(capture.c_str(), R_OK) == 0 &&
      system("command -v bgpdump >/dev/null") == 0) {
    std::cout << "extracting prefixes from " << capture << " with bgpdump...\n";
    std::string cmd = "bgpdump -m '" + capture +
                      "' 2>/dev/null | awk -F'|' '$3==\"A\"{print $6}' | sort -u > '" + cache + "'";
    if (system(cmd.c_str()) == 0) {
      prefixes = ReadPrefixes(cache);
      std::cout << "prefixes: " << prefixes.size() << " from the PCH capture\n";
      return prefixes;
    }
  }
  std::cout << "prefixes: PCH capture unavailable (set SLUICE_DATA_DIR and install bgpdump); "
               "using "
            << kPchPrefixes << " SYNTHETIC prefixes\n";
  return SyntheticPrefixes(kPchPrefixes);
}

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct RunResult {
  double install_seconds = 0;
  double remove_seconds = 0;
  bool ok = false;
};

// Installs every prefix via 192.0.2.2 dev v0 in transactions of `batch` routes (queued with
// SetRoute when `set`, else AddRoute), then removes them all with Shutdown.
RunResult InstallAll(IfMgr& ifmgr, std::unique_ptr<FibBackend> backend,
                     const std::vector<net::Prefix>& prefixes, size_t batch, bool set) {
  RunResult result;
  Fib fib(ifmgr, std::move(backend));
  if (absl::Status s = fib.Start(); !s.ok()) {
    std::cerr << "start: " << s << "\n";
    return result;
  }
  const net::IPAddress gateway = *net::IPAddress::Parse("192.0.2.2");
  auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < prefixes.size(); i += batch) {
    auto id = fib.StartTransaction("bench");
    if (!id.ok()) {
      std::cerr << id.status() << "\n";
      return result;
    }
    for (size_t k = i; k < std::min(prefixes.size(), i + batch); ++k) {
      FibRoute route;
      route.prefix = prefixes[k];
      route.nexthops.push_back(Nexthop{gateway, "v0", false, 1});
      route.protocol = "ebgp";
      absl::Status s =
          set ? fib.SetRoute(*id, std::move(route)) : fib.AddRoute(*id, std::move(route));
      if (!s.ok()) {
        std::cerr << s << "\n";
        return result;
      }
    }
    auto done = fib.Commit(*id);
    if (!done.ok()) {
      std::cerr << done.status() << "\n";
      return result;
    }
  }
  result.install_seconds = Seconds(start);
  if (fib.size() != prefixes.size()) {
    std::cerr << "FIB holds " << fib.size() << " routes, expected " << prefixes.size() << "\n";
    return result;
  }
  start = std::chrono::steady_clock::now();
  if (absl::Status s = fib.Shutdown(); !s.ok()) {
    std::cerr << "shutdown: " << s << "\n";
    return result;
  }
  result.remove_seconds = Seconds(start);
  result.ok = true;
  return result;
}

void Report(const std::string& what, size_t batch, size_t n, const std::vector<RunResult>& runs) {
  std::vector<double> install, remove;
  std::string each;
  for (const RunResult& r : runs) {
    if (!r.ok) continue;
    install.push_back(r.install_seconds);
    remove.push_back(r.remove_seconds);
    each += absl::StrFormat(" %.0f", n / r.install_seconds);
  }
  if (install.empty()) {
    std::cout << what << " batch " << batch << ": FAILED\n";
    return;
  }
  double m = Median(install);
  std::cout << absl::StrFormat(
      "%-7s batch %5u: median %7.2f s = %9.0f routes/s install (%zu runs:%s); remove all %.2f s "
      "= %.0f routes/s\n",
      what, batch, m, n / m, install.size(), each, Median(remove), n / Median(remove));
  std::cout.flush();
}

bool Shell(const std::string& cmd) {
  if (system(cmd.c_str()) != 0) {
    std::cerr << "failed: " << cmd << "\n";
    return false;
  }
  return true;
}

}  // namespace
}  // namespace sluice::fea

int main(int argc, char** argv) {
  using namespace sluice::fea;
  int runs = 5, batch1_kernel_runs = 3;
  std::string only, file;
  bool set = false;
  sluice::base::ProgramOptions options(
      "fea_fib_bench",
      "fea_fib_bench: routes per second installed through the Fib into the dummy FIB and into "
      "the Linux kernel (root; a private network namespace), for the PCH capture's prefixes "
      "($SLUICE_DATA_DIR, else synthetic ones), in transactions of 1, 100, 1,000 and 4,000 "
      "routes; the median of several runs");
  CLI::App& app = options.app();
  app.add_option("--runs", runs, "runs per batch size")->check(CLI::Range(1, 1000));
  app.add_option("--kernel-runs-batch1", batch1_kernel_runs,
                 "runs into the kernel in transactions of 1 route")
      ->check(CLI::Range(1, 1000));
  app.add_option("--only", only, "only the dummy FIB or only the kernel (default both)")
      ->check(CLI::IsMember({"dummy", "kernel"}));
  app.add_option("--prefixes", file,
                 "the prefixes, one a line (default: the capture's, cached in the build folder)")
      ->check(CLI::ExistingFile);
  app.add_flag("--set", set, "queue routes with SetRoute, as the RIB's apply_batch does");
  if (std::optional<int> exit = options.Parse(argc, argv)) return *exit;
  // Before anything else (and before any thread): a private network namespace for the kernel.
  std::string kernel_skip;
  if (only != "dummy") {
    if (geteuid() != 0) {
      kernel_skip = "not root";
    } else if (unshare(CLONE_NEWNET) != 0) {
      kernel_skip = std::string("unshare(CLONE_NEWNET): ") + strerror(errno);
    } else if (!Shell("ip link set lo up && ip link add v0 type veth peer name v1 && "
                      "ip addr add 192.0.2.1/24 dev v0 && ip link set v0 up && "
                      "ip link set v1 up")) {
      kernel_skip = "cannot set up the veth pair";
    }
  }
  std::vector<sluice::net::Prefix> prefixes = LoadPrefixes(file);
  const size_t n = prefixes.size();
  std::cout << "runs per batch size: " << runs << " (kernel, batch 1: " << batch1_kernel_runs
            << ")\n";

  if (only != "kernel") {
    DummyIfMgr ifmgr;
    DummyInterfaceConfig v0;
    v0.name = "v0";
    (void)ifmgr.AddInterface(v0);
    (void)ifmgr.AddAddress("v0", *sluice::net::IPAddress::Parse("192.0.2.1"), 24);
    for (size_t batch : {1, 100, 1000, 4000}) {
      std::vector<RunResult> results;
      for (int r = 0; r < runs; ++r) {
        results.push_back(
            InstallAll(ifmgr, std::make_unique<DummyFibBackend>(), prefixes, batch, set));
      }
      Report("dummy", batch, n, results);
    }
  }
  if (only != "dummy") {
    if (!kernel_skip.empty()) {
      std::cout << "kernel: skipped (" << kernel_skip << ")\n";
      return 0;
    }
    boost::asio::io_context io;
    NetlinkIfMgr ifmgr(io);
    if (absl::Status s = ifmgr.Start(); !s.ok()) {
      std::cerr << s << "\n";
      return 1;
    }
    for (size_t batch : {1, 100, 1000, 4000}) {
      std::vector<RunResult> results;
      int count = batch == 1 ? batch1_kernel_runs : runs;
      for (int r = 0; r < count; ++r) {
        NetlinkFibOptions options;
        options.table = 100;
        results.push_back(
            InstallAll(ifmgr, std::make_unique<NetlinkFibBackend>(options), prefixes, batch, set));
      }
      Report("kernel", batch, n, results);
    }
    {  // Every request acknowledged, for comparison.
      std::vector<RunResult> results;
      for (int r = 0; r < runs; ++r) {
        NetlinkFibOptions options;
        options.table = 100;
        options.ack_every_message = true;
        results.push_back(
            InstallAll(ifmgr, std::make_unique<NetlinkFibBackend>(options), prefixes, 1000, set));
      }
      Report("kernel+ack-each", 1000, n, results);
    }
  }
  return 0;
}
