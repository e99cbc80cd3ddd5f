#include "bgp/bmp/rib_monitor.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <utility>

#include "bgp/wire/open_message.h"

namespace sluice::bgp::bmp {

void StationSet::Add(std::shared_ptr<Station> station) {
  std::lock_guard lock(mu_);
  stations_.push_back(std::move(station));
  UpdateLocked();
}

void StationSet::Remove(const std::shared_ptr<Station>& station) {
  std::lock_guard lock(mu_);
  stations_.erase(std::remove(stations_.begin(), stations_.end(), station), stations_.end());
  UpdateLocked();
}

void StationSet::Clear() {
  std::lock_guard lock(mu_);
  stations_.clear();
  UpdateLocked();
}

void StationSet::UpdateLocked() {
  uint8_t wanted = 0;
  for (const auto& s : stations_) wanted |= s->config().route_monitoring;
  count_ = stations_.size();
  wanted_ = wanted;
}

void StationSet::Broadcast(std::span<const uint8_t> message) const {
  std::lock_guard lock(mu_);
  for (const auto& s : stations_) s->Append(message);
}

void StationSet::Broadcast(RouteMonitoringBit what, std::span<const uint8_t> message) const {
  std::lock_guard lock(mu_);
  for (const auto& s : stations_) {
    if (s->monitors(what)) s->Append(message);
  }
}

void StampNow(PeerHeader* h) {
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                std::chrono::system_clock::now().time_since_epoch())
                .count();
  h->seconds = uint32_t(us / 1000000);
  h->microseconds = uint32_t(us % 1000000);
}

PeerHeader LocRibHeader(uint32_t local_as, uint32_t bgp_id) {
  PeerHeader h;
  h.type = PeerType::kLocRib;
  h.address = net::IPAddress(net::IPv4Address());
  h.as = local_as;
  h.bgp_id = bgp_id;
  StampNow(&h);
  return h;
}

void AppendLocRibPeerUp(uint32_t local_as, uint32_t bgp_id, std::vector<uint8_t>* out) {
  Capabilities caps;
  caps.multiprotocol = {kIPv4Unicast, kIPv6Unicast};
  std::vector<uint8_t> open;
  if (!AppendOpen(OpenMessage::Make(local_as, 0, net::IPv4Address(bgp_id), caps), &open).ok()) {
    open.clear();
  }
  AppendPeerUp(LocRibHeader(local_as, bgp_id), net::IPAddress(net::IPv4Address()), 0, 0, open, open,
               "global", out);
}

SessionParams LocRibParams() {
  SessionParams p;
  p.four_octet_as = true;
  p.families.Add(kIPv6Unicast);
  return p;
}

namespace {

// Appends the UPDATEs of `changes`, one run after the other. The encoder appends nothing when it
// refuses a run.
void EncodeRuns(const RouteChanges& changes, const UpdateEncoder& encoder,
                std::vector<uint8_t>* out) {
  size_t begin = 0;
  for (const RouteChanges::Run& run : changes.runs) {
    std::span<const Nlri> nlri(changes.nlri.data() + begin, run.end - begin);
    (void)(run.attrs ? encoder.Announce(*run.attrs, nlri, out) : encoder.Withdraw(nlri, out));
    begin = run.end;
  }
}

// The octets of the BMP headers before each Route Monitoring message's UPDATE.
constexpr size_t kRouteMonitoringHeaders = kCommonHeaderSize + kPerPeerHeaderSize;

// An encoder of `params` (exact attributes) leaving room for the BMP headers before each UPDATE.
UpdateEncoder MonitorEncoder(const SessionParams& params) {
  UpdateEncoder encoder(params, /*readvertise=*/false);
  encoder.set_message_gap(kRouteMonitoringHeaders);
  return encoder;
}

// Writes the Route Monitoring headers with `header`, stamped now, into the room before each
// UPDATE of `framed` (what a MonitorEncoder appended): `framed` is then the messages, back to back.
void WriteHeaders(PeerHeader header, std::span<uint8_t> framed) {
  StampNow(&header);
  const EncodedPeerHeader encoded = EncodePerPeerHeader(header);  // one per batch
  size_t at = 0;
  while (at + kRouteMonitoringHeaders + kHeaderSize <= framed.size()) {
    const size_t update = LoadU16(framed.data() + at + kRouteMonitoringHeaders + kMarkerSize);
    if (at + kRouteMonitoringHeaders + update > framed.size()) return;  // not the encoder's
    const RouteMonitoringHeaders headers = RouteMonitoringHeadersFor(encoded, update);
    std::copy(headers.begin(), headers.end(), framed.begin() + at);
    at += kRouteMonitoringHeaders + update;
  }
}

// The UPDATEs this thread encoded last for a pipeline batch, kept until the stages' hand-over is
// done: a route that wins reaches the Loc-RIB's stage in the same hand-over as the post-policy
// stage of the peer it came from, and when every change of the batch did, with an encoder that
// makes the same octets, its UPDATEs are the ones already made. The copy holds the attribute
// sets, so a set compared by address is the one encoded.
struct LastBatch {
  RouteChanges changes;
  std::optional<UpdateEncoder> encoder;
  std::vector<uint8_t> updates;

  void Clear() {
    changes.Clear();
    encoder.reset();
    updates.clear();
  }
};
thread_local LastBatch last_batch;

// The UPDATEs of `changes` as `encoder` makes them: last_batch's when they are the same. Otherwise
// last_batch takes `changes` (swapped: the caller clears what it gets back) and encodes them.
std::span<uint8_t> EncodeBatch(RouteChanges& changes, const UpdateEncoder& encoder) {
  LastBatch& last = last_batch;
  if (!last.encoder || !last.encoder->EncodesLike(encoder) || !(last.changes == changes)) {
    std::swap(last.changes, changes);
    last.encoder = encoder;
    last.updates.clear();
    EncodeRuns(last.changes, encoder, &last.updates);
  }
  return last.updates;
}

}  // namespace

void AppendRouteChanges(const RouteChanges& changes, const SessionParams& params, PeerHeader header,
                        std::vector<uint8_t>* out) {
  const size_t start = out->size();
  EncodeRuns(changes, MonitorEncoder(params), out);
  WriteHeaders(header, std::span<uint8_t>(*out).subspan(start));
}

RibMonitor::RibMonitor(std::shared_ptr<const StationSet> stations)
    : stations_(std::move(stations)), loc_rib_encoder_(MonitorEncoder(LocRibParams())) {}

void RibMonitor::SetIdentity(uint32_t local_as, uint32_t bgp_id) {
  local_as_ = local_as;
  bgp_id_ = bgp_id;
}

void RibMonitor::PeerUp(const net::IPAddress& address, const PeerHeader& header,
                        const SessionParams& params) {
  auto p = std::make_shared<PeerEncoding>(PeerEncoding{header, MonitorEncoder(params)});
  p->header.flags |= kFlagL;
  std::lock_guard lock(mu_);
  peers_[address] = std::move(p);
}

void RibMonitor::PeerDown(const net::IPAddress& address) {
  std::lock_guard lock(mu_);
  peers_.erase(address);
}

std::shared_ptr<const RibMonitor::PeerEncoding> RibMonitor::Peer(
    const net::IPAddress& address) const {
  std::lock_guard lock(mu_);
  auto it = peers_.find(address);
  return it == peers_.end() ? nullptr : it->second;
}

bool RibMonitor::Wants(MonitoredRib rib) const {
  return stations_->Wants(rib == MonitoredRib::kLocRib ? kMonitorLocRib : kMonitorPostPolicy);
}

void RibMonitor::OnRouteChanges(MonitoredRib rib, RouteChanges& changes) {
  if (changes.empty() || !Wants(rib)) return;
  if (rib == MonitoredRib::kLocRib) {
    const std::span<uint8_t> framed = EncodeBatch(changes, loc_rib_encoder_);
    WriteHeaders(LocRibHeader(local_as(), bgp_id()), framed);
    if (!framed.empty()) stations_->Broadcast(kMonitorLocRib, framed);
    return;
  }
  const PeerSource* source = changes.source;
  if (source == nullptr) return;
  std::shared_ptr<const PeerEncoding> peer = Peer(source->address);
  if (peer == nullptr) return;  // not Established (any more)
  const std::span<uint8_t> framed = EncodeBatch(changes, peer->encoder);
  WriteHeaders(peer->header, framed);
  if (!framed.empty()) stations_->Broadcast(kMonitorPostPolicy, framed);
}

void RibMonitor::OnPushDone() { last_batch.Clear(); }

}  // namespace sluice::bgp::bmp
