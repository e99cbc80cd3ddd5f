#pragma once
// Snapshot: what one gathering round learnt from the processes (their own XRLs) and from /proc,
// and its conversion to Prometheus metric families.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ipc/proto/bgp.pb.h"
#include "ipc/proto/fea_fib.pb.h"
#include "ipc/proto/profile.pb.h"
#include "ipc/proto/rib.pb.h"
#include "ipc/proto/rpki.pb.h"
#include "prometheus/metric_family.h"
#include "rtrmgr/metrics/proc_stats.h"

namespace sluice::rtrmgr::metrics {

// One process the router manager supervises (or itself, "rtrmgr").
struct ProcessSample {
  std::string name;                   // "finder", "fea", "rib", "bgp", "rpki", "static_routes"
  pid_t pid = 0;                      // 0: not running now
  uint64_t restarts = 0;              // times the router manager started it again after a death
  std::optional<ProcessStats> stats;  // unset: not running, or /proc unreadable
};

struct Snapshot {
  std::chrono::system_clock::time_point taken;  // when the round started
  // The answers; unset when the process was not asked (not configured) or did not answer
  // (`sources` says which).
  std::optional<bgp::v1::ListPeersReply> bgp;      // bgp/1.0/list_peers
  std::optional<rib::v1::ListProtocolsReply> rib;  // rib/1.0/list_protocols
  std::optional<fea_fib::v1::GetStatsReply> fea;   // fea_fib/1.0/get_stats
  std::optional<rpki::v1::GetStatusReply> rpki;    // rpki/1.0/get_status
  // profile/1.0/get_stage_stats of sluice-bgp and sluice-rib: their stages' queue depths.
  std::optional<profile::v1::GetStageStatsReply> bgp_stages;
  std::optional<profile::v1::GetStageStatsReply> rib_stages;
  std::map<std::string, bool> sources;  // process asked -> it answered
  std::vector<ProcessSample> processes;
};

// The BGP FSM state (RFC 4271 §8.2.2) as the number sluice_bgp_peer_state carries: 1 Idle,
// 2 Connect, 3 Active, 4 OpenSent, 5 OpenConfirm, 6 Established; 0 for a name not known.
int PeerStateNumber(const std::string& state);

// Every metric of `snapshot`, named and labelled by Prometheus conventions (README.md lists
// them): gauges for what is now, counters (`_total`) for what only grows while the process
// lives, base units (seconds, bytes). `now` gives sluice_metrics_snapshot_age_seconds.
std::vector<prometheus::MetricFamily> ToMetricFamilies(const Snapshot& snapshot,
                                                       std::chrono::system_clock::time_point now);

}  // namespace sluice::rtrmgr::metrics
