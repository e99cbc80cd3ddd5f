#pragma once
// Route Monitoring of what the pipelines compute (RFC 7854 §4.6, RFC 9069): StationSet, the
// stations every exporter message goes to, and RibMonitor, the RouteMonitor
// (bgp/stages/route_monitor.h) the pipelines call with each batch of changes of a peer's
// post-policy Adj-RIB-In and of the Loc-RIB — on the shards' worker threads with `threads N` > 1.
//
// A batch becomes Route Monitoring messages carrying UPDATEs our encoder (bgp/wire) makes, one
// per run of changes with one attribute set (or of withdrawals), in order, encoded during the
// call with room left before each UPDATE for its BMP headers, which are then written there, and
// copied in one piece into the buffer of every station that monitors that RIB.
//   - post-policy: the peer's per-peer header with the L flag, encoded with the peer's session
//     parameters (its AS_PATH format, matching the A flag, and its ADD-PATH Path Identifiers);
//     only between the peer's PeerUp and PeerDown here — later changes (the peer's routes
//     deleted after its Peer Down) are not sent, since a Peer Down already clears them;
//   - Loc-RIB: peer type 3 with our AS and BGP Identifier, 4-octet AS numbers.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "bgp/bmp/bmp_message.h"
#include "bgp/bmp/station.h"
#include "bgp/stages/route_monitor.h"
#include "bgp/wire/update_encoder.h"

namespace sluice::bgp::bmp {

// The stations, for any thread.
class StationSet {
 public:
  void Add(std::shared_ptr<Station> station);
  void Remove(const std::shared_ptr<Station>& station);
  // Forgets every station; once it returns no Broadcast is appending to any of them.
  void Clear();
  bool empty() const { return count_.load(std::memory_order_relaxed) == 0; }
  // Whether some station monitors `what` (cheap).
  bool Wants(RouteMonitoringBit what) const {
    return (wanted_.load(std::memory_order_relaxed) & what) != 0;
  }
  // Copies `message` into every station's buffer (Station::Append).
  void Broadcast(std::span<const uint8_t> message) const;
  // Copies `message` into the buffer of every station that monitors `what`.
  void Broadcast(RouteMonitoringBit what, std::span<const uint8_t> message) const;

 private:
  void UpdateLocked();

  mutable std::mutex mu_;
  std::vector<std::shared_ptr<Station>> stations_;
  std::atomic<size_t> count_{0};
  std::atomic<uint8_t> wanted_{0};
};

// The Loc-RIB's per-peer header (RFC 9069 §4.1): type 3, no flags (the whole Loc-RIB is sent),
// address zero, our AS and BGP Identifier, now.
PeerHeader LocRibHeader(uint32_t local_as, uint32_t bgp_id);
// Peer Up of the Loc-RIB (RFC 9069 §5.1): no addresses or ports, a fabricated OPEN (our AS, BGP
// Identifier, 4-octet AS and IPv4/IPv6 unicast capabilities) as both OPENs, table name "global".
void AppendLocRibPeerUp(uint32_t local_as, uint32_t bgp_id, std::vector<uint8_t>* out);
// The UPDATE parameters of Loc-RIB messages: 4-octet AS, IPv4 and IPv6 unicast.
SessionParams LocRibParams();
// The timestamp of `header` set to now.
void StampNow(PeerHeader* header);

// Appends Route Monitoring messages with `header` (stamped now) for `changes`, in their order:
// one UPDATE (or more) per run, encoded for a session of `params` with the attributes exactly as
// they are. Runs the encoder refuses (routes without a nexthop for their family) are left out.
void AppendRouteChanges(const RouteChanges& changes, const SessionParams& params, PeerHeader header,
                        std::vector<uint8_t>* out);

class RibMonitor : public RouteMonitor {
 public:
  explicit RibMonitor(std::shared_ptr<const StationSet> stations);
  // Our AS and BGP Identifier for the Loc-RIB's per-peer header (any thread).
  void SetIdentity(uint32_t local_as, uint32_t bgp_id);
  uint32_t local_as() const { return local_as_.load(); }
  uint32_t bgp_id() const { return bgp_id_.load(); }
  // The per-peer header (flags as for pre-policy; L is added) and session parameters of the
  // peer at `address`, whose session is Established (any thread). Replaces an earlier one.
  void PeerUp(const net::IPAddress& address, const PeerHeader& header, const SessionParams& params);
  // The peer's session left Established: its post-policy changes are not sent any more.
  void PeerDown(const net::IPAddress& address);

  bool Wants(MonitoredRib rib) const override;
  // Batches of the Loc-RIB that repeat the post-policy batch handed over just before (every
  // route of it won), on the same thread and with an encoder that makes the same octets, reuse
  // its UPDATEs; each thread keeps the batch it encoded last (taken from `changes`) and its
  // UPDATEs until OnPushDone.
  void OnRouteChanges(MonitoredRib rib, RouteChanges& changes) override;
  void OnPushDone() override;

 private:
  struct PeerEncoding {
    PeerHeader header;
    UpdateEncoder encoder;
  };
  std::shared_ptr<const PeerEncoding> Peer(const net::IPAddress& address) const;

  std::shared_ptr<const StationSet> stations_;
  UpdateEncoder loc_rib_encoder_;
  std::atomic<uint32_t> local_as_{0};
  std::atomic<uint32_t> bgp_id_{0};
  mutable std::mutex mu_;
  absl::flat_hash_map<net::IPAddress, std::shared_ptr<const PeerEncoding>> peers_;
};

}  // namespace sluice::bgp::bmp
