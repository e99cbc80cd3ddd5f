#pragma once
// BmpExporter: sluice-bgp as a BMP client (RFC 7854) of any number of monitoring stations.
//
// It is a MessageTap (bgp/session/message_tap.h) registered with PeerManager::AddTap, so it runs
// on the event loop and sees every session:
//   - Peer Up (§4.10) with both OPENs when a session reaches Established, Peer Down (§4.9) with
//     the reason and NOTIFICATION when it leaves it;
//   - pre-policy Adj-RIB-In Route Monitoring (§4.6): every UPDATE received on an Established
//     session, exactly as it came (peer type 0 "global", L flag clear; A flag when the session
//     did not negotiate 4-octet AS numbers);
//   - post-policy Adj-RIB-In Route Monitoring (L flag): rib_monitor() is the RouteMonitor the
//     pipelines call with each batch of changes after a peer's import policy (rib_monitor.h);
//   - a Statistics Report (§4.8, type 7: routes in the Adj-RIB-In) per Established peer every
//     `stats_interval_s` seconds;
//   - Initiation (§4.3, sysName and sysDescr) first on every connection, Termination (§4.5) when
//     a station is removed or the exporter stops;
//   - the Loc-RIB (RFC 9069, peer type 3), from the same monitor, after a Peer Up of the
//     Loc-RIB sent on every connection.
// Each station gets the Route Monitoring its configuration selects (StationConfig's
// route_monitoring: pre-policy, post-policy, Loc-RIB); every other message goes to all.
//
// Each message is encoded once on the event loop and copied into every station's bounded buffer
// (station.h) — pre-policy messages gathered over a turn of the loop, so one copy and one lock
// for the UPDATEs of one read, stamped with the time of that read; the stations write on the
// exporter's own I/O thread, so a slow or dead station never slows routing — past its buffer it is
// dropped and later re-synchronised: Initiation, Peer Up of every Established peer, then each
// peer's Adj-RIB-In (pre-policy, post-policy, as selected) re-encoded as UPDATEs with our own
// encoder (bgp/wire), then the Loc-RIB, read through RouteSource a page at a time (one page per
// event loop turn, and only while less than half the station's buffer waits to be written). Live
// messages arriving during the snapshot are held (counted against the buffer, not in that pacing)
// and sent after it.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bgp/bmp/bmp_message.h"
#include "bgp/bmp/rib_monitor.h"
#include "bgp/bmp/station.h"
#include "bgp/session/message_tap.h"
#include "bgp/stages/family_routing.h"
#include "bgp/stages/route.h"

namespace sluice::bgp::bmp {

// Where a re-synchronisation reads routes (BgpProcess in sluice-bgp; fakes in tests). Called on
// the event loop.
class RouteSource {
 public:
  virtual ~RouteSource() = default;
  // A page of routes (BgpRouting::ReadRoutes semantics; the exporter asks for the Adj-RIB-In of
  // one peer and family, paging with `after`), answered through `done` on the event loop, at once
  // or later (the shards read on their threads meanwhile).
  virtual void ReadRoutesAsync(const RouteQuery& query,
                               std::function<void(absl::StatusOr<std::vector<BgpRoute>>)> done) = 0;
  // Routes in the peer's Adj-RIB-In, every family (Statistics type 7).
  virtual uint64_t AdjRibInRoutes(const net::IPAddress& peer) = 0;
  // Our AS and BGP Identifier (host order), for the Loc-RIB's per-peer header.
  virtual std::pair<uint32_t, uint32_t> LocalIdentity() = 0;
};

struct ExporterOptions {
  std::string sys_name = "sluice";
  std::string sys_descr = "Sluice BGP";
  double stats_interval_s = 60;  // 0: no Statistics Reports
  size_t snapshot_page = 2000;   // routes read per event loop turn during a re-synchronisation
};

class BmpExporter : public MessageTap {
 public:
  // `loop`: the event loop the taps run on. `routes` must outlive the exporter.
  BmpExporter(boost::asio::io_context& loop, RouteSource* routes, ExporterOptions options);
  // Sends Termination to every station (waiting at most 1 s for it to go) and stops the thread.
  ~BmpExporter() override;
  BmpExporter(const BmpExporter&) = delete;
  BmpExporter& operator=(const BmpExporter&) = delete;

  // Starts exporting to a station (it connects in the background). Errors: AlreadyExists for
  // the same address and port, InvalidArgument for port 0 or a buffer under 64 KiB.
  absl::Status AddStation(const StationConfig& config);
  // Sends Termination and closes. Errors: NotFound.
  absl::Status RemoveStation(const net::IPAddress& address, uint16_t port);
  std::vector<std::pair<StationConfig, StationStats>> Stations() const;
  // The monitor to put in the pipelines' RouteMonitorSlot (post-policy and Loc-RIB).
  std::shared_ptr<RibMonitor> rib_monitor() { return rib_monitor_; }

  // MessageTap (event loop).
  void OnMessageReceived(const TapPeer& peer, std::span<const uint8_t> message) override;
  void OnPeerUp(const TapPeer& peer, const EstablishedInfo& info,
                std::span<const uint8_t> sent_open,
                std::span<const uint8_t> received_open) override;
  void OnPeerDown(const TapPeer& peer, TapDownReason reason,
                  std::span<const uint8_t> notification) override;

 private:
  struct PeerRecord {
    TapPeer peer;
    EstablishedInfo info;
    std::vector<uint8_t> sent_open, received_open;
  };
  struct Sync;

  PeerHeader HeaderOf(const TapPeer& peer) const;
  // The same, stamped with the time the current pre-policy batch began.
  PeerHeader PrePolicyHeaderOf(const TapPeer& peer) const;
  // Copies the pre-policy messages gathered so far into the stations' buffers.
  void FlushPrePolicy();
  void AppendPeerUpOf(const PeerRecord& r, std::vector<uint8_t>* out) const;
  // Copies `message` into every station's buffer.
  void Broadcast(std::span<const uint8_t> message);
  void OnStationConnected(std::shared_ptr<Station> station, uint64_t generation);
  void SyncStep(std::shared_ptr<Sync> sync);
  // Asks for the next page of the sync's tables (EndSync when every table was sent); OnSyncPage
  // sends it and takes the next step.
  void SyncPage(std::shared_ptr<Sync> sync);
  void OnSyncPage(std::shared_ptr<Sync> sync, size_t max,
                  absl::StatusOr<std::vector<BgpRoute>> routes);
  // The routes of the sync's current table, encoded for the station; false when the table's peer
  // went down since.
  bool EncodeSyncPage(const Sync& sync, const RouteChanges& changes,
                      std::vector<uint8_t>* out) const;
  void PostSyncStep(std::shared_ptr<Sync> sync);
  // The parameters our encoder re-encodes the peer's routes with: its session's, with its
  // ADD-PATH Path Identifiers as received.
  static SessionParams MonitoredParams(const PeerRecord& r);
  void ScheduleStats();
  void SendStats();

  boost::asio::io_context& loop_;
  RouteSource* routes_;
  ExporterOptions options_;
  boost::asio::io_context io_;  // the stations' thread
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::thread thread_;
  boost::asio::steady_timer stats_timer_;
  std::map<std::pair<net::IPAddress, uint16_t>, std::shared_ptr<Station>> stations_;
  std::shared_ptr<StationSet> set_ = std::make_shared<StationSet>();  // the same, any thread
  std::shared_ptr<RibMonitor> rib_monitor_ = std::make_shared<RibMonitor>(set_);
  std::map<net::IPAddress, PeerRecord> peers_;  // Established sessions, by remote address
  // Event loop: pre-policy messages not yet copied to the stations. They go at the end of the
  // loop's turn (a posted handler), past Station::kWriteNowBytes, or before any other message.
  std::vector<uint8_t> pre_policy_;
  PeerHeader pre_policy_stamp_;  // when the first of them was received
  bool pre_policy_flush_posted_ = false;
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
};

}  // namespace sluice::bgp::bmp
