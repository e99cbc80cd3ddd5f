// ToMetricFamilies: a snapshot as Prometheus metric families.
#include "rtrmgr/metrics/snapshot.h"

#include <array>
#include <limits>

#include "ipc/types_convert.h"

namespace sluice::rtrmgr::metrics {

namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;
using Labels = std::vector<ClientMetric::Label>;

// The families, in the order they were first named.
class Families {
 public:
  MetricFamily& Get(const std::string& name, const std::string& help, MetricType type) {
    for (MetricFamily& f : out_) {
      if (f.name == name) return f;
    }
    out_.push_back(MetricFamily{name, help, type, {}});
    return out_.back();
  }
  void Gauge(const std::string& name, const std::string& help, Labels labels, double value) {
    ClientMetric m;
    m.label = std::move(labels);
    m.gauge.value = value;
    Get(name, help, MetricType::Gauge).metric.push_back(std::move(m));
  }
  void Histogram(const std::string& name, const std::string& help, Labels labels,
                 prometheus::ClientMetric::Histogram value) {
    ClientMetric m;
    m.label = std::move(labels);
    m.histogram = std::move(value);
    Get(name, help, MetricType::Histogram).metric.push_back(std::move(m));
  }
  void Counter(const std::string& name, const std::string& help, Labels labels, double value) {
    ClientMetric m;
    m.label = std::move(labels);
    m.counter.value = value;
    Get(name, help, MetricType::Counter).metric.push_back(std::move(m));
  }
  std::vector<MetricFamily> Take() { return std::move(out_); }

 private:
  std::vector<MetricFamily> out_;
};

std::string PeerLabel(const bgp::v1::PeerInfo& p) {
  absl::StatusOr<net::IPAddress> a = ipc::FromProto(p.address());
  return a.ok() ? a->ToString() : "invalid";
}

void AddPeer(const bgp::v1::PeerInfo& p, Families& f) {
  const std::string peer = PeerLabel(p);
  const Labels l = {{"peer", peer}};
  f.Gauge("sluice_bgp_peer_info", "A configured BGP peer (value 1), with its remote AS",
          {{"peer", peer}, {"remote_as", std::to_string(p.remote_as())}}, 1);
  f.Gauge("sluice_bgp_peer_state",
          "BGP FSM state (RFC 4271 8.2.2): 1 Idle, 2 Connect, 3 Active, 4 OpenSent, "
          "5 OpenConfirm, 6 Established",
          l, PeerStateNumber(p.state()));
  f.Gauge("sluice_bgp_peer_established_seconds",
          "Seconds the session has been Established (0 when it is not)", l, p.uptime_s());
  f.Gauge("sluice_bgp_peer_prefixes_received", "Prefixes in the peer's Adj-RIB-In", l,
          static_cast<double>(p.prefixes_received()));
  f.Gauge("sluice_bgp_peer_prefixes_accepted", "Prefixes of the peer past its import policy", l,
          static_cast<double>(p.prefixes_accepted()));
  f.Gauge("sluice_bgp_peer_prefixes_advertised", "Prefixes in the peer's Adj-RIB-Out", l,
          static_cast<double>(p.prefixes_advertised()));
  f.Counter("sluice_bgp_peer_messages_received_total", "BGP messages received from the peer", l,
            static_cast<double>(p.messages_in()));
  f.Counter("sluice_bgp_peer_messages_sent_total", "BGP messages sent to the peer", l,
            static_cast<double>(p.messages_out()));
  f.Counter("sluice_bgp_peer_updates_received_total", "UPDATE messages received from the peer", l,
            static_cast<double>(p.updates_in()));
  f.Counter("sluice_bgp_peer_updates_sent_total", "UPDATE messages sent to the peer", l,
            static_cast<double>(p.updates_out()));
  f.Counter("sluice_bgp_peer_notifications_received_total",
            "NOTIFICATION messages received from the peer", l,
            static_cast<double>(p.notifications_in()));
  f.Counter("sluice_bgp_peer_notifications_sent_total", "NOTIFICATION messages sent to the peer", l,
            static_cast<double>(p.notifications_out()));
  f.Counter("sluice_bgp_peer_established_transitions_total",
            "Times the session reached Established (session flaps)", l,
            static_cast<double>(p.established_transitions()));
  f.Counter("sluice_bgp_peer_updates_treat_as_withdraw_total",
            "UPDATEs handled by treat-as-withdraw (RFC 7606)", l,
            static_cast<double>(p.updates_treat_as_withdraw()));
  f.Counter("sluice_bgp_peer_updates_attribute_discard_total",
            "UPDATEs handled by attribute discard (RFC 7606)", l,
            static_cast<double>(p.updates_attribute_discard()));
  f.Counter("sluice_bgp_peer_afi_safi_disables_total",
            "Address families disabled on a session (RFC 7606, RFC 4760 7)", l,
            static_cast<double>(p.afi_safi_disables()));
  for (const auto& [cause, count] : p.session_resets()) {
    f.Counter("sluice_bgp_peer_session_resets_total",
              "Times an Established session ended, by cause", {{"peer", peer}, {"cause", cause}},
              static_cast<double>(count));
  }
}

void AddRib(const rib::v1::ListProtocolsReply& rib, Families& f) {
  for (const rib::v1::ProtocolInfo& p : rib.protocols()) {
    const char* help = "Routes in the RIB, by origin protocol and address family";
    f.Gauge("sluice_rib_routes", help, {{"protocol", p.protocol()}, {"family", "ipv4"}},
            static_cast<double>(p.routes_ipv4()));
    f.Gauge("sluice_rib_routes", help, {{"protocol", p.protocol()}, {"family", "ipv6"}},
            static_cast<double>(p.routes_ipv6()));
  }
}

void AddStages(const std::string& process, const profile::v1::GetStageStatsReply& stats,
               Families& f) {
  for (const profile::v1::StageStat& s : stats.stages()) {
    f.Gauge("sluice_stage_queue_depth",
            "Route changes a stage holds, waiting to go on or to be acknowledged",
            {{"process", process}, {"stage", s.stage()}, {"kind", s.kind()}},
            static_cast<double>(s.queued()));
  }
}

// A histogram whose buckets are not ascending and cumulative is dropped: Prometheus would refuse
// the whole scrape.
void AddLatency(const fea_fib::v1::LatencyHistogram& h, Families& f) {
  if (h.bounds_s_size() == 0 || h.bounds_s_size() != h.cumulative_size()) return;
  ClientMetric::Histogram out;
  for (int i = 0; i < h.bounds_s_size(); ++i) {
    if (i > 0 && (h.bounds_s(i) <= h.bounds_s(i - 1) || h.cumulative(i) < h.cumulative(i - 1))) {
      return;
    }
    out.bucket.push_back(ClientMetric::Bucket{h.cumulative(i), h.bounds_s(i)});
  }
  if (h.count() < h.cumulative(h.cumulative_size() - 1)) return;
  out.bucket.push_back(ClientMetric::Bucket{h.count(), std::numeric_limits<double>::infinity()});
  out.sample_count = h.count();
  out.sample_sum = h.sum_s();
  f.Histogram("sluice_route_latency_seconds",
              "Seconds from a route's UPDATE reaching sluice-bgp to its FIB change being "
              "committed by the FEA (per batch, its oldest route)",
              {}, std::move(out));
}

void AddProcess(const ProcessSample& p, Families& f) {
  const Labels l = {{"process", p.name}};
  f.Gauge("sluice_process_up", "1 when the process runs", l, p.pid > 0 ? 1 : 0);
  f.Counter("sluice_process_restarts_total",
            "Times the router manager started the process again after it died", l,
            static_cast<double>(p.restarts));
  if (!p.stats) return;
  f.Gauge("sluice_process_resident_memory_bytes", "Resident memory of the process in bytes", l,
          static_cast<double>(p.stats->rss_bytes));
  f.Counter("sluice_process_cpu_seconds_total",
            "User and system CPU time of the process (its current instance) in seconds", l,
            p.stats->cpu_seconds);
}

}  // namespace

int PeerStateNumber(const std::string& state) {
  static constexpr std::array<const char*, 6> kStates = {"Idle",     "Connect",     "Active",
                                                         "OpenSent", "OpenConfirm", "Established"};
  for (size_t i = 0; i < kStates.size(); ++i) {
    if (state == kStates[i]) return static_cast<int>(i) + 1;
  }
  return 0;
}

std::vector<MetricFamily> ToMetricFamilies(const Snapshot& s,
                                           std::chrono::system_clock::time_point now) {
  Families f;
  f.Gauge("sluice_metrics_snapshot_age_seconds",
          "Seconds since the values served were gathered from the processes", {},
          std::chrono::duration<double>(now - s.taken).count());
  for (const auto& [source, up] : s.sources) {
    f.Gauge("sluice_metrics_source_up",
            "1 when the process answered the last gathering round, 0 when it did not",
            {{"process", source}}, up ? 1 : 0);
  }
  for (const ProcessSample& p : s.processes) AddProcess(p, f);
  if (s.bgp) {
    for (const bgp::v1::PeerInfo& p : s.bgp->peers()) AddPeer(p, f);
  }
  if (s.rib) AddRib(*s.rib, f);
  if (s.fea) {
    const char* help = "Routes in the FIB, by address family";
    f.Gauge("sluice_fib_routes", help, {{"family", "ipv4"}},
            static_cast<double>(s.fea->routes_ipv4()));
    f.Gauge("sluice_fib_routes", help, {{"family", "ipv6"}},
            static_cast<double>(s.fea->routes_ipv6()));
    f.Counter("sluice_fib_install_errors_total",
              "Route changes the forwarding plane refused since the FEA started", {},
              static_cast<double>(s.fea->install_errors()));
    AddLatency(s.fea->route_latency(), f);
  }
  if (s.bgp_stages) AddStages("bgp", *s.bgp_stages, f);
  if (s.rib_stages) AddStages("rib", *s.rib_stages, f);
  if (s.rpki) {
    const char* help = "Validated ROA payloads from the RTR caches, by address family";
    f.Gauge("sluice_rpki_vrps", help, {{"family", "ipv4"}},
            static_cast<double>(s.rpki->vrps_ipv4()));
    f.Gauge("sluice_rpki_vrps", help, {{"family", "ipv6"}},
            static_cast<double>(s.rpki->vrps_ipv6()));
  }
  return f.Take();
}

}  // namespace sluice::rtrmgr::metrics
