#include "bgp/bmp/loc_rib_monitor.h"

#include <algorithm>
#include <chrono>

#include "bgp/wire/open_message.h"

namespace sluice::bgp::bmp {

void StationSet::Add(std::shared_ptr<Station> station) {
  std::lock_guard lock(mu_);
  stations_.push_back(std::move(station));
  count_ = stations_.size();
}

void StationSet::Remove(const std::shared_ptr<Station>& station) {
  std::lock_guard lock(mu_);
  stations_.erase(std::remove(stations_.begin(), stations_.end(), station), stations_.end());
  count_ = stations_.size();
}

void StationSet::Clear() {
  std::lock_guard lock(mu_);
  stations_.clear();
  count_ = 0;
}

void StationSet::Broadcast(std::span<const uint8_t> message) const {
  std::lock_guard lock(mu_);
  for (const auto& s : stations_) s->Append(message);
}

PeerHeader LocRibHeader(uint32_t local_as, uint32_t bgp_id) {
  PeerHeader h;
  h.type = PeerType::kLocRib;
  h.address = net::IPAddress(net::IPv4Address());
  h.as = local_as;
  h.bgp_id = bgp_id;
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                std::chrono::system_clock::now().time_since_epoch())
                .count();
  h.seconds = uint32_t(us / 1000000);
  h.microseconds = uint32_t(us % 1000000);
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

LocRibMonitor::LocRibMonitor(std::shared_ptr<const StationSet> stations)
    : stations_(std::move(stations)), encoder_(LocRibParams(), /*readvertise=*/false) {}

void LocRibMonitor::SetIdentity(uint32_t local_as, uint32_t bgp_id) {
  local_as_ = local_as;
  bgp_id_ = bgp_id;
}

void LocRibMonitor::Send(std::span<const uint8_t> updates) const {
  std::vector<uint8_t> out;
  PeerHeader h = LocRibHeader(local_as(), bgp_id());
  for (std::span<const uint8_t> m : SplitBgpMessages(updates)) AppendRouteMonitoring(h, m, &out);
  if (!out.empty()) stations_->Broadcast(out);
}

void LocRibMonitor::OnLocRibAnnounce(const BgpRoute& route) {
  if (stations_->empty() || !route.attrs) return;
  std::vector<uint8_t> updates;
  Nlri nlri{route.net, 0};
  if (!encoder_.Announce(*route.attrs, std::span<const Nlri>(&nlri, 1), &updates).ok()) return;
  Send(updates);
}

void LocRibMonitor::OnLocRibWithdraw(const BgpRoute& route) {
  if (stations_->empty()) return;
  std::vector<uint8_t> updates;
  Nlri nlri{route.net, 0};
  if (!encoder_.Withdraw(std::span<const Nlri>(&nlri, 1), &updates).ok()) return;
  Send(updates);
}

}  // namespace sluice::bgp::bmp
