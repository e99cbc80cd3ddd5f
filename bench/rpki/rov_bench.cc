// rpki_rov_bench: the PCH full table through a validating speaker (RFC 6811) with the VRP set of
// rpki_vrp_gen served by stayrtr, on loopback (tests/system/rov_daemons.h): sluice-replay
// upstream -> the speaker -> a BIRD collector. Prints, per speaker, the time from the upstream's
// first UPDATE until the collector holds every route the speaker accepted (polled through birdc
// every 50 ms or so), without and with route origin validation, the speaker's peak RSS, and then
// the time and the UPDATEs the collector gets after N VRPs of the cache file change.
//
//   SLUICE_DATA_DIR=... SLUICE_BUILD_DIR=build build/bench/rpki/rpki_rov_bench [--runs 3]
//       [--rewrite 10000] [--seed 1]
//
// Speakers: BIRD 2 (`roa_check(...) = ROA_INVALID` then reject, `import table on` so that VRP
// changes re-filter) and Sluice (sluice-rtrmgr with the rpki block and the `rov` import policy;
// its time ends when the collector's count last changed). Peak RSS: BIRD's process; for Sluice,
// every process sluice-rtrmgr runs, and itself.

#include <sys/types.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/program_options.h"
#include "bench/rpki/vrp_generator.h"
#include "tests/system/rov_daemons.h"

namespace sluice::bench::rpki {
namespace {

using testing::BirdDaemon;
using testing::BirdImportStats;
using testing::Speaker;
using testing::Stayrtr;
using testing::UpstreamFeed;

struct Data {
  UpstreamFeed feed;
  std::vector<RouteOrigin> routes;
  GeneratedVrps generated;
  OracleStates oracle;
};

// The peak RSS (VmHWM) of a process in MiB; 0 when unknown.
double PeakRssMib(pid_t pid) {
  std::ifstream status(absl::StrCat("/proc/", pid, "/status"));
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024;
  }
  return 0;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void WriteVrps(const std::string& path, const std::vector<Vrp>& vrps) {
  std::ofstream(path + ".new") << VrpJson(vrps);
  std::filesystem::rename(path + ".new", path);
}

// N VRPs of the cache file change; the time until `s`'s collector holds the new accepted set,
// and the withdrawals and announcements it got. The file is restored afterwards.
void MeasureRewrite(const Data& d, Speaker& s, const std::string& vrp_file, size_t n, uint64_t seed,
                    const char* who) {
  std::vector<Vrp> vrps = d.generated.vrps;
  const RewriteCounts c = RewriteVrps(&vrps, d.routes, n, seed);
  const OracleStates after = Validate(vrps, d.routes);
  const InvalidCrossings crossed = CompareInvalid(d.oracle, after);
  const size_t withdrawn = crossed.became_invalid.size();
  const size_t announced = crossed.stopped_invalid.size();
  const BirdImportStats base = s.collector->ImportStats("speaker");
  const auto start = std::chrono::steady_clock::now();
  WriteVrps(vrp_file, vrps);
  const bool arrived = testing::Eventually(
      [&] {
        const BirdImportStats st = s.collector->ImportStats("speaker");
        return st.withdraws_received - base.withdraws_received >= int64_t(withdrawn) &&
               st.updates_received - base.updates_received >= int64_t(announced);
      },
      120);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::this_thread::sleep_for(std::chrono::seconds(3));  // anything sent late is counted
  const BirdImportStats st = s.collector->ImportStats("speaker");
  std::printf(
      "%s, %zu VRPs changed (%zu now match their route, %zu no longer do, %zu other): %zu "
      "routes became invalid, %zu stopped being invalid; the collector %s after %.2f s, with "
      "%lld withdrawals and %lld announcements\n",
      who, c.made_valid + c.made_invalid + c.other, c.made_valid, c.made_invalid, c.other,
      withdrawn, announced, arrived ? "had them" : "did NOT get them all", seconds,
      (long long)(st.withdraws_received - base.withdraws_received),
      (long long)(st.updates_received - base.updates_received));
  WriteVrps(vrp_file, d.generated.vrps);
}

// The peak RSS of the speaker's processes: BIRD, or every process sluice-rtrmgr runs and
// sluice-rtrmgr itself.
double SpeakerPeakRssMib(Speaker& s) {
  if (s.bird) return PeakRssMib(s.bird->pid());
  if (!s.sluice) return 0;
  double sum = s.sluice->process() != nullptr ? PeakRssMib(s.sluice->process()->pid()) : 0;
  for (const char* name : {"finder", "fea", "rib", "bgp", "rpki"}) {
    const int pid = s.sluice->ChildPid(name);
    if (pid > 0) sum += PeakRssMib(pid);
  }
  return sum;
}

int Run(int runs, size_t rewrite, uint64_t seed) {
  const char* data_dir = std::getenv("SLUICE_DATA_DIR");
  if (data_dir == nullptr || !Stayrtr::Installed() || !BirdDaemon::Installed()) {
    std::fprintf(stderr, "rpki_rov_bench: needs SLUICE_DATA_DIR, stayrtr and BIRD 2\n");
    return 1;
  }
  Data d;
  d.feed.capture = std::string(data_dir) + "/mrt/pch-2015-10-23-fulltable-updates.mrt.gz";
  {
    bgp::AttributeStore store;
    auto capture = bgp::replay::LoadCapture(d.feed.capture, &store);
    if (!capture.ok()) {
      std::fprintf(stderr, "rpki_rov_bench: %s\n", std::string(capture.status().message()).c_str());
      return 1;
    }
    d.feed.peer_index = BusiestPeer(*capture, net::Family::kIPv4, &d.feed.routes);
    d.routes =
        RouteOrigins(capture->peers[d.feed.peer_index], net::Family::kIPv4, testing::kUpstreamAs);
  }
  d.generated = GenerateVrps(d.routes, VrpShares{}, seed);
  d.oracle = Validate(d.generated.vrps, d.routes);
  std::printf("PCH: %zu routes, %zu VRPs; %zu valid, %zu invalid, %zu not-found\n", d.routes.size(),
              d.generated.vrps.size(), d.oracle.valid, d.oracle.invalid, d.oracle.not_found);

  char tmpl[] = "/tmp/sluice-rov-bench-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return 1;
  const std::string dir = tmpl;
  const std::string vrp_file = dir + "/vrps.json";
  WriteVrps(vrp_file, d.generated.vrps);
  Stayrtr cache(vrp_file);
  if (!cache.Start()) {
    std::fprintf(stderr, "rpki_rov_bench: stayrtr did not start\n%s", cache.Output().c_str());
    return 1;
  }
  int status = 0;
  for (const char* who : {"bird", "sluice"}) {
    for (bool rov : {false, true}) {
      std::vector<double> seconds, taken, rss;
      for (int run = 0; run < runs; ++run) {
        const std::string run_dir = absl::StrCat(dir, "/", who, rov ? "-rov-" : "-", run);
        std::filesystem::create_directories(run_dir);
        Speaker s;
        const absl::Status ok =
            who[0] == 'b' ? testing::StartBirdSpeaker(run_dir, d.feed, rov ? cache.port() : 0,
                                                      d.generated.vrps.size(), &s)
                          : testing::StartSluiceSpeaker(run_dir, d.feed, rov ? cache.port() : 0,
                                                        d.generated.vrps.size(), &s);
        if (!ok.ok()) {
          std::printf("%s%s: %s\n", who, rov ? " with ROV" : "", std::string(ok.message()).c_str());
          status = 1;
          break;
        }
        seconds.push_back(s.seconds);
        taken.push_back(s.import_seconds);
        rss.push_back(SpeakerPeakRssMib(s));
        std::printf(
            "  %s%s, run %d: the collector had the table after %.2f s (the speaker "
            "had taken it after %.2f s), peak RSS %.0f MiB\n",
            who, rov ? " with ROV" : " without ROV", run + 1, seconds.back(), s.import_seconds,
            rss.back());
        if (rov && rewrite > 0 && run == runs - 1) {
          MeasureRewrite(d, s, vrp_file, rewrite, seed + 1, who);
        }
      }
      if (!seconds.empty()) {
        std::printf(
            "%s%s (medians of %zu): the speaker took the table in %.2f s, the "
            "collector had it after %.2f s; peak RSS %.0f MiB\n",
            who, rov ? " with ROV" : " without ROV", seconds.size(), Median(taken), Median(seconds),
            Median(rss));
      }
    }
  }
  std::filesystem::remove_all(dir);
  return status;
}

}  // namespace
}  // namespace sluice::bench::rpki

int main(int argc, char** argv) {
  int runs = 3;
  size_t rewrite = 10000;
  uint64_t seed = 1;
  sluice::base::ProgramOptions options(
      "rpki_rov_bench",
      "rpki_rov_bench: the PCH table through a validating speaker (BIRD 2, Sluice) with a "
      "made-up VRP set served by stayrtr; convergence without and with ROV, and re-validation "
      "after N VRPs change");
  options.app().add_option("--runs", runs, "runs per speaker and setting (the median is printed)");
  options.app().add_option("--rewrite", rewrite, "VRPs changed in the re-validation run (0: none)");
  options.app().add_option("--seed", seed, "the VRP set's seed");
  if (std::optional<int> exit = options.Parse(argc, argv)) return *exit;
  return sluice::bench::rpki::Run(std::max(runs, 1), rewrite, seed);
}
