#include "fea/service/fib_convert.h"

#include "absl/strings/str_cat.h"
#include "ipc/types_convert.h"
#include "net/status_macros.h"

namespace sluice::fea {
namespace {

absl::Status Field(const absl::Status& status, std::string_view field) {
  return absl::InvalidArgumentError(absl::StrCat(std::string(field), ": ", status.message()));
}

}  // namespace

absl::StatusOr<FibRoute> RouteFromProto(const fea_fib::v1::FibRoute& route) {
  FibRoute out;
  auto prefix = ipc::FromProto(route.network());
  if (!prefix.ok()) return Field(prefix.status(), "network");
  out.prefix = *prefix;
  if (route.nexthops_size() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("route ", out.prefix.ToString(), ": no nexthops"));
  }
  out.nexthops.reserve(route.nexthops_size());
  for (const fea_fib::v1::Nexthop& nh : route.nexthops()) {
    Nexthop n;
    if (nh.has_gateway()) {
      auto gateway = ipc::FromProto(nh.gateway());
      if (!gateway.ok()) return Field(gateway.status(), "nexthops.gateway");
      if (!gateway->is_unspecified()) n.gateway = *gateway;
    }
    n.interface = nh.ifname();
    n.onlink = nh.onlink();
    if (nh.weight() > 256) {
      return absl::InvalidArgumentError(absl::StrCat("route ", out.prefix.ToString(), ": weight ",
                                                     nh.weight(), " out of range 1..256"));
    }
    n.weight = nh.weight() == 0 ? 1 : static_cast<uint16_t>(nh.weight());
    out.nexthops.push_back(std::move(n));
  }
  out.metric = route.metric();
  out.protocol = route.protocol();
  return out;
}

void RouteToProto(const FibRoute& route, fea_fib::v1::FibRoute* out) {
  ipc::ToProto(route.prefix, out->mutable_network());
  for (const Nexthop& nh : route.nexthops) {
    fea_fib::v1::Nexthop* n = out->add_nexthops();
    if (nh.gateway) ipc::ToProto(*nh.gateway, n->mutable_gateway());
    n->set_ifname(nh.interface);
    n->set_onlink(nh.onlink);
    if (nh.weight != 1) n->set_weight(nh.weight);
  }
  out->set_metric(route.metric);
  out->set_protocol(route.protocol);
}

absl::StatusOr<FibRoute> RouteFromRequest(const fea_fib::v1::AddRoute4Request& request) {
  FibRoute out;
  ASSIGN_OR_RETURN(out.prefix, ipc::FromProto(request.network()));
  Nexthop nh;
  if (request.has_nexthop()) {
    net::IPv4Address gateway = ipc::FromProto(request.nexthop());
    if (gateway.value() != 0) nh.gateway = net::IPAddress(gateway);
  }
  nh.interface = request.ifname();
  out.nexthops.push_back(std::move(nh));
  out.metric = request.metric();
  out.protocol = request.protocol();
  return out;
}

absl::StatusOr<FibRoute> RouteFromRequest(const fea_fib::v1::AddRoute6Request& request) {
  FibRoute out;
  ASSIGN_OR_RETURN(out.prefix, ipc::FromProto(request.network()));
  Nexthop nh;
  if (request.has_nexthop()) {
    net::IPv6Address gateway = ipc::FromProto(request.nexthop());
    if (!net::IPAddress(gateway).is_unspecified()) nh.gateway = net::IPAddress(gateway);
  }
  nh.interface = request.ifname();
  out.nexthops.push_back(std::move(nh));
  out.metric = request.metric();
  out.protocol = request.protocol();
  return out;
}

void ChangeToProto(const FibChange& change, fea_fib::v1::FibChange* out) {
  switch (change.kind) {
    case FibOpKind::kAdd:
      out->set_op(fea_fib::v1::FibChange::ADD);
      break;
    case FibOpKind::kReplace:
      out->set_op(fea_fib::v1::FibChange::REPLACE);
      break;
    case FibOpKind::kDelete:
      out->set_op(fea_fib::v1::FibChange::DELETE);
      break;
  }
  RouteToProto(change.route, out->mutable_route());
}

void AddressToProto(const InterfaceAddress& address, fea_ifmgr::v1::InterfaceAddress* out) {
  ipc::ToProto(address.address, out->mutable_address());
  out->set_prefix_length(static_cast<uint32_t>(address.prefix_length));
}

void InterfaceToProto(const Interface& interface, bool with_addresses,
                      fea_ifmgr::v1::Interface* out) {
  out->set_name(interface.name);
  out->set_index(interface.index);
  out->set_enabled(interface.enabled);
  out->set_carrier(interface.carrier);
  out->set_mtu(interface.mtu);
  uint64_t mac = 0;
  for (uint8_t octet : interface.mac.octets()) mac = (mac << 8) | octet;
  if (mac != 0) out->mutable_mac()->set_address(mac);
  if (!with_addresses) return;
  for (const InterfaceAddress& a : interface.addresses) AddressToProto(a, out->add_addresses());
}

void EventToProto(const InterfaceEvent& event, fea_ifmgr_client::v1::InterfaceEvent* out) {
  using Kind = fea_ifmgr_client::v1::InterfaceEvent;
  switch (event.kind) {
    case InterfaceEventKind::kInterfaceAdded:
    case InterfaceEventKind::kInterfaceChanged:
      out->set_kind(Kind::INTERFACE_ADDED);
      break;
    case InterfaceEventKind::kInterfaceRemoved:
      out->set_kind(Kind::INTERFACE_REMOVED);
      break;
    case InterfaceEventKind::kAddressAdded:
      out->set_kind(Kind::ADDRESS_ADDED);
      break;
    case InterfaceEventKind::kAddressRemoved:
      out->set_kind(Kind::ADDRESS_REMOVED);
      break;
  }
  InterfaceToProto(event.interface, /*with_addresses=*/false, out->mutable_interface());
  if (event.kind == InterfaceEventKind::kAddressAdded ||
      event.kind == InterfaceEventKind::kAddressRemoved) {
    AddressToProto(event.address, out->mutable_address());
  }
}

}  // namespace sluice::fea
