#include "fea/interface.h"

#include <cstdio>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace sluice::fea {

absl::StatusOr<MacAddress> MacAddress::Parse(std::string_view text) {
  std::vector<std::string> parts = absl::StrSplit(absl::string_view(text.data(), text.size()), ':');
  std::array<uint8_t, 6> octets{};
  bool ok = parts.size() == 6;
  for (size_t i = 0; ok && i < parts.size(); ++i) {
    uint32_t v = 0;
    ok = !parts[i].empty() && parts[i].size() <= 2 && absl::SimpleHexAtoi(parts[i], &v);
    octets[i] = static_cast<uint8_t>(v);
  }
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrFormat("invalid MAC address \"%s\": expected six hex octets such as "
                        "02:00:5e:10:00:01",
                        text));
  }
  return MacAddress(octets);
}

bool MacAddress::is_zero() const {
  for (uint8_t o : octets_) {
    if (o != 0) return false;
  }
  return true;
}

std::string MacAddress::ToString() const {
  return absl::StrFormat("%02x:%02x:%02x:%02x:%02x:%02x", octets_[0], octets_[1], octets_[2],
                         octets_[3], octets_[4], octets_[5]);
}

std::string InterfaceAddress::ToString() const {
  return absl::StrCat(address.ToString(), "/", prefix_length);
}

bool Interface::IsConnected(const net::IPAddress& a) const {
  for (const InterfaceAddress& ia : addresses) {
    if (ia.network().Contains(a)) return true;
  }
  return false;
}

std::string Interface::ToString() const {
  std::string s = absl::StrCat(name, " index ", index, enabled ? " enabled" : " disabled",
                               carrier ? " carrier" : " no-carrier", " mtu ", mtu);
  if (!mac.is_zero()) absl::StrAppend(&s, " mac ", mac.ToString());
  for (const InterfaceAddress& ia : addresses) absl::StrAppend(&s, " ", ia.ToString());
  return s;
}

bool Interface::SameLink(const Interface& o) const {
  return index == o.index && name == o.name && enabled == o.enabled && carrier == o.carrier &&
         mtu == o.mtu && mac == o.mac;
}

std::string_view InterfaceEventKindName(InterfaceEventKind kind) {
  switch (kind) {
    case InterfaceEventKind::kInterfaceAdded:
      return "interface_added";
    case InterfaceEventKind::kInterfaceChanged:
      return "interface_changed";
    case InterfaceEventKind::kInterfaceRemoved:
      return "interface_removed";
    case InterfaceEventKind::kAddressAdded:
      return "address_added";
    case InterfaceEventKind::kAddressRemoved:
      return "address_removed";
  }
  return "?";
}

std::string InterfaceEvent::ToString() const {
  std::string s = absl::StrCat(std::string(InterfaceEventKindName(kind)), " ", interface.name);
  if (kind == InterfaceEventKind::kAddressAdded || kind == InterfaceEventKind::kAddressRemoved) {
    absl::StrAppend(&s, " ", address.ToString());
  } else if (kind == InterfaceEventKind::kInterfaceChanged) {
    absl::StrAppend(&s, interface.enabled ? " enabled" : " disabled",
                    interface.carrier ? " carrier" : " no-carrier", " mtu ", interface.mtu);
  }
  return s;
}

}  // namespace sluice::fea
