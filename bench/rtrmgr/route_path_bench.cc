// route_path_bench: with a full table loaded, the path of a single new
// route from BGP to the FEA measured with the profiling points (XORP NSDI'05 §8.1, Figs. 10-12):
// average, SD, median, min and max at each point, in milliseconds after the route entered BGP.
//
//   route_path_bench [--prefixes N] [--samples K] [--halves same,different,fresh] [--netlink]
//
// Runs sluice-rtrmgr (dummy FEA) with peers on loopback: an upstream sluice-replay loads a
// synthetic table of N prefixes (default 577,706, the PCH table's size). Then K samples of each
// kind, the first two as in XORP's Figs. 11 and 12:
//  - "same peer": the upstream announces one more prefix after its table, in the same session
//    (sluice-replay --extra, one held-back route per SIGUSR2);
//  - "different peer": a second peer, Established and sent the whole table before the samples
//    start, announces one more prefix (--extra likewise);
//  - "fresh peer": a new probe peer opens a session and announces one new prefix at once, so the
//    route travels while the dump of the whole table towards that peer runs.
// For each sample the entries of every profiling point on bgp, rib and fea for that prefix are
// read back. Prints one row per point and half; every sample's row goes to RUNDIR/samples.txt.
// --netlink (root): the bench enters a private network namespace of its own (unshare -n), the
// FEA programs the kernel (table 100) and the point fea_route_in_kernel (the kernel accepted the
// change) is measured too. Not a test: it prints numbers.

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/log.h"
#include "base/program_options.h"
#include "ipc/methods/bgp.h"
#include "ipc/methods/profile.h"
#include "ipc/methods/rib.h"
#include "ipc/types_convert.h"
#include "rtrmgr/cli/queries.h"
#include "rtrmgr/mainjob/programs.h"

namespace sluice::rtrmgr::mainjob {
namespace {

using Clock = std::chrono::steady_clock;

using Points = std::vector<std::pair<std::string, std::string>>;
const Points kPoints = {
    {"bgp", "bgp_route_in"}, {"bgp", "bgp_queued_to_rib"}, {"bgp", "bgp_sent_to_rib"},
    {"rib", "rib_route_in"}, {"rib", "rib_queued_to_fea"}, {"rib", "rib_sent_to_fea"},
    {"fea", "fea_route_in"},
};
const std::pair<std::string, std::string> kKernelPoint = {"fea", "fea_route_in_kernel"};
// --netlink: nexthop of every route, on a veth subnet of the private namespace.
constexpr char kKernelNexthop[] = "10.1.0.2";

constexpr int kPort = 10479;

// One probe peer per sample (127.0.1.1, 127.0.1.2, ...): a peer whose session ended is held
// Idle for a growing time (RFC 4271 §8.1.1 DampPeerOscillations), so none is used twice.
std::string ProbeAddress(int i) { return absl::StrCat("127.0.", 1 + i / 250, ".", 1 + i % 250); }

std::string Config(int samples, bool netlink, int threads) {
  std::string peers;
  for (int i = 0; i < samples; ++i) {
    absl::StrAppend(&peers, "        peer ", ProbeAddress(i), " { as ", 4200000100u + i,
                    "; local-ip 127.0.0.1; passive; }\n");
  }
  return absl::StrCat(
      netlink ? "fea { backend netlink; table 100; }\n" : "fea { backend dummy; }\n",
      R"(protocols {
    bgp {
        local-as 4200000001;
        bgp-id 10.255.0.1;
)",
      threads > 0 ? absl::StrCat("        threads ", threads, ";\n") : "",
      "        listen 127.0.0.1 port ", kPort, R"(;
        peer 127.0.0.2 { as 4200000002; local-ip 127.0.0.1; passive; }
        peer 127.0.0.3 { as 4200000003; local-ip 127.0.0.1; passive; }
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
  auto r = client.Call(process, ipc::methods::profile::kGetEntries, q);
  if (!r.ok()) return -1;
  for (const auto& e : r->entries()) {
    if (e.text().find(prefix) != std::string::npos) return e.time_us();
  }
  return -1;
}

struct Half {
  std::string name;
  std::map<std::string, std::vector<double>> ms;  // point -> milliseconds after bgp_route_in
  int done = 0, missed = 0;
};

// The pseudo-point for when the peer wrote the route to its socket (sluice-replay --json's
// "extra" or "table_sent" event, on CLOCK_MONOTONIC): negative, the time the UPDATE took to
// enter BGP — how long it waited in the socket while the BGP process was busy (e.g. dumping).
constexpr char kPeerSent[] = "peer_sent";

// The last `"event":"<event>"` line of a sluice-replay --json output file: its "mono" time in
// microseconds on the realtime clock of the profiling points; -1 if none.
int64_t PeerSentTime(const std::string& file, const std::string& event) {
  const std::string text = ReadFile(file);
  const size_t at = text.rfind(absl::StrCat("\"event\":\"", event, "\""));
  if (at == std::string::npos) return -1;
  const size_t mono = text.find("\"mono\":", at);
  if (mono == std::string::npos) return -1;
  const double seconds = std::strtod(text.c_str() + mono + 7, nullptr);
  timespec real, monotonic;
  clock_gettime(CLOCK_REALTIME, &real);
  clock_gettime(CLOCK_MONOTONIC, &monotonic);
  const double offset = (real.tv_sec - monotonic.tv_sec) + (real.tv_nsec - monotonic.tv_nsec) / 1e9;
  return int64_t((seconds + offset) * 1e6);
}

// One sample: clears every point, runs `trigger` (which makes one new prefix enter BGP), finds
// the prefix as the first bgp_route_in entry, waits for it at the FEA (and in the kernel), then
// reads every point for it, and when the peer wrote it from `sent_file`'s `sent_event`. False
// when the prefix did not make it.
bool Sample(cli::SyncClient& client, const Points& points, const std::function<void()>& trigger,
            const std::string& sent_file, const std::string& sent_event, Half* half,
            std::ofstream& raw) {
  for (const auto& [process, point] : points) {
    profile::v1::ClearRequest q;
    q.set_point(point);
    (void)client.Call(process, ipc::methods::profile::kClear, q);
  }
  trigger();
  std::string prefix;
  int64_t t0 = -1, t_last = -1;
  const auto start = Clock::now();
  while (Clock::now() - start < std::chrono::seconds(30) && !g_stop) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    profile::v1::GetEntriesRequest q;
    q.set_point("bgp_route_in");
    auto r = client.Call("bgp", ipc::methods::profile::kGetEntries, q);
    if (r.ok() && !r->entries().empty()) {
      prefix = r->entries(0).text().substr(0, r->entries(0).text().find(' '));
      t0 = r->entries(0).time_us();
      break;
    }
  }
  if (t0 < 0) return false;
  const auto& [last_process, last_point] = points.back();
  const auto wait = Clock::now();
  while (t_last < 0 && Clock::now() - wait < std::chrono::seconds(3)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    t_last = EntryTime(client, last_process, last_point, prefix);
  }
  if (t_last < 0) return false;
  std::string row = absl::StrCat(half->name, " ", prefix);
  if (const int64_t sent = PeerSentTime(sent_file, sent_event); sent > 0) {
    half->ms[kPeerSent].push_back((sent - t0) / 1000.0);
    absl::StrAppend(&row, absl::StrFormat(" %s=%.3f", kPeerSent, (sent - t0) / 1000.0));
  }
  for (const auto& [process, point] : points) {
    const int64_t t = EntryTime(client, process, point, prefix);
    if (t >= 0) half->ms[point].push_back((t - t0) / 1000.0);
    absl::StrAppend(&row, absl::StrFormat(" %s=%.3f", point, t >= 0 ? (t - t0) / 1000.0 : -1));
  }
  raw << row << "\n";
  raw.flush();
  return true;
}

void Print(const Half& half, const Points& points, uint64_t fib) {
  std::cout << absl::StrFormat(
      "route_path_bench: %d samples (%d missed) of one new route from the %s, with %d BGP "
      "routes loaded; milliseconds after bgp_route_in\n",
      half.done, half.missed, half.name, fib);
  std::cout << absl::StrFormat("%-20s %5s %9s %9s %9s %9s %9s\n", "point", "n", "mean", "sd",
                               "median", "min", "max");
  Points rows = points;
  rows.insert(rows.begin(), {"", kPeerSent});
  for (const auto& [process, point] : rows) {
    auto it = half.ms.find(point);
    if (it == half.ms.end() || it->second.empty()) continue;
    std::vector<double> v = it->second;
    std::sort(v.begin(), v.end());
    double sum = 0, sq = 0;
    for (double x : v) sum += x;
    const double mean = sum / v.size();
    for (double x : v) sq += (x - mean) * (x - mean);
    const double median =
        v.size() % 2 == 1 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    std::cout << absl::StrFormat("%-20s %5d %9.3f %9.3f %9.3f %9.3f %9.3f\n", point, v.size(), mean,
                                 std::sqrt(sq / v.size()), median, v.front(), v.back());
  }
}

// Waits until `peer`'s prefixes_advertised has not changed for 3 s (its dump is over).
uint64_t WaitForDump(cli::SyncClient& client, const std::string& peer) {
  uint64_t advertised = 0, last = 1;
  auto last_change = Clock::now();
  const auto start = Clock::now();
  while (Clock::now() - last_change < std::chrono::seconds(3) && !g_stop &&
         Clock::now() - start < std::chrono::seconds(300)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    auto r = client.Call("bgp", ipc::methods::bgp::kListPeers, bgp::v1::ListPeersRequest());
    if (!r.ok()) continue;
    for (const auto& p : r->peers()) {
      auto address = ipc::FromProto(p.address());
      if (address.ok() && address->ToString() == peer && p.state() == "Established") {
        advertised = p.prefixes_advertised();
      }
    }
    if (advertised != last || advertised == 0) {
      last = advertised;
      last_change = Clock::now();
    }
  }
  return advertised;
}

int Run(uint64_t prefixes, int samples, const std::string& halves, bool netlink, int threads) {
  const bool same = halves.find("same") != std::string::npos;
  const bool different = halves.find("different") != std::string::npos;
  const bool fresh = halves.find("fresh") != std::string::npos;
  char dir_template[] = "/tmp/sluice-route-path.XXXXXX";
  const std::string rundir = mkdtemp(dir_template);
  const std::string bin = BuildDir();
  const std::string conf = rundir + "/bench.conf";
  std::ofstream(conf) << Config(2 * samples, netlink, threads);
  Points points = kPoints;
  if (netlink) points.push_back(kKernelPoint);
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
  auto nexthop = [&](std::vector<std::string> argv) {
    if (netlink) {
      argv.insert(argv.end(), {"--next-hop", kKernelNexthop});
    } else {
      argv.push_back("--next-hop-self");
    }
    return argv;
  };
  // The upstream holds 2K routes back for the "same peer" half (sluice-replay --extra).
  const pid_t upstream =
      Spawn(nexthop({bin + "/bgp/replay/sluice-replay", "--connect", connect, "--local-address",
                     "127.0.0.2", "--local-as", "4200000002", "--prepend-own-as", "--synthetic",
                     absl::StrCat(prefixes), "--extra", absl::StrCat(2 * samples), "--linger",
                     "--quiet", "--json"}),
            rundir + "/upstream.out", rundir + "/upstream.log");
  // The full table in the RIB.
  std::cerr << "loading " << prefixes << " prefixes...\n";
  uint64_t fib = 0, last = 0;
  auto last_change = Clock::now();
  while (Clock::now() - last_change < std::chrono::seconds(3) || fib < prefixes / 2) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    auto r = client.Call("rib", ipc::methods::rib::kListProtocols, rib::v1::ListProtocolsRequest());
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
  for (const auto& [process, point] : points) {
    profile::v1::EnableRequest q;
    q.set_point(point);
    q.set_enable(true);
    (void)client.Call(process, ipc::methods::profile::kEnable, q);
  }
  std::ofstream raw(rundir + "/samples.txt");

  Half same_half, different_half, fresh_half;
  same_half.name = "same peer";
  different_half.name = "different peer";
  fresh_half.name = "fresh peer";
  // K announcements on signals from a peer that is Established and idle.
  auto signalled = [&](pid_t peer, const std::string& out, Half* half) {
    for (int i = 0; i < samples + half->missed && half->missed < samples && !g_stop; ++i) {
      const bool ok = Sample(
          client, points, [&] { kill(peer, SIGUSR2); }, out, "extra", half, raw);
      ++(ok ? half->done : half->missed);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  };
  if (same) signalled(upstream, rundir + "/upstream.out", &same_half);
  pid_t second = -1;
  if (different) {
    second = Spawn(nexthop({bin + "/bgp/replay/sluice-replay", "--connect", connect,
                            "--local-address", "127.0.0.3", "--local-as", "4200000003",
                            "--prepend-own-as", "--synthetic", "1", "--seed", "999", "--extra",
                            absl::StrCat(2 * samples), "--linger", "--quiet", "--json"}),
                   rundir + "/second.out", rundir + "/second.log");
    std::cerr << "a second peer: waiting for the dump of the table towards it\n";
    const uint64_t advertised = WaitForDump(client, "127.0.0.3");
    std::cerr << advertised << " prefixes advertised to it; probing\n";
    signalled(second, rundir + "/second.out", &different_half);
  }
  if (fresh) {
    for (int i = 0; i < samples + fresh_half.missed && fresh_half.missed < samples && !g_stop;
         ++i) {
      pid_t probe = -1;
      // A missed sample: the prefix lost to the upstream's route, or the session did not come up.
      const bool ok = Sample(
          client, points,
          [&] {
            probe = Spawn(
                nexthop({bin + "/bgp/replay/sluice-replay", "--connect", connect, "--local-address",
                         ProbeAddress(i), "--local-as", absl::StrCat(4200000100u + i),
                         "--prepend-own-as", "--synthetic", "1", "--seed", absl::StrCat(1000 + i),
                         "--linger", "--quiet", "--json"}),
                rundir + "/probe.out", rundir + "/probe.log");
          },
          rundir + "/probe.out", "table_sent", &fresh_half, raw);
      ++(ok ? fresh_half.done : fresh_half.missed);
      Stop(probe, 5);
      std::this_thread::sleep_for(std::chrono::milliseconds(500));  // its route leaves
    }
  }
  if (same) Print(same_half, points, fib);
  if (different) Print(different_half, points, fib);
  if (fresh) Print(fresh_half, points, fib);
  if (second > 0) Stop(second, 5);
  Stop(upstream, 5);
  Stop(rtrmgr, 30);
  std::cout << "logs and samples: " << rundir << "\n";
  return 0;
}

}  // namespace
}  // namespace sluice::rtrmgr::mainjob

int main(int argc, char** argv) {
  sluice::base::SetLogLevel(sluice::base::LogLevel::kError);
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGINT, sluice::rtrmgr::mainjob::OnSignal);
  std::signal(SIGTERM, sluice::rtrmgr::mainjob::OnSignal);
  uint64_t prefixes = 577706;
  int samples = 20;
  std::string halves = "same,different,fresh";
  bool netlink = false;
  int threads = 0;
  sluice::base::ProgramOptions options(
      "route_path_bench",
      "route_path_bench: with a full table loaded in sluice-rtrmgr's router, the path of a single "
      "new route from BGP to the FEA through the profiling points: average, SD, median, min and "
      "max at each point, in milliseconds after the route entered BGP");
  CLI::App& app = options.app();
  app.add_option("--prefixes", prefixes, "N: the synthetic table's prefixes")
      ->check(CLI::Range(uint64_t{1}, uint64_t{100000000}));
  app.add_option("--samples", samples, "K: samples of each kind")->check(CLI::Range(1, 10000));
  sluice::base::AddParsedOption(
      app, "--halves",
      [&halves](const std::string& value) {
        std::vector<std::string> kinds = absl::StrSplit(value, ',', absl::SkipEmpty());
        for (const std::string& kind : kinds) {
          if (kind != "same" && kind != "different" && kind != "fresh") {
            return absl::InvalidArgumentError(
                absl::StrCat("no kind ", kind, " (want same, different or fresh)"));
          }
        }
        if (kinds.empty()) return absl::InvalidArgumentError("no kind named");
        halves = value;
        return absl::OkStatus();
      },
      "the kinds of sample, comma-separated: same (peer), different (peer), fresh (peer)")
      ->type_name("same,different,fresh")
      ->default_str(halves);
  app.add_flag("--netlink", netlink,
               "(root) a private network namespace; the FEA programs kernel table 100 and "
               "fea_route_in_kernel is measured too");
  app.add_option("--threads", threads,
                 "N: sluice-bgp's threads (the configuration's `threads`); 0 leaves its default")
      ->check(CLI::Range(0, 256));
  if (std::optional<int> exit = options.Parse(argc, argv)) return *exit;
  if (netlink && !sluice::rtrmgr::mainjob::EnterPrivateNetworkNamespace()) return 1;
  return sluice::rtrmgr::mainjob::Run(prefixes, samples, halves, netlink, threads);
}
