#pragma once
// ConnectedRoutes: turns interface and address events (interface_source.h) into the RIB's
// connected routes: for each address on an interface that is up, the subnet it is on, as an
// interface route (no nexthop) of protocol "connected", metric 0.
//
// When several addresses give the same subnet (two addresses on one interface, or IPv6
// link-local fe80::/64 on every interface), the route goes through the first interface by name,
// and moves to the next one when that one goes. Bad events (an unknown interface, a prefix
// length out of range) are logged and ignored: they come from the FEA, and the RIB must not
// crash on them.

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "net/ip_address.h"
#include "net/prefix.h"
#include "rib/interface_source.h"

namespace sluice::rib {

class ConnectedRoutes : public InterfaceEvents {
 public:
  // `apply(prefix, ifname)`: the connected route for `prefix` is now via `ifname`
  // (added or moved); `ifname` nullopt: there is none any more. `push()`: end of an event.
  using Apply = std::function<void(const net::Prefix&, const std::optional<std::string>&)>;
  // `synced()`: a snapshot of the FEA's interfaces has been applied (after its push()): the
  // connected routes are complete — their end-of-RIB.
  ConnectedRoutes(Apply apply, std::function<void()> push, std::function<void()> synced = {});

  void OnSyncStart() override;
  void OnSyncDone() override;
  void OnInterfaceAdded(std::string_view ifname, bool up) override;
  void OnInterfaceRemoved(std::string_view ifname) override;
  void OnInterfaceUp(std::string_view ifname, bool up) override;
  void OnAddressAdded(std::string_view ifname, const net::IPAddress& address,
                      int prefix_length) override;
  void OnAddressRemoved(std::string_view ifname, const net::IPAddress& address) override;

  size_t interface_count() const { return interfaces_.size(); }
  size_t route_count() const { return routes_.size(); }
  // The interfaces known to be up, by name.
  std::set<std::string> InterfacesUp() const;

 private:
  struct Interface {
    bool up = false;
    std::map<net::IPAddress, int> addresses;  // address -> prefix length
  };
  // (interface, address) giving a subnet.
  using Provider = std::pair<std::string, net::IPAddress>;

  void AddProvider(const std::string& ifname, const net::IPAddress& address, int length);
  void RemoveProvider(const std::string& ifname, const net::IPAddress& address, int length);
  void Update(const net::Prefix& prefix);
  void RemoveInterface(const std::string& ifname);

  Apply apply_;
  std::function<void()> push_;
  std::function<void()> synced_;
  std::map<std::string, Interface> interfaces_;
  std::map<net::Prefix, std::set<Provider>> providers_;  // only addresses on interfaces up
  std::map<net::Prefix, std::string> routes_;            // what was applied
  // During a sync: what was reported again.
  bool syncing_ = false;
  std::set<std::string> seen_interfaces_;
  std::set<Provider> seen_addresses_;
};

}  // namespace sluice::rib
