#pragma once
// Loc-RIB monitoring (RFC 9069): the stations every exporter message goes to (StationSet), and
// LocRibMonitor, the RouteMonitor (bgp/stages/route_monitor.h) the pipelines call with every
// Loc-RIB change — on the shards' worker threads with `threads N` > 1. Each change becomes one
// Route Monitoring message with peer type 3 (Loc-RIB), our AS and BGP Identifier, carrying one
// UPDATE our encoder (bgp/wire) makes with 4-octet AS numbers, encoded during the call (the
// route's attribute handle is valid only then) and copied into every station's buffer.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

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
  // Copies `message` into every station's buffer (Station::Append).
  void Broadcast(std::span<const uint8_t> message) const;

 private:
  mutable std::mutex mu_;
  std::vector<std::shared_ptr<Station>> stations_;
  std::atomic<size_t> count_{0};
};

// The Loc-RIB's per-peer header (RFC 9069 §4.1): type 3, no flags (the whole Loc-RIB is sent),
// address zero, our AS and BGP Identifier, now.
PeerHeader LocRibHeader(uint32_t local_as, uint32_t bgp_id);
// Peer Up of the Loc-RIB (RFC 9069 §5.1): no addresses or ports, a fabricated OPEN (our AS, BGP
// Identifier, 4-octet AS and IPv4/IPv6 unicast capabilities) as both OPENs, table name "global".
void AppendLocRibPeerUp(uint32_t local_as, uint32_t bgp_id, std::vector<uint8_t>* out);
// The UPDATE parameters of Loc-RIB messages: 4-octet AS, IPv4 and IPv6 unicast.
SessionParams LocRibParams();

class LocRibMonitor : public RouteMonitor {
 public:
  explicit LocRibMonitor(std::shared_ptr<const StationSet> stations);
  // Our AS and BGP Identifier for the per-peer header (any thread).
  void SetIdentity(uint32_t local_as, uint32_t bgp_id);
  uint32_t local_as() const { return local_as_.load(); }
  uint32_t bgp_id() const { return bgp_id_.load(); }

  void OnLocRibAnnounce(const BgpRoute& route) override;
  void OnLocRibWithdraw(const BgpRoute& route) override;

 private:
  void Send(std::span<const uint8_t> updates) const;

  std::shared_ptr<const StationSet> stations_;
  UpdateEncoder encoder_;
  std::atomic<uint32_t> local_as_{0};
  std::atomic<uint32_t> bgp_id_{0};
};

}  // namespace sluice::bgp::bmp
