#pragma once
// InterfaceTree: the set of interfaces an ifmgr backend knows, keyed by index, with the
// queries the FIB's validation needs (by name, by connected network) and the mutations the
// backends make. Each mutation returns the events it caused — empty when it changed nothing —
// so that a backend can apply the same kernel message twice (a dump overlapping a
// notification) without reporting a change twice.

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/container/btree_map.h"
#include "fea/interface.h"
#include "net/ip_address.h"

namespace sluice::fea {

class InterfaceTree {
 public:
  const Interface* FindByIndex(uint32_t index) const;
  const Interface* FindByName(std::string_view name) const;
  // The interface owning the longest connected network that contains `address` (the one the
  // kernel would use for a gateway with no device given); nullptr when none does. IPv6
  // link-local addresses (fe80::/10) are connected on every interface that has one, so for
  // them the answer is only a guess: callers must name the interface.
  const Interface* FindConnected(const net::IPAddress& address) const;
  // All interfaces in index order.
  std::vector<const Interface*> interfaces() const;
  size_t size() const { return by_index_.size(); }

  // Adds an interface or updates its link attributes (name, enabled, carrier, MTU, MAC);
  // `link.addresses` is ignored (addresses change only through AddAddress/RemoveAddress).
  std::vector<InterfaceEvent> SetInterface(const Interface& link);
  // Removes an interface and its addresses (events: kAddressRemoved each, kInterfaceRemoved).
  std::vector<InterfaceEvent> RemoveInterface(uint32_t index);
  // Adds an address to interface `index`, or updates its prefix length (reported as removal and
  // addition). No event when the interface is unknown or the address is already there.
  std::vector<InterfaceEvent> AddAddress(uint32_t index, const InterfaceAddress& address);
  std::vector<InterfaceEvent> RemoveAddress(uint32_t index, const net::IPAddress& address);
  // Makes this tree equal to `other` and returns the events that transform one into the other
  // (used after a resynchronising dump).
  std::vector<InterfaceEvent> ReplaceWith(const InterfaceTree& other);

 private:
  absl::btree_map<uint32_t, Interface> by_index_;
};

}  // namespace sluice::fea
