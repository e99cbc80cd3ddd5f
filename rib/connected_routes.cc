#include "rib/connected_routes.h"

#include <vector>

#include "base/log.h"

namespace sluice::rib {

ConnectedRoutes::ConnectedRoutes(Apply apply, std::function<void()> push,
                                 std::function<void()> synced)
    : apply_(std::move(apply)), push_(std::move(push)), synced_(std::move(synced)) {}

std::set<std::string> ConnectedRoutes::InterfacesUp() const {
  std::set<std::string> out;
  for (const auto& [name, iface] : interfaces_) {
    if (iface.up) out.insert(name);
  }
  return out;
}

void ConnectedRoutes::OnSyncStart() {
  syncing_ = true;
  seen_interfaces_.clear();
  seen_addresses_.clear();
}

void ConnectedRoutes::OnSyncDone() {
  if (!syncing_) return;
  syncing_ = false;
  std::vector<std::string> gone;
  std::vector<Provider> gone_addresses;
  for (const auto& [name, iface] : interfaces_) {
    if (!seen_interfaces_.contains(name)) {
      gone.push_back(name);
      continue;
    }
    for (const auto& [address, length] : iface.addresses) {
      if (!seen_addresses_.contains(Provider{name, address})) {
        gone_addresses.emplace_back(name, address);
      }
    }
  }
  for (const std::string& name : gone) RemoveInterface(name);
  for (const auto& [name, address] : gone_addresses) {
    Interface& iface = interfaces_[name];
    auto it = iface.addresses.find(address);
    if (iface.up) RemoveProvider(name, address, it->second);
    iface.addresses.erase(it);
  }
  seen_interfaces_.clear();
  seen_addresses_.clear();
  push_();
  if (synced_) synced_();
}

void ConnectedRoutes::OnInterfaceAdded(std::string_view ifname, bool up) {
  const std::string name(ifname);
  if (syncing_) seen_interfaces_.insert(name);
  auto [it, added] = interfaces_.try_emplace(name);
  Interface& iface = it->second;
  if (added) {
    iface.up = up;
  } else if (iface.up != up) {
    iface.up = up;
    for (const auto& [address, length] : iface.addresses) {
      if (up) {
        AddProvider(name, address, length);
      } else {
        RemoveProvider(name, address, length);
      }
    }
  }
  if (!syncing_) push_();
}

void ConnectedRoutes::OnInterfaceRemoved(std::string_view ifname) {
  RemoveInterface(std::string(ifname));
  if (!syncing_) push_();
}

void ConnectedRoutes::OnInterfaceUp(std::string_view ifname, bool up) {
  auto it = interfaces_.find(std::string(ifname));
  if (it == interfaces_.end()) {
    SLUICE_LOG(kWarning) << "connected routes: state of unknown interface " << ifname << " ignored";
    return;
  }
  OnInterfaceAdded(ifname, up);
}

void ConnectedRoutes::OnAddressAdded(std::string_view ifname, const net::IPAddress& address,
                                     int prefix_length) {
  const std::string name(ifname);
  auto it = interfaces_.find(name);
  if (it == interfaces_.end()) {
    SLUICE_LOG(kWarning) << "connected routes: address " << address.ToString()
                         << " on unknown interface " << name << " ignored";
    return;
  }
  if (prefix_length < 0 || prefix_length > address.bits()) {
    SLUICE_LOG(kWarning) << "connected routes: address " << address.ToString() << "/"
                         << prefix_length << " on " << name << ": bad prefix length, ignored";
    return;
  }
  if (syncing_) seen_addresses_.insert(Provider{name, address});
  Interface& iface = it->second;
  auto [addr_it, added] = iface.addresses.try_emplace(address, prefix_length);
  if (!added) {
    if (addr_it->second == prefix_length) return;
    if (iface.up) RemoveProvider(name, address, addr_it->second);
    addr_it->second = prefix_length;
  }
  if (iface.up) AddProvider(name, address, prefix_length);
  if (!syncing_) push_();
}

void ConnectedRoutes::OnAddressRemoved(std::string_view ifname, const net::IPAddress& address) {
  auto it = interfaces_.find(std::string(ifname));
  if (it == interfaces_.end()) return;
  Interface& iface = it->second;
  auto addr_it = iface.addresses.find(address);
  if (addr_it == iface.addresses.end()) return;
  if (iface.up) RemoveProvider(it->first, address, addr_it->second);
  iface.addresses.erase(addr_it);
  if (!syncing_) push_();
}

void ConnectedRoutes::RemoveInterface(const std::string& ifname) {
  auto it = interfaces_.find(ifname);
  if (it == interfaces_.end()) return;
  if (it->second.up) {
    for (const auto& [address, length] : it->second.addresses) {
      RemoveProvider(ifname, address, length);
    }
  }
  interfaces_.erase(it);
}

void ConnectedRoutes::AddProvider(const std::string& ifname, const net::IPAddress& address,
                                  int length) {
  const net::Prefix prefix(address, length);
  providers_[prefix].insert(Provider{ifname, address});
  Update(prefix);
}

void ConnectedRoutes::RemoveProvider(const std::string& ifname, const net::IPAddress& address,
                                     int length) {
  const net::Prefix prefix(address, length);
  auto it = providers_.find(prefix);
  if (it == providers_.end()) return;
  it->second.erase(Provider{ifname, address});
  if (it->second.empty()) providers_.erase(it);
  Update(prefix);
}

void ConnectedRoutes::Update(const net::Prefix& prefix) {
  std::optional<std::string> want;
  if (auto it = providers_.find(prefix); it != providers_.end()) want = it->second.begin()->first;
  auto have = routes_.find(prefix);
  if (have == routes_.end() ? !want : (want && *want == have->second)) return;
  if (want) {
    routes_[prefix] = *want;
  } else {
    routes_.erase(have);
  }
  apply_(prefix, want);
}

}  // namespace sluice::rib
