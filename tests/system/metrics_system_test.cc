// sluice-rtrmgr's Prometheus endpoint against real processes: the router (dummy FEA, a static
// route, a BGP peer played by sluice-replay from 127.0.0.2 with a small generated table) with a
// `metrics` block. What `curl /metrics` shows equals what `sluice show ... --json` reports,
// promtool accepts the page, and a reload moves the endpoint or stops it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "tests/bgp/test_data.h"
#include "tests/system/rtrmgr_processes.h"

namespace sluice::testing {
namespace {

using nlohmann::json;

constexpr int kRoutes = 300;
// Debian's (programs are started without a search path).
constexpr const char* kCurl = "/usr/bin/curl";
constexpr const char* kPromtool = "/usr/bin/promtool";

std::string Config(int bgp_port, const std::string& metrics) {
  return absl::StrCat(R"(
interfaces {
    interface eth0 { address 10.1.0.1/24; }
}
fea { backend dummy; }
protocols {
    static {
        route 10.0.0.0/8 { next-hop 10.1.0.254; }
    }
    rpki { cache 127.0.0.1 { port 1; } }
    bgp {
        local-as 4200000001;
        bgp-id 10.255.0.1;
        listen 127.0.0.1 port )",
                      bgp_port, R"(;
        peer 127.0.0.2 { as 4200000002; local-ip 127.0.0.1; passive; }
        peer 127.0.0.3 { as 4200000003; local-ip 127.0.0.1; passive; }
    }
}
)",
                      metrics);
}

std::string MetricsBlock(int port) {
  return absl::StrCat("metrics { listen 127.0.0.1 port ", port, "; }\n");
}

// One scrape: "name{labels}" -> value. Empty when nothing answered.
using Scrape = std::map<std::string, double>;

CommandResult Curl(int port) {
  return RunCommand(
      {kCurl, "-s", "--max-time", "10", absl::StrCat("http://127.0.0.1:", port, "/metrics")});
}

Scrape Parse(const std::string& text) {
  Scrape out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.rfind(' ');
    if (space == absl::string_view::npos) continue;
    double value = 0;
    if (!absl::SimpleAtod(line.substr(space + 1), &value)) continue;
    out[std::string(line.substr(0, space))] = value;
  }
  return out;
}

Scrape Get(int port) {
  CommandResult c = Curl(port);
  return c.exit_code == 0 ? Parse(c.out) : Scrape();
}

double Value(const Scrape& s, const std::string& series) {
  auto it = s.find(series);
  return it == s.end() ? std::nan("") : it->second;
}

json Json(RtrmgrProcess& r, std::vector<std::string> args) {
  args.push_back("--json");
  CommandResult c = r.Sluice(args);
  if (c.exit_code != 0) return nullptr;
  return json::parse(c.out, nullptr, false);
}

// The router with a metrics block, fed by sluice-replay as 127.0.0.2 (`feed`: its table
// arguments), once the peer's Adj-RIB-In holds `expected` accepted prefixes.
class MetricsRouter : public ::testing::Test {
 protected:
  void StartWith(const std::vector<std::string>& feed, int expected, double seconds) {
    if (::access(kCurl, X_OK) != 0 || ::access(kPromtool, X_OK) != 0) {
      GTEST_SKIP() << "curl or promtool (Debian package prometheus) is not installed";
    }
    bgp_port_ = FreeTcpPort();
    metrics_port_ = FreeTcpPort();
    conf_ = r_.WriteConfig("router.conf", Config(bgp_port_, MetricsBlock(metrics_port_)));
    ASSERT_TRUE(r_.Start(conf_)) << r_.Logs("rtrmgr");
    replay_ = StartReplay("127.0.0.2", "4200000002", feed);
    ASSERT_TRUE(replay_);
    // The whole table is in the peer's Adj-RIB-In.
    ASSERT_TRUE(Eventually(
        [&] {
          json peers = Json(r_, {"show", "bgp", "peers"});
          if (!peers.is_object()) return false;
          for (const json& p : peers["peers"]) {
            if (p["address"] == "127.0.0.2") {
              return p["state"] == "Established" && p["prefixes_accepted"] == expected;
            }
          }
          return false;
        },
        seconds))
        << r_.Logs("bgp");
  }

  // sluice-replay as peer `address` (AS `as`) with the table arguments `feed`.
  std::unique_ptr<ChildProcess> StartReplay(const std::string& address, const std::string& as,
                                            const std::vector<std::string>& feed) {
    std::vector<std::string> argv = {BuildPath("bgp/replay/sluice-replay"),
                                     "--connect",
                                     absl::StrCat("127.0.0.1:", bgp_port_),
                                     "--local-address",
                                     address,
                                     "--local-as",
                                     as,
                                     "--prepend-own-as",
                                     "--next-hop",
                                     "10.1.0.2",
                                     "--linger",
                                     "--quiet"};
    argv.insert(argv.end(), feed.begin(), feed.end());
    return ChildProcess::Start(argv);
  }

  RtrmgrProcess r_;
  int bgp_port_ = 0;
  int metrics_port_ = 0;
  std::string conf_;
  std::unique_ptr<ChildProcess> replay_;
};

// A small generated table.
class MetricsSystemTest : public MetricsRouter {
 protected:
  void SetUp() override {
    StartWith({"--synthetic", std::to_string(kRoutes), "--reconnect"}, kRoutes, 60);
  }
};

// The PCH full table (577,703 routes; the 4 with AS 0 in their path are refused, RFC 7607).
class MetricsPchTest : public MetricsRouter {
 protected:
  static constexpr int kPchAccepted = 577699;
  void SetUp() override {
    SLUICE_SKIP_WITHOUT_MRT_DATA();
    StartWith({"--mrt", MrtDir() + "/pch-2015-10-23-fulltable-updates.mrt.gz", "--mode", "table"},
              kPchAccepted, 300);
  }
};

// The peers' counters a scrape shows, as `sluice show bgp peers --json` names them.
std::map<std::string, std::pair<std::string, std::string>> PeerFields() {
  return {
      {"sluice_bgp_peer_prefixes_received", {"prefixes_received", ""}},
      {"sluice_bgp_peer_prefixes_accepted", {"prefixes_accepted", ""}},
      {"sluice_bgp_peer_prefixes_advertised", {"prefixes_advertised", ""}},
      {"sluice_bgp_peer_updates_received_total", {"counters", "updates_in"}},
      {"sluice_bgp_peer_updates_sent_total", {"counters", "updates_out"}},
      {"sluice_bgp_peer_notifications_received_total", {"counters", "notifications_in"}},
      {"sluice_bgp_peer_notifications_sent_total", {"counters", "notifications_out"}},
      {"sluice_bgp_peer_established_transitions_total", {"counters", "established_transitions"}},
      {"sluice_bgp_peer_updates_treat_as_withdraw_total",
       {"counters", "updates_treat_as_withdraw"}},
      {"sluice_bgp_peer_updates_attribute_discard_total",
       {"counters", "updates_attribute_discard"}},
      {"sluice_bgp_peer_afi_safi_disables_total", {"counters", "afi_safi_disables"}},
  };
}

// Every difference between the scrape and the CLI's documents ("" when they agree).
std::string Differences(const Scrape& s, const json& peers, const json& summary) {
  std::string out;
  for (const json& p : peers["peers"]) {
    const std::string peer = p["address"].get<std::string>();
    const std::string label = absl::StrCat("{peer=\"", peer, "\"}");
    for (const auto& [metric, field] : PeerFields()) {
      const json& v = field.second.empty() ? p[field.first] : p[field.first][field.second];
      if (Value(s, metric + label) != v.get<double>()) {
        absl::StrAppend(&out, metric, label, " = ", Value(s, metric + label), ", CLI ", v.dump(),
                        "\n");
      }
    }
    const double state = Value(s, "sluice_bgp_peer_state" + label);
    if ((p["state"] == "Established") != (state == 6)) {
      absl::StrAppend(&out, peer, " state ", p["state"].dump(), ", metric ", state, "\n");
    }
  }
  for (const json& f : summary["families"]) {
    for (const json& p : f["protocols"]) {
      const std::string series =
          absl::StrCat("sluice_rib_routes{protocol=\"", p["protocol"].get<std::string>(),
                       "\",family=\"", f["family"].get<std::string>(), "\"}");
      if (Value(s, series) != p["routes"].get<double>()) {
        absl::StrAppend(&out, series, " = ", Value(s, series), ", CLI ", p["routes"].dump(), "\n");
      }
    }
  }
  return out;
}

// Waits until a scrape agrees with `sluice show bgp peers --json` and `sluice show route
// summary --json` read just before it: the endpoint serves what it gathered last (every few
// seconds). "" once they agree, else the last differences.
std::string AwaitAgreement(RtrmgrProcess& r, int port) {
  std::string diff = "no scrape";
  Eventually(
      [&] {
        json peers = Json(r, {"show", "bgp", "peers"});
        json summary = Json(r, {"show", "route", "summary"});
        Scrape s = Get(port);
        if (!peers.is_object() || !summary.is_object() || s.empty()) return false;
        diff = Differences(s, peers, summary);
        return diff.empty();
      },
      60);
  return diff;
}

bool PromtoolAccepts(int port, std::string* why) {
  CommandResult check = RunCommand({"/bin/sh", "-c",
                                    absl::StrCat(kCurl, " -s http://127.0.0.1:", port,
                                                 "/metrics | ", kPromtool, " check metrics")});
  *why = check.out + check.err;
  return check.exit_code == 0;
}

TEST_F(MetricsSystemTest, ScrapeEqualsTheCliAndPassesPromtool) {
  EXPECT_EQ(AwaitAgreement(r_, metrics_port_), "");

  Scrape s = Get(metrics_port_);
  EXPECT_EQ(Value(s, "sluice_bgp_peer_prefixes_accepted{peer=\"127.0.0.2\"}"), kRoutes);
  EXPECT_EQ(Value(s, "sluice_rib_routes{protocol=\"ebgp\",family=\"ipv4\"}"), kRoutes);
  EXPECT_EQ(Value(s, "sluice_rib_routes{protocol=\"static\",family=\"ipv4\"}"), 1);
  // The FIB: the static route, the peer's routes and the connected network.
  json fib = Json(r_, {"show", "fib"});
  ASSERT_TRUE(fib.is_object());
  EXPECT_EQ(Value(s, "sluice_fib_routes{family=\"ipv4\"}") +
                Value(s, "sluice_fib_routes{family=\"ipv6\"}"),
            static_cast<double>(fib["routes"].size()));
  EXPECT_EQ(Value(s, "sluice_fib_install_errors_total"), 0);
  // The silent peer 127.0.0.3 is not Established.
  EXPECT_LT(Value(s, "sluice_bgp_peer_state{peer=\"127.0.0.3\"}"), 6);
  // Processes: running, with memory; restarts as `sluice show processes` counts them.
  for (const char* name : {"rtrmgr", "finder", "fea", "rib", "bgp", "static_routes", "rpki"}) {
    const std::string l = absl::StrCat("{process=\"", name, "\"}");
    EXPECT_EQ(Value(s, "sluice_process_up" + l), 1) << name;
    EXPECT_GT(Value(s, "sluice_process_resident_memory_bytes" + l), 1 << 20) << name;
    EXPECT_GE(Value(s, "sluice_process_cpu_seconds_total" + l), 0) << name;
  }
  for (const char* name : {"fea", "rib", "bgp"}) {
    int restarts = -1;
    r_.ChildPid(name, &restarts);
    EXPECT_EQ(Value(s, absl::StrCat("sluice_process_restarts_total{process=\"", name, "\"}")),
              restarts)
        << name;
    EXPECT_EQ(Value(s, absl::StrCat("sluice_metrics_source_up{process=\"", name, "\"}")), 1);
  }
  EXPECT_LT(Value(s, "sluice_metrics_snapshot_age_seconds"), 60);
  // sluice-rpki runs (its cache does not answer): its VRP counts as `sluice show rpki` says.
  json rpki = Json(r_, {"show", "rpki"});
  ASSERT_TRUE(rpki.is_object());
  EXPECT_EQ(Value(s, "sluice_rpki_vrps{family=\"ipv4\"}"), rpki["vrps"]["ipv4"].get<double>());
  EXPECT_EQ(Value(s, "sluice_rpki_vrps{family=\"ipv6\"}"), rpki["vrps"]["ipv6"].get<double>());
  EXPECT_EQ(Value(s, "sluice_metrics_source_up{process=\"rpki\"}"), 1);

  // promtool's own check of the exposition format and naming conventions.
  std::string why;
  EXPECT_TRUE(PromtoolAccepts(metrics_port_, &why)) << why;
}

// The series of `metric` whose labels hold every one of `labels` ("process=\"bgp\"").
std::vector<std::string> SeriesWith(const Scrape& s, const std::string& metric,
                                    const std::vector<std::string>& labels) {
  std::vector<std::string> out;
  for (const auto& [series, value] : s) {
    if (!series.starts_with(metric + "{")) continue;
    bool all = true;
    for (const std::string& l : labels) all = all && series.find(l) != std::string::npos;
    if (all) out.push_back(series);
  }
  return out;
}

// The latency histogram's buckets in `le` order: (bound, cumulative count).
std::vector<std::pair<double, double>> LatencyBuckets(const Scrape& s) {
  std::vector<std::pair<double, double>> out;
  const std::string prefix = "sluice_route_latency_seconds_bucket{le=\"";
  for (const auto& [series, value] : s) {
    if (!series.starts_with(prefix)) continue;
    const std::string le = series.substr(prefix.size(), series.size() - prefix.size() - 2);
    double bound = 0;
    if (le == "+Inf") {
      bound = std::numeric_limits<double>::infinity();
    } else if (!absl::SimpleAtod(le, &bound)) {
      continue;
    }
    out.emplace_back(bound, value);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Once the table went BGP -> RIB -> FEA: the FEA timed batches from the UPDATEs' arrival into a
// cumulative histogram, and the Fanout and the stages facing the FEA report a queue depth.
void ExpectQueuesAndRouteLatency(int port) {
  Scrape s;
  ASSERT_TRUE(Eventually(
      [&] {
        s = Get(port);
        return Value(s, "sluice_route_latency_seconds_count") > 0;
      },
      60))
      << "no route latency observed; last scrape had "
      << Value(s, "sluice_route_latency_seconds_count");
  const std::vector<std::pair<double, double>> buckets = LatencyBuckets(s);
  ASSERT_GE(buckets.size(), 2u);
  for (size_t i = 1; i < buckets.size(); ++i) {
    EXPECT_GE(buckets[i].second, buckets[i - 1].second) << "le " << buckets[i].first;
  }
  EXPECT_TRUE(std::isinf(buckets.back().first));
  EXPECT_EQ(buckets.back().second, Value(s, "sluice_route_latency_seconds_count"));
  EXPECT_GE(Value(s, "sluice_route_latency_seconds_sum"), 0);

  // A queue depth for the Fanout and the stages that face the FEA: BGP's RibOut, the RIB's
  // FeaOut.
  const std::string all = absl::StrJoin(SeriesWith(s, "sluice_stage_queue_depth", {}), "\n");
  for (const auto& [process, kind] : std::vector<std::pair<std::string, std::string>>{
           {"bgp", "Fanout"}, {"bgp", "RibOut"}, {"rib", "FeaOut"}}) {
    EXPECT_FALSE(
        SeriesWith(s, "sluice_stage_queue_depth",
                   {absl::StrCat("process=\"", process, "\""), absl::StrCat("kind=\"", kind, "\"")})
            .empty())
        << process << " " << kind << " in:\n"
        << all;
  }
  for (const std::string& series : SeriesWith(s, "sluice_stage_queue_depth", {})) {
    EXPECT_GE(Value(s, series), 0) << series;
  }
}

TEST_F(MetricsSystemTest, StageQueuesAndRouteLatencyFromBgpToTheFea) {
  // A route re-sent because the RIB or the FEA came up after BGP had it carries no arrival, and
  // the processes may start in any order: once the FIB holds the first table (BGP, the RIB and
  // the FEA know each other), a second peer's table travels the whole way as it arrives.
  ASSERT_TRUE(Eventually(
      [&] {
        const Scrape s = Get(metrics_port_);
        return Value(s, "sluice_fib_routes{family=\"ipv4\"}") >= kRoutes;
      },
      60));
  std::unique_ptr<ChildProcess> second = StartReplay(
      "127.0.0.3", "4200000003", {"--synthetic", std::to_string(kRoutes), "--seed", "2"});
  ASSERT_TRUE(second);
  ExpectQueuesAndRouteLatency(metrics_port_);
  std::string why;
  EXPECT_TRUE(PromtoolAccepts(metrics_port_, &why)) << why;
}

TEST_F(MetricsSystemTest, AProcessRestartIsCounted) {
  const int pid = r_.ChildPid("rib");
  ASSERT_GT(pid, 0);
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  EXPECT_TRUE(Eventually(
      [&] {
        return Value(Get(metrics_port_), "sluice_process_restarts_total{process=\"rib\"}") == 1;
      },
      60));
}

TEST_F(MetricsSystemTest, ReloadMovesTheEndpointThenStopsIt) {
  const int moved = FreeTcpPort();
  r_.WriteConfig("router.conf", Config(bgp_port_, MetricsBlock(moved)));
  r_.process()->Signal(SIGHUP);
  EXPECT_TRUE(Eventually([&] { return !Get(moved).empty(); }, 30)) << r_.Logs("rtrmgr");
  // The old server winds down on a thread of its own.
  EXPECT_TRUE(Eventually([&] { return Curl(metrics_port_).exit_code != 0; }, 30))
      << "the old port still answers";
  // The same numbers on the new port (once gathered after the table came).
  EXPECT_TRUE(Eventually(
      [&] {
        return Value(Get(moved), "sluice_bgp_peer_prefixes_accepted{peer=\"127.0.0.2\"}") ==
               kRoutes;
      },
      30));

  r_.WriteConfig("router.conf", Config(bgp_port_, ""));
  r_.process()->Signal(SIGHUP);
  EXPECT_TRUE(Eventually([&] { return Curl(moved).exit_code != 0; }, 30)) << r_.Logs("rtrmgr");
  // The router runs on.
  json peers = Json(r_, {"show", "bgp", "peers"});
  ASSERT_TRUE(peers.is_object());
}

// The main job (./run.sh) with its bundled configuration, on free ports: once it has printed
// its summary, the curl line it prints answers with the converged numbers.
TEST(MetricsMainJob, CurlAfterTheSummary) {
  if (::access(kCurl, X_OK) != 0) GTEST_SKIP() << "curl is not installed";
  const char* source = std::getenv("SLUICE_SOURCE_DIR");
  ASSERT_NE(source, nullptr) << "SLUICE_SOURCE_DIR is set by ctest";
  std::ifstream in(std::string(source) + "/rtrmgr/examples/main-job.conf");
  std::stringstream text;
  text << in.rdbuf();
  const int bgp_port = FreeTcpPort();
  const int metrics_port = FreeTcpPort();
  const std::string conf =
      absl::StrReplaceAll(text.str(), {{"port 10179", absl::StrCat("port ", bgp_port)},
                                       {"port 9324", absl::StrCat("port ", metrics_port)}});
  ASSERT_NE(conf, text.str());
  char dir[] = "/tmp/sluice-metrics-mainjob.XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/main-job.conf";
  std::ofstream(path) << conf;
  chmod(dir, 0755);
  chmod(path.c_str(), 0644);

  constexpr int kTable = 5000;
  std::vector<std::string> argv = {BuildPath("rtrmgr/mainjob/sluice-mainjob"), "--config", path,
                                   "--synthetic", std::to_string(kTable)};
  // As RtrmgrProcess does: where user sluice cannot reach the build tree, the processes run as
  // root.
  if (ServiceUserCannotReachBuild()) argv.insert(argv.end(), {"--user", "root"});
  auto job = ChildProcess::Start(argv);
  ASSERT_TRUE(job);
  ASSERT_TRUE(job->WaitForOutput("Running.", 180000)) << job->Output();
  EXPECT_TRUE(
      job->WaitForOutput(absl::StrCat("curl -s http://127.0.0.1:", metrics_port, "/metrics"), 1000))
      << job->Output();
  EXPECT_TRUE(Eventually(
      [&] {
        Scrape s = Get(metrics_port);
        return Value(s, "sluice_bgp_peer_prefixes_accepted{peer=\"127.0.0.2\"}") == kTable &&
               Value(s, "sluice_bgp_peer_prefixes_advertised{peer=\"127.0.0.3\"}") == kTable &&
               Value(s, "sluice_rib_routes{protocol=\"ebgp\",family=\"ipv4\"}") == kTable;
      },
      60));
  job->Signal(SIGTERM);
  EXPECT_TRUE(job->Wait(60000).has_value());
  std::filesystem::remove_all(dir);
}

TEST_F(MetricsPchTest, FullTableScrapeEqualsTheCli) {
  EXPECT_EQ(AwaitAgreement(r_, metrics_port_), "");
  Scrape s = Get(metrics_port_);
  EXPECT_EQ(Value(s, "sluice_bgp_peer_prefixes_accepted{peer=\"127.0.0.2\"}"), kPchAccepted);
  EXPECT_EQ(Value(s, "sluice_rib_routes{protocol=\"ebgp\",family=\"ipv4\"}"), kPchAccepted);
  // The gauge follows the table: sluice-bgp holds every route in at least 32 octets more than
  // the finder, which holds none.
  EXPECT_GT(
      Value(s, "sluice_process_resident_memory_bytes{process=\"bgp\"}"),
      Value(s, "sluice_process_resident_memory_bytes{process=\"finder\"}") + 32.0 * kPchAccepted);
  ExpectQueuesAndRouteLatency(metrics_port_);
  // The table reached the FEA in FIB transactions of at most 4,000 changes (rib::FeaOutOptions),
  // one latency sample each: more than half of the 145 or more it takes were timed.
  EXPECT_GT(Value(Get(metrics_port_), "sluice_route_latency_seconds_count"), kPchAccepted / 8000);
  std::string why;
  EXPECT_TRUE(PromtoolAccepts(metrics_port_, &why)) << why;
}

}  // namespace
}  // namespace sluice::testing
