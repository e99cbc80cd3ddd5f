// route_path_bench: issue 11's benchmark — with a full table loaded, the path of a single new
// route from BGP to the FEA measured with the profiling points (XORP NSDI'05 §8.1, Figs. 10-12):
// average, SD, median, min and max at each point, in milliseconds after the route entered BGP.
//
//   route_path_bench [--prefixes N] [--samples K]
//
// Runs sluice-rtrmgr (dummy FEA) with three peers on loopback: an upstream sluice-replay loads a
// synthetic table of N prefixes (default 577,706, the PCH table's size); then K times a probe
// peer (a different peer than the upstream) opens a session and announces one new prefix, and
// the entries of every profiling point on bgp, rib and fea for that prefix are read back.
// Prints one row per point. Not a test: it prints numbers.

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "net/log.h"
#include "rtrmgr/cli/queries.h"
#include "rtrmgr/mainjob/programs.h"

namespace sluice::rtrmgr::mainjob {
namespace {

using Clock = std::chrono::steady_clock;

const std::vector<std::pair<std::string, std::string>> kPoints = {
    {"bgp", "bgp_route_in"}, {"bgp", "bgp_queued_to_rib"}, {"bgp", "bgp_sent_to_rib"},
    {"rib", "rib_route_in"}, {"rib", "rib_queued_to_fea"}, {"rib", "rib_sent_to_fea"},
    {"fea", "fea_route_in"},
};

constexpr int kPort = 10479;

// One probe peer per sample (127.0.1.1, 127.0.1.2, ...): a peer whose session ended is held
// Idle for a growing time (RFC 4271 §8.1.1 DampPeerOscillations), so none is used twice.
std::string ProbeAddress(int i) { return absl::StrCat("127.0.", 1 + i / 250, ".", 1 + i % 250); }

std::string Config(int samples) {
  std::string peers;
  for (int i = 0; i < samples; ++i) {
    absl::StrAppend(&peers, "        peer ", ProbeAddress(i), " { as ", 4200000100u + i,
                    "; local-ip 127.0.0.1; passive; }\n");
  }
  return absl::StrCat(R"(fea { backend dummy; }
protocols {
    bgp {
        local-as 4200000001;
        bgp-id 10.255.0.1;
        listen 127.0.0.1 port )",
                      kPort, R"(;
        peer 127.0.0.2 { as 4200000002; local-ip 127.0.0.1; passive; }
)",
                      peers, R"(    }
}
)");
}

volatile sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }

// The first entry whose text starts with `prefix`, in microseconds since the epoch; -1 if none.
int64_t EntryTime(cli::SyncClient& client, const std::string& process, const std::string& point,
                  const std::string& prefix) {
  profile::v1::GetEntriesRequest q;
  q.set_point(point);
  auto r = client.Call(process, cli::kProfileGet, q);
  if (!r.ok()) return -1;
  for (const auto& e : r->entries()) {
    if (e.text().find(prefix) != std::string::npos) return e.time_us();
  }
  return -1;
}

int Run(uint64_t prefixes, int samples) {
  char dir_template[] = "/tmp/sluice-route-path.XXXXXX";
  const std::string rundir = mkdtemp(dir_template);
  const std::string bin = BuildDir();
  const std::string conf = rundir + "/bench.conf";
  std::ofstream(conf) << Config(2 * samples);
  const pid_t rtrmgr =
      Spawn({bin + "/rtrmgr/process/sluice-rtrmgr", "--config", conf, "--rundir", rundir},
            rundir + "/rtrmgr.out", rundir + "/rtrmgr.log");
  const auto start = Clock::now();
  while (ReadFile(rundir + "/rtrmgr.out").find("ready") == std::string::npos) {
    if (!Running(rtrmgr) || Clock::now() - start > std::chrono::seconds(60)) {
      std::cerr << "the router manager did not come up:\n" << Tail(rundir + "/rtrmgr.log", 20);
      Stop(rtrmgr, 10);
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  cli::SyncClient client("unix:" + rundir + "/finder.sock", 30000, "bench");
  const std::string connect = absl::StrCat("127.0.0.1:", kPort);
  const pid_t upstream =
      Spawn({bin + "/bgp/replay/sluice-replay", "--connect", connect, "--local-address",
             "127.0.0.2", "--local-as", "4200000002", "--next-hop-self", "--synthetic",
             absl::StrCat(prefixes), "--linger", "--quiet"},
            rundir + "/upstream.out", rundir + "/upstream.log");
  // The full table in the FIB.
  std::cerr << "loading " << prefixes << " prefixes...\n";
  uint64_t fib = 0, last = 0;
  auto last_change = Clock::now();
  while (Clock::now() - last_change < std::chrono::seconds(3) || fib < prefixes / 2) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    auto r = client.Call("rib", cli::kRibListProtocols, rib::v1::ListProtocolsRequest());
    if (r.ok()) {
      for (const auto& p : r->protocols()) {
        if (p.protocol() == "ebgp") fib = p.routes();
      }
    }
    if (fib != last) {
      last = fib;
      last_change = Clock::now();
    }
    if (g_stop || Clock::now() - start > std::chrono::seconds(600)) break;
  }
  std::cerr << fib << " BGP routes in the RIB; probing\n";
  for (const auto& [process, point] : kPoints) {
    profile::v1::EnableRequest q;
    q.set_point(point);
    q.set_enable(true);
    (void)client.Call(process, cli::kProfileEnable, q);
  }

  std::map<std::string, std::vector<double>> ms;  // point -> milliseconds after bgp_route_in
  int done = 0, missed = 0;
  for (int i = 0; i < samples + missed && missed < samples && !g_stop; ++i) {
    for (const auto& [process, point] : kPoints) {
      profile::v1::ClearRequest q;
      q.set_point(point);
      (void)client.Call(process, cli::kProfileClear, q);
    }
    const pid_t probe =
        Spawn({bin + "/bgp/replay/sluice-replay", "--connect", connect, "--local-address",
               ProbeAddress(i), "--local-as", absl::StrCat(4200000100u + i), "--next-hop-self",
               "--synthetic", "1", "--seed", absl::StrCat(1000 + i), "--linger", "--quiet"},
              rundir + "/probe.out", rundir + "/probe.log");
    // Which prefix it sent: the first bgp_route_in entry.
    std::string prefix;
    int64_t t0 = -1, t_fea = -1;
    const auto probe_start = Clock::now();
    while (Clock::now() - probe_start < std::chrono::seconds(30)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      profile::v1::GetEntriesRequest q;
      q.set_point("bgp_route_in");
      auto r = client.Call("bgp", cli::kProfileGet, q);
      if (r.ok() && !r->entries().empty()) {
        prefix = r->entries(0).text().substr(0, r->entries(0).text().find(' '));
        t0 = r->entries(0).time_us();
        break;
      }
    }
    if (t0 >= 0) {
      const auto wait = Clock::now();
      while (t_fea < 0 && Clock::now() - wait < std::chrono::seconds(3)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        t_fea = EntryTime(client, "fea", "fea_route_in", prefix);
      }
    }
    if (t_fea >= 0) {
      for (const auto& [process, point] : kPoints) {
        const int64_t t = EntryTime(client, process, point, prefix);
        if (t >= 0) ms[point].push_back((t - t0) / 1000.0);
      }
      ++done;
    } else {
      ++missed;  // the prefix lost to the upstream's route, or the session did not come up
    }
    Stop(probe, 5);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // its route leaves
  }

  std::cout << absl::StrFormat(
      "route_path_bench: %d samples (%d missed) of one new route from a different peer, with "
      "%d BGP routes loaded; milliseconds after bgp_route_in\n",
      done, missed, fib);
  std::cout << absl::StrFormat("%-20s %5s %9s %9s %9s %9s %9s\n", "point", "n", "mean", "sd",
                               "median", "min", "max");
  for (const auto& [process, point] : kPoints) {
    std::vector<double>& v = ms[point];
    if (v.empty()) continue;
    std::sort(v.begin(), v.end());
    double sum = 0, sq = 0;
    for (double x : v) sum += x;
    const double mean = sum / v.size();
    for (double x : v) sq += (x - mean) * (x - mean);
    std::cout << absl::StrFormat("%-20s %5d %9.3f %9.3f %9.3f %9.3f %9.3f\n", point, v.size(), mean,
                                 std::sqrt(sq / v.size()), v[v.size() / 2], v.front(), v.back());
  }
  Stop(upstream, 5);
  Stop(rtrmgr, 30);
  std::cout << "logs: " << rundir << "\n";
  return 0;
}

}  // namespace
}  // namespace sluice::rtrmgr::mainjob

int main(int argc, char** argv) {
  sluice::net::SetLogLevel(sluice::net::LogLevel::kError);
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGINT, sluice::rtrmgr::mainjob::OnSignal);
  std::signal(SIGTERM, sluice::rtrmgr::mainjob::OnSignal);
  uint64_t prefixes = 577706;
  int samples = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    if (arg == "--prefixes") prefixes = std::strtoull(argv[i + 1], nullptr, 10);
    if (arg == "--samples") samples = std::atoi(argv[i + 1]);
  }
  return sluice::rtrmgr::mainjob::Run(prefixes, samples);
}
