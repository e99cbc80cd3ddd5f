// sluice-rtrmgr's metrics: the metrics block (parse, print, delta), /proc reading, and the
// snapshot's conversion to Prometheus families as a scrape sees them.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sstream>

#include "ipc/types_convert.h"
#include "prometheus/text_serializer.h"
#include "rtrmgr/config/config_delta.h"
#include "rtrmgr/config/config_loader.h"
#include "rtrmgr/config/config_printer.h"
#include "rtrmgr/metrics/endpoint.h"
#include "rtrmgr/metrics/proc_stats.h"
#include "rtrmgr/metrics/snapshot.h"

namespace sluice::rtrmgr::metrics {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// ---- the metrics block

TEST(MetricsConfig, ListenAddressAndPort) {
  auto c = ParseConfig("metrics { listen 0.0.0.0 port 9400; }", "m.conf");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->metrics.enabled);
  EXPECT_EQ(c->metrics.ToString(), "0.0.0.0 port 9400");
  // Printed, it reads back equal.
  const std::string text = PrintConfig(*c);
  EXPECT_THAT(text, HasSubstr("listen 0.0.0.0 port 9400;"));
  auto again = ParseConfig(text, "printed.conf");
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << text;
  EXPECT_EQ(*again, *c);
}

TEST(MetricsConfig, DefaultsAreLoopback9324) {
  auto c = ParseConfig("metrics { }", "m.conf");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->metrics.enabled);
  EXPECT_EQ(c->metrics.ToString(), "127.0.0.1 port 9324");
  auto none = ParseConfig("", "empty.conf");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->metrics.enabled);
  EXPECT_THAT(PrintConfig(*none), Not(HasSubstr("metrics")));
}

TEST(MetricsConfig, BadValuesAreRefusedWithTheirPlace) {
  for (const char* text :
       {"metrics { listen 127.0.0.1 port 0; }", "metrics { listen 127.0.0.1 port 70000; }",
        "metrics { listen nowhere; }", "metrics { listen 127.0.0.1 9324; }",
        "metrics { port 9324; }", "metrics;"}) {
    auto c = ParseConfig(text, "m.conf");
    EXPECT_FALSE(c.ok()) << text;
    if (!c.ok()) {
      EXPECT_THAT(c.status().message(), HasSubstr("m.conf:1:")) << text;
    }
  }
}

TEST(MetricsConfig, DeltaSaysWhatTheEndpointDoes) {
  auto none = ParseConfig("", "a.conf");
  auto a = ParseConfig("metrics { listen 127.0.0.1 port 9324; }", "a.conf");
  auto b = ParseConfig("metrics { listen 127.0.0.1 port 9325; }", "b.conf");
  ASSERT_TRUE(none.ok() && a.ok() && b.ok());
  EXPECT_TRUE(ComputeDelta(*a, *a).empty());
  ConfigDelta started = ComputeDelta(*none, *a);
  EXPECT_FALSE(started.empty());
  EXPECT_THAT(started.ToString(), HasSubstr("metrics: listen (none) -> 127.0.0.1 port 9324"));
  EXPECT_THAT(ComputeDelta(*a, *b).ToString(),
              HasSubstr("metrics: listen 127.0.0.1 port 9324 -> 127.0.0.1 port 9325"));
  EXPECT_THAT(ComputeDelta(*b, *none).ToString(),
              HasSubstr("metrics: listen 127.0.0.1 port 9325 -> (none)"));
}

// ---- /proc

TEST(ProcStats, CountsFieldsAfterTheCommandName) {
  // A command name with spaces and a parenthesis; utime 250 and stime 150 ticks; 300 pages.
  const std::string stat =
      "1234 (odd) name) S 1 1234 1234 0 -1 4194560 500 0 0 0 250 150 0 0 20 0 3 0 100 "
      "123456789 300 18446744073709551615\n";
  auto s = ParseProcStats(stat, "1000 300 50 10 0 200 0\n", 100, 4096);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->rss_bytes, 300u * 4096);
  EXPECT_DOUBLE_EQ(s->cpu_seconds, 4.0);
}

TEST(ProcStats, MalformedTextIsAnErrorNotACrash) {
  EXPECT_FALSE(ParseProcStats("", "", 100, 4096).ok());
  EXPECT_FALSE(ParseProcStats("1 (x) S 1 2", "1 2", 100, 4096).ok());
  EXPECT_FALSE(ParseProcStats("1 (x) S 1 1 1 0 -1 0 0 0 0 0 a b", "1 2", 100, 4096).ok());
  const std::string good = "1 (x) S 1 1 1 0 -1 0 0 0 0 0 5 5 0";
  EXPECT_FALSE(ParseProcStats(good, "1", 100, 4096).ok());
  EXPECT_FALSE(ParseProcStats(good, "1 -3", 100, 4096).ok());
  EXPECT_TRUE(ParseProcStats(good, "1 3", 100, 4096).ok());
}

TEST(ProcStats, ThisProcess) {
  auto s = ReadProcessStats(getpid());
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_GT(s->rss_bytes, 1u << 20);
  EXPECT_FALSE(ReadProcessStats(0x7ffffff0).ok());  // no such process
}

// ---- the conversion

std::string Scrape(const Snapshot& s, std::chrono::system_clock::time_point now) {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, ToMetricFamilies(s, now));
  return out.str();
}

TEST(PeerState, RfcStatesInOrder) {
  EXPECT_EQ(PeerStateNumber("Idle"), 1);
  EXPECT_EQ(PeerStateNumber("OpenConfirm"), 5);
  EXPECT_EQ(PeerStateNumber("Established"), 6);
  EXPECT_EQ(PeerStateNumber("disabled"), 0);
}

TEST(ToMetricFamilies, WhatAScrapeShows) {
  Snapshot s;
  s.taken = std::chrono::system_clock::time_point(std::chrono::seconds(1000));
  bgp::v1::ListPeersReply peers;
  bgp::v1::PeerInfo* p = peers.add_peers();
  ipc::ToProto(net::IPAddress::Parse("192.0.2.2").value(), p->mutable_address());
  p->set_remote_as(65002);
  p->set_state("Established");
  p->set_prefixes_received(1000);
  p->set_prefixes_accepted(990);
  p->set_prefixes_advertised(7);
  p->set_updates_in(120);
  p->set_notifications_out(1);
  p->set_established_transitions(3);
  p->set_updates_treat_as_withdraw(2);
  (*p->mutable_session_resets())["hold-timer-expired"] = 2;
  s.bgp = peers;
  rib::v1::ListProtocolsReply rib;
  rib::v1::ProtocolInfo* ebgp = rib.add_protocols();
  ebgp->set_protocol("ebgp");
  ebgp->set_routes_ipv4(990);
  ebgp->set_routes_ipv6(5);
  s.rib = rib;
  fea_fib::v1::GetStatsReply fea;
  fea.set_routes_ipv4(991);
  fea.set_install_errors(4);
  s.fea = fea;
  s.sources = {{"bgp", true}, {"rib", true}, {"fea", false}};
  s.processes.push_back(ProcessSample{"bgp", 42, 2, ProcessStats{50 << 20, 1.5}});
  s.processes.push_back(ProcessSample{"static_routes", 0, 0, std::nullopt});

  const std::string text = Scrape(s, s.taken + std::chrono::milliseconds(2500));
  for (const char* line : {
           "sluice_metrics_snapshot_age_seconds 2.5",
           "sluice_metrics_source_up{process=\"fea\"} 0",
           "sluice_bgp_peer_state{peer=\"192.0.2.2\"} 6",
           "sluice_bgp_peer_info{peer=\"192.0.2.2\",remote_as=\"65002\"} 1",
           "sluice_bgp_peer_prefixes_received{peer=\"192.0.2.2\"} 1000",
           "sluice_bgp_peer_prefixes_accepted{peer=\"192.0.2.2\"} 990",
           "sluice_bgp_peer_prefixes_advertised{peer=\"192.0.2.2\"} 7",
           "sluice_bgp_peer_updates_received_total{peer=\"192.0.2.2\"} 120",
           "sluice_bgp_peer_notifications_sent_total{peer=\"192.0.2.2\"} 1",
           "sluice_bgp_peer_established_transitions_total{peer=\"192.0.2.2\"} 3",
           "sluice_bgp_peer_updates_treat_as_withdraw_total{peer=\"192.0.2.2\"} 2",
           "sluice_bgp_peer_session_resets_total{peer=\"192.0.2.2\",cause=\"hold-timer-expired\"} "
           "2",
           "sluice_rib_routes{protocol=\"ebgp\",family=\"ipv4\"} 990",
           "sluice_rib_routes{protocol=\"ebgp\",family=\"ipv6\"} 5",
           "sluice_fib_routes{family=\"ipv4\"} 991",
           "sluice_fib_install_errors_total 4",
           "sluice_process_resident_memory_bytes{process=\"bgp\"} 52428800",
           "sluice_process_cpu_seconds_total{process=\"bgp\"} 1.5",
           "sluice_process_restarts_total{process=\"bgp\"} 2",
           "sluice_process_up{process=\"static_routes\"} 0",
           "# TYPE sluice_bgp_peer_updates_received_total counter",
           "# TYPE sluice_bgp_peer_state gauge",
       }) {
    EXPECT_THAT(text, HasSubstr(std::string(line) + "\n")) << text;
  }
  // Not running: no memory nor CPU. No rpki block: no VRP metric.
  EXPECT_THAT(text, Not(HasSubstr("resident_memory_bytes{process=\"static_routes\"}")));
  EXPECT_THAT(text, Not(HasSubstr("sluice_rpki_vrps")));
  // Each family once (HELP and TYPE once per name).
  EXPECT_EQ(text.find("# TYPE sluice_rib_routes"), text.rfind("# TYPE sluice_rib_routes"));
}

TEST(ToMetricFamilies, RpkiWhenItRuns) {
  Snapshot s;
  s.taken = std::chrono::system_clock::now();
  rpki::v1::GetStatusReply rpki;
  rpki.set_vrps_ipv4(300);
  rpki.set_vrps_ipv6(40);
  s.rpki = rpki;
  const std::string text = Scrape(s, s.taken);
  EXPECT_THAT(text, HasSubstr("sluice_rpki_vrps{family=\"ipv4\"} 300\n"));
  EXPECT_THAT(text, HasSubstr("sluice_rpki_vrps{family=\"ipv6\"} 40\n"));
}

TEST(ToMetricFamilies, StageQueueDepthsByProcess) {
  Snapshot s;
  s.taken = std::chrono::system_clock::now();
  profile::v1::GetStageStatsReply bgp;
  profile::v1::StageStat* fanout = bgp.add_stages();
  fanout->set_stage("v4 Fanout");
  fanout->set_kind("Fanout");
  fanout->set_queued(12);
  s.bgp_stages = bgp;
  profile::v1::GetStageStatsReply rib;
  profile::v1::StageStat* fea_out = rib.add_stages();
  fea_out->set_stage("ipv4 FeaOut");
  fea_out->set_kind("FeaOut");
  s.rib_stages = rib;
  const std::string text = Scrape(s, s.taken);
  EXPECT_THAT(text, HasSubstr("# TYPE sluice_stage_queue_depth gauge\n"));
  EXPECT_THAT(text, HasSubstr("sluice_stage_queue_depth{process=\"bgp\",stage=\"v4 Fanout\","
                              "kind=\"Fanout\"} 12\n"));
  EXPECT_THAT(text, HasSubstr("sluice_stage_queue_depth{process=\"rib\",stage=\"ipv4 FeaOut\","
                              "kind=\"FeaOut\"} 0\n"));
}

fea_fib::v1::GetStatsReply FeaWithLatency(std::vector<uint64_t> cumulative, uint64_t count) {
  fea_fib::v1::GetStatsReply fea;
  fea_fib::v1::LatencyHistogram* h = fea.mutable_route_latency();
  double bound = 0.001;
  for (uint64_t c : cumulative) {
    h->add_bounds_s(bound);
    h->add_cumulative(c);
    bound *= 10;
  }
  h->set_count(count);
  h->set_sum_s(1.5);
  return fea;
}

TEST(ToMetricFamilies, RouteLatencyIsAPrometheusHistogram) {
  Snapshot s;
  s.taken = std::chrono::system_clock::now();
  s.fea = FeaWithLatency({1, 3, 3}, 4);  // one observation above the last bound
  const std::string text = Scrape(s, s.taken);
  EXPECT_THAT(text, HasSubstr("# TYPE sluice_route_latency_seconds histogram\n"));
  EXPECT_THAT(text, HasSubstr("sluice_route_latency_seconds_count 4\n"));
  EXPECT_THAT(text, HasSubstr("sluice_route_latency_seconds_sum 1.5\n"));
  EXPECT_THAT(text, HasSubstr("sluice_route_latency_seconds_bucket{le=\"+Inf\"} 4\n"));
  EXPECT_THAT(text, HasSubstr("} 3\n"));
  // +Inf once (prometheus-cpp adds none of its own when the last bound is +Inf).
  EXPECT_EQ(text.find("le=\"+Inf\""), text.rfind("le=\"+Inf\""));
}

TEST(ToMetricFamilies, RouteLatencyThatIsNotCumulativeIsLeftOut) {
  Snapshot s;
  s.taken = std::chrono::system_clock::now();
  s.fea = FeaWithLatency({3, 1}, 3);  // decreasing: Prometheus would refuse the scrape
  EXPECT_THAT(Scrape(s, s.taken), Not(HasSubstr("sluice_route_latency_seconds")));
  s.fea = FeaWithLatency({1, 3}, 2);  // the count below the last bucket
  EXPECT_THAT(Scrape(s, s.taken), Not(HasSubstr("sluice_route_latency_seconds")));
  s.fea = FeaWithLatency({}, 0);  // an FEA that keeps no histogram
  const std::string text = Scrape(s, s.taken);
  EXPECT_THAT(text, Not(HasSubstr("sluice_route_latency_seconds")));
  EXPECT_THAT(text, HasSubstr("sluice_fib_routes{family=\"ipv4\"} 0\n"));
}

// ---- the endpoint

// GET /metrics from 127.0.0.1:port over HTTP/1.0: the whole answer, "" when nothing answered.
std::string HttpGet(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string out;
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0) {
    const std::string request = "GET /metrics HTTP/1.0\r\n\r\n";
    if (write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buf[4096];
      ssize_t n;
      while ((n = read(fd, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
    }
  }
  close(fd);
  return out;
}

TEST(Endpoint, ServesThePublishedSnapshot) {
  Endpoint e;
  ASSERT_TRUE(e.Listen(net::IPAddress::Parse("127.0.0.1").value(), 0).ok());
  ASSERT_GT(e.port(), 0);
  EXPECT_THAT(HttpGet(e.port()), HasSubstr("200 OK"));
  Snapshot s;
  s.taken = std::chrono::system_clock::now();
  s.processes.push_back(ProcessSample{"bgp", 42, 1, std::nullopt});
  e.Publish(s);
  const std::string page = HttpGet(e.port());
  EXPECT_THAT(page, HasSubstr("sluice_process_restarts_total{process=\"bgp\"} 1\n"));
  EXPECT_THAT(page, HasSubstr("sluice_metrics_snapshot_age_seconds "));
}

TEST(Endpoint, ABusyPortIsAnErrorAndAFreeOneWorksAfter) {
  Endpoint first;
  ASSERT_TRUE(first.Listen(net::IPAddress::Parse("127.0.0.1").value(), 0).ok());
  Endpoint second;
  absl::Status busy = second.Listen(net::IPAddress::Parse("127.0.0.1").value(), first.port());
  EXPECT_EQ(busy.code(), absl::StatusCode::kUnavailable) << busy;
  EXPECT_FALSE(second.serving());
  // The same port again once the first has let go of it (Listen waits for that).
  const uint16_t port = first.port();
  first.Stop();
  EXPECT_TRUE(first.Listen(net::IPAddress::Parse("127.0.0.1").value(), port).ok());
  EXPECT_EQ(first.port(), port);
}

}  // namespace
}  // namespace sluice::rtrmgr::metrics
