#include "fea/dummy_ifmgr.h"

#include "absl/strings/str_format.h"
#include "base/status_macros.h"

namespace sluice::fea {

namespace {

absl::Status CheckName(std::string_view name) {
  bool ok = !name.empty() && name.size() <= 15;
  for (char c : name) {
    ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '_' || c == '.' || c == '-');
  }
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "invalid interface name \"%s\": use 1 to 15 of the characters A-Z a-z 0-9 _ . -", name));
  }
  return absl::OkStatus();
}

absl::Status CheckMtu(std::string_view name, uint32_t mtu) {
  if (mtu < 68 || mtu > 65536) {
    return absl::InvalidArgumentError(
        absl::StrFormat("interface %s: MTU %u out of range 68..65536", name, mtu));
  }
  return absl::OkStatus();
}

bool IsMulticast(const net::IPAddress& a) {
  return a.is_v4() ? (a.v4().value() >> 28) == 0xe : (a.v6().hi() >> 56) == 0xff;
}

}  // namespace

DummyIfMgr::DummyIfMgr(bool with_loopback) {
  if (!with_loopback) return;
  DummyInterfaceConfig lo;
  lo.name = "lo";
  lo.mtu = 65536;
  (void)AddInterface(lo);
  (void)AddAddress("lo", net::IPv4Address(0x7f000001), 8);
  (void)AddAddress("lo", net::IPv6Address(0, 1), 128);
}

absl::StatusOr<const Interface*> DummyIfMgr::Find(std::string_view name) const {
  const Interface* i = tree_.FindByName(name);
  if (i == nullptr) {
    return absl::NotFoundError(absl::StrFormat("no interface named \"%s\"", name));
  }
  return i;
}

absl::StatusOr<uint32_t> DummyIfMgr::AddInterface(const DummyInterfaceConfig& config) {
  RETURN_IF_ERROR(CheckName(config.name));
  RETURN_IF_ERROR(CheckMtu(config.name, config.mtu));
  if (tree_.FindByName(config.name) != nullptr) {
    return absl::AlreadyExistsError(
        absl::StrFormat("interface \"%s\" already exists", config.name));
  }
  Interface i;
  i.index = next_index_++;
  i.name = config.name;
  i.mtu = config.mtu;
  i.mac = config.mac;
  i.enabled = config.enabled;
  i.carrier = config.carrier;
  Publish(tree_.SetInterface(i));
  return i.index;
}

absl::Status DummyIfMgr::RemoveInterface(std::string_view name) {
  ASSIGN_OR_RETURN(const Interface* i, Find(name));
  Publish(tree_.RemoveInterface(i->index));
  return absl::OkStatus();
}

absl::Status DummyIfMgr::UpdateLink(std::string_view name,
                                    const std::function<void(Interface&)>& change) {
  ASSIGN_OR_RETURN(const Interface* i, Find(name));
  Interface updated = *i;
  change(updated);
  Publish(tree_.SetInterface(updated));
  return absl::OkStatus();
}

absl::Status DummyIfMgr::SetEnabled(std::string_view name, bool enabled) {
  return UpdateLink(name, [&](Interface& i) { i.enabled = enabled; });
}

absl::Status DummyIfMgr::SetCarrier(std::string_view name, bool carrier) {
  return UpdateLink(name, [&](Interface& i) { i.carrier = carrier; });
}

absl::Status DummyIfMgr::SetMtu(std::string_view name, uint32_t mtu) {
  RETURN_IF_ERROR(CheckMtu(name, mtu));
  return UpdateLink(name, [&](Interface& i) { i.mtu = mtu; });
}

absl::Status DummyIfMgr::SetMac(std::string_view name, const MacAddress& mac) {
  return UpdateLink(name, [&](Interface& i) { i.mac = mac; });
}

absl::Status DummyIfMgr::AddAddress(std::string_view name, const net::IPAddress& address,
                                    int prefix_length) {
  ASSIGN_OR_RETURN(const Interface* i, Find(name));
  if (prefix_length < 0 || prefix_length > address.bits()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("interface %s: address %s/%d: prefix length out of range 0..%d", name,
                        address.ToString(), prefix_length, address.bits()));
  }
  if (address.is_unspecified() || IsMulticast(address)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "interface %s: %s cannot be an interface address", name, address.ToString()));
  }
  Publish(tree_.AddAddress(i->index, InterfaceAddress{address, prefix_length}));
  return absl::OkStatus();
}

absl::Status DummyIfMgr::RemoveAddress(std::string_view name, const net::IPAddress& address) {
  ASSIGN_OR_RETURN(const Interface* i, Find(name));
  std::vector<InterfaceEvent> events = tree_.RemoveAddress(i->index, address);
  if (events.empty()) {
    return absl::NotFoundError(
        absl::StrFormat("interface %s has no address %s", name, address.ToString()));
  }
  Publish(events);
  return absl::OkStatus();
}

}  // namespace sluice::fea
