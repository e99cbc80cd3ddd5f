#pragma once
// Interfaces and addresses as the RIB learns them from the FEA (XORP's ifmgr mirror in the
// RIB, vifmanager): the source of connected routes.
//
// InterfaceEvents is what the RIB implements (ConnectedRoutes); InterfaceSource is what the FEA
// adapter implements (over `fea_ifmgr`'s stream of changes). All calls happen on the RIB's
// event loop. Names are interface names ("eth0"); an address is given with its prefix length
// on the subnet ("192.0.2.1", 24).

#include <string_view>

#include "net/ip_address.h"

namespace sluice::rib {

class InterfaceEvents {
 public:
  virtual ~InterfaceEvents() = default;
  // A full snapshot follows (after a (re)connection to the FEA): interfaces and addresses not
  // reported again before OnSyncDone() are gone.
  virtual void OnSyncStart() = 0;
  virtual void OnSyncDone() = 0;
  // An interface exists (again); `up` is its administrative and link state together.
  virtual void OnInterfaceAdded(std::string_view ifname, bool up) = 0;
  virtual void OnInterfaceRemoved(std::string_view ifname) = 0;
  virtual void OnInterfaceUp(std::string_view ifname, bool up) = 0;
  // An address on an interface; re-adding one with another prefix length changes it.
  virtual void OnAddressAdded(std::string_view ifname, const net::IPAddress& address,
                              int prefix_length) = 0;
  virtual void OnAddressRemoved(std::string_view ifname, const net::IPAddress& address) = 0;
};

class InterfaceSource {
 public:
  virtual ~InterfaceSource() = default;
  // Starts delivering events to `events`: OnSyncStart, the current interfaces and addresses,
  // OnSyncDone, then changes as they happen (and a new snapshot after a reconnection), until
  // Stop().
  virtual void Start(InterfaceEvents* events) = 0;
  virtual void Stop() = 0;
};

}  // namespace sluice::rib
