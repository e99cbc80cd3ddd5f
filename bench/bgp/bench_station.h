#pragma once
// BenchStation: BMP Route Monitoring (post-policy Adj-RIB-In and Loc-RIB) of a benchmark's
// pipelines, sent the way sluice-bgp sends it — a bmp::RibMonitor encoding each batch on the
// thread that made it, a bmp::Station writing on its own I/O thread — to a station on loopback
// that reads and discards everything in a child process, so that the station's CPU is not the
// benchmark's. What the benchmark measures is then the exporter's cost, the socket's included.
//
// Start() forks: call it before the benchmark starts any thread.

#include <sys/types.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <memory>
#include <thread>

#include "absl/status/statusor.h"
#include "bgp/bmp/rib_monitor.h"
#include "bgp/bmp/station.h"
#include "bgp/stages/route_monitor.h"
#include "bgp/wire/session_params.h"
#include "net/ip_address.h"

namespace sluice::bgp::bench {

class BenchStation {
 public:
  // Forks the discarding station, starts the I/O thread and connects; returns once the
  // connection is live. `route_monitoring`: bmp::RouteMonitoringBit set (post-policy, Loc-RIB).
  // Errors: Internal when the station cannot be started or does not accept within 5 s.
  static absl::StatusOr<std::unique_ptr<BenchStation>> Start(uint8_t route_monitoring);
  // Stops the I/O thread and the child.
  ~BenchStation();
  BenchStation(const BenchStation&) = delete;
  BenchStation& operator=(const BenchStation&) = delete;

  // The slot to give RoutingServices::route_monitor.
  const RouteMonitorSlot* slot() const { return &slot_; }
  // The upstream at `address` (AS `as`) is Established with `params`: its post-policy changes
  // are monitored from now on (as BmpExporter::OnPeerUp does).
  void PeerUp(const net::IPAddress& address, uint32_t as, const SessionParams& params);
  // The Loc-RIB's per-peer header names this router.
  void SetIdentity(uint32_t local_as, uint32_t bgp_id) { monitor_->SetIdentity(local_as, bgp_id); }
  // Octets written to the socket so far.
  uint64_t bytes_sent() const { return station_->stats().bytes_sent; }
  // Waits until everything queued has been written (at most 30 s).
  void Drain() const;

 private:
  BenchStation() = default;

  pid_t child_ = -1;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_{
      io_.get_executor()};
  std::thread thread_;
  std::shared_ptr<bmp::Station> station_;
  std::shared_ptr<bmp::StationSet> stations_ = std::make_shared<bmp::StationSet>();
  std::shared_ptr<bmp::RibMonitor> monitor_ = std::make_shared<bmp::RibMonitor>(stations_);
  RouteMonitorSlot slot_;
};

}  // namespace sluice::bgp::bench
