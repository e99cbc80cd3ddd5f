#pragma once
// The FEA's model of the router's network interfaces (XORP's "interface tree", NSDI'05 §3):
// each interface with its index, name, administrative and link state, MTU, MAC address and its
// IPv4/IPv6 addresses with their prefix lengths, and the events that report changes to it.

#include <array>
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "net/ip_address.h"
#include "net/prefix.h"

namespace sluice::fea {

// An IEEE 802 MAC-48 address. Text form "02:00:5e:10:00:01" (lower case, colon separated).
class MacAddress {
 public:
  MacAddress() = default;  // 00:00:00:00:00:00, also "no MAC address"
  explicit MacAddress(const std::array<uint8_t, 6>& octets) : octets_(octets) {}

  // Errors: InvalidArgument naming the text when it is not six colon-separated hex octets.
  static absl::StatusOr<MacAddress> Parse(std::string_view text);

  const std::array<uint8_t, 6>& octets() const { return octets_; }
  bool is_zero() const;
  std::string ToString() const;

  friend auto operator<=>(const MacAddress&, const MacAddress&) = default;

 private:
  std::array<uint8_t, 6> octets_{};
};

// One address configured on an interface: the interface's own address and the length of the
// connected network it defines ("10.1.0.1/24" means address 10.1.0.1 on network 10.1.0.0/24).
struct InterfaceAddress {
  net::IPAddress address;
  int prefix_length = 0;  // 0..32 for IPv4, 0..128 for IPv6

  // The connected network, host bits cleared.
  net::Prefix network() const { return net::Prefix(address, prefix_length); }
  std::string ToString() const;  // "10.1.0.1/24"

  friend bool operator==(const InterfaceAddress&, const InterfaceAddress&) = default;
};

struct Interface {
  uint32_t index = 0;    // > 0: the kernel ifindex (netlink) or one the dummy ifmgr assigned
  std::string name;      // unique among interfaces, at most 15 octets (IFNAMSIZ - 1)
  bool enabled = false;  // administratively up (IFF_UP)
  bool carrier = false;  // the link is operationally up (IFF_RUNNING)
  uint32_t mtu = 0;      // octets
  MacAddress mac;        // zero when the link has no 6-octet hardware address
  std::vector<InterfaceAddress> addresses;  // in the order they were added

  // Forwarding is possible: enabled and with carrier.
  bool up() const { return enabled && carrier; }
  // True when one of the addresses' connected networks contains `address`.
  bool IsConnected(const net::IPAddress& address) const;
  // "veth0 index 3 up mtu 1500 mac 02:.. 10.1.0.1/24 fe80::1/64"
  std::string ToString() const;
  // Equal link attributes (everything but the addresses).
  bool SameLink(const Interface& other) const;
};

enum class InterfaceEventKind {
  kInterfaceAdded,    // a new interface (its addresses follow as kAddressAdded events)
  kInterfaceChanged,  // name, enabled, carrier, MTU or MAC changed
  kInterfaceRemoved,  // after kAddressRemoved for each of its addresses
  kAddressAdded,
  kAddressRemoved,
};
std::string_view InterfaceEventKindName(InterfaceEventKind kind);

// One change to the interface tree, as delivered to watchers.
struct InterfaceEvent {
  InterfaceEventKind kind;
  // The interface after the change (for kInterfaceRemoved: as it was, without addresses).
  Interface interface;
  // The address added or removed (address events only).
  InterfaceAddress address;

  std::string ToString() const;  // "address_added veth0 10.1.0.1/24"
};

}  // namespace sluice::fea
