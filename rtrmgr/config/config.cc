#include "rtrmgr/config/config.h"

#include <algorithm>
#include <tuple>

#include "absl/strings/str_cat.h"

namespace sluice::rtrmgr {

std::string InterfaceAddressConfig::ToString() const {
  return absl::StrCat(address.ToString(), "/", prefix_length);
}

const char* FeaBackendName(FeaBackend backend) {
  return backend == FeaBackend::kNetlink ? "netlink" : "dummy";
}

std::string ResolveRule::ToString() const {
  return interface.empty() ? target : absl::StrCat(target, "/", interface);
}

std::string BgpListen::ToString() const { return absl::StrCat(address.ToString(), " port ", port); }
std::string BmpStation::ToString() const {
  return absl::StrCat(address.ToString(), " port ", port);
}
std::string RpkiCache::ToString() const { return absl::StrCat(address.ToString(), " port ", port); }
std::string MetricsConfig::ToString() const {
  return absl::StrCat(address.ToString(), " port ", port);
}

bool SamePeerConfig(const bgp::PeerConfig& a, const bgp::PeerConfig& b) {
  auto fields = [](const bgp::PeerConfig& p) {
    return std::tie(p.address, p.port, p.remote_as, p.local_address, p.hold_time_s,
                    p.min_hold_time_s, p.passive, p.md5_password, p.gtsm_hops, p.next_hop_self,
                    p.route_reflector_client, p.max_prefix.limit, p.max_prefix.action,
                    p.max_prefix.count, p.max_prefix.restart_after_s, p.adj_rib_in_limit,
                    p.enforce_first_as, p.connect_retry_s, p.idle_hold_s, p.idle_hold_max_s,
                    p.stable_s, p.families, p.extended_messages, p.enabled, p.description,
                    p.graceful_restart, p.keepalive_s, p.multihop_ttl);
  };
  return fields(a) == fields(b);
}

bool operator==(const BgpPeer& a, const BgpPeer& b) {
  return SamePeerConfig(a.session, b.session) && a.import_policies == b.import_policies &&
         a.export_policies == b.export_policies && a.damping == b.damping && a.group == b.group &&
         a.next_hop6 == b.next_hop6;
}

const char* BgpOriginName(BgpOrigin origin) {
  switch (origin) {
    case BgpOrigin::kIgp:
      return "igp";
    case BgpOrigin::kEgp:
      return "egp";
    case BgpOrigin::kIncomplete:
      return "incomplete";
  }
  return "?";
}

bool operator==(const PolicyBlock& a, const PolicyBlock& b) {
  auto sorted = [](std::vector<PolicyItemText> items) {
    std::sort(items.begin(), items.end(), [](const PolicyItemText& x, const PolicyItemText& y) {
      return std::tie(x.kind, x.name, x.canonical) < std::tie(y.kind, y.name, y.canonical);
    });
    return items;
  };
  return sorted(a.items) == sorted(b.items);
}

bool Config::IsLocalAddress(const net::IPAddress& address) const {
  if (address.is_v4() && (address.v4().value() >> 24) == 127) return true;
  if (address.is_v6() && address == net::IPAddress(net::IPv6Address(0, 1))) return true;
  for (const auto& [name, interface] : interfaces) {
    for (const InterfaceAddressConfig& a : interface.addresses) {
      if (a.address == address) return true;
    }
  }
  return false;
}

bool Config::HasInterface(const std::string& name) const {
  return name == kLoopbackInterface || interfaces.contains(name);
}

}  // namespace sluice::rtrmgr
