#include "fea/service/fib_convert.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "ipc/types_convert.h"

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

PackedBatch::PackedBatch(const fea_fib::v1::ApplyBatchPackedRequest* request)
    : request_(request),
      family_(request->ipv6() ? net::Family::kIPv6 : net::Family::kIPv4),
      words_(ipc::AddressWords(family_)) {}

absl::StatusOr<PackedBatch> PackedBatch::Open(const fea_fib::v1::ApplyBatchPackedRequest& request) {
  PackedBatch batch(&request);
  const int n = request.lengths_size();
  auto column = [n](int size, int per_change, bool optional, const char* name) -> absl::Status {
    if ((optional && size == 0) || size == n * per_change) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat(name, " has ", size, " entries for ", n, " changes; FIB unchanged"));
  };
  RETURN_IF_ERROR(column(request.ops_size(), 1, false, "ops"));
  RETURN_IF_ERROR(column(request.networks_size(), batch.words_, false, "networks"));
  RETURN_IF_ERROR(column(request.gateways_size(), batch.words_, true, "gateways"));
  RETURN_IF_ERROR(column(request.metrics_size(), 1, true, "metrics"));
  RETURN_IF_ERROR(column(request.ifname_indexes_size(), 1, true, "ifname_indexes"));
  RETURN_IF_ERROR(column(request.protocol_indexes_size(), 1, true, "protocol_indexes"));
  const uint32_t max_length = static_cast<uint32_t>(net::AddressBits(batch.family_));
  const uint32_t ifnames = static_cast<uint32_t>(request.ifnames_size());
  const uint32_t protocols = static_cast<uint32_t>(request.protocols_size());
  for (int i = 0; i < n; ++i) {
    const char* bad = nullptr;
    if (request.lengths(i) > max_length) {
      bad = "prefix length out of range";
    } else if (request.ifname_indexes_size() > 0 && request.ifname_indexes(i) > ifnames) {
      bad = "ifname index past the ifnames";
    } else if (request.protocol_indexes_size() > 0 && request.protocol_indexes(i) > protocols) {
      bad = "protocol index past the protocols";
    }
    if (bad != nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("change #", i, " of the batch: ", bad, "; FIB unchanged"));
    }
  }
  return batch;
}

net::Prefix PackedBatch::network(int i) const {
  return net::Prefix(ipc::AddressFromWords(family_, request_->networks().data() + i * words_),
                     static_cast<int>(request_->lengths(i)));
}

FibRoute PackedBatch::route(int i) const {
  FibRoute out;
  out.prefix = network(i);
  Nexthop nh;
  if (request_->gateways_size() > 0) {
    net::IPAddress gateway =
        ipc::AddressFromWords(family_, request_->gateways().data() + i * words_);
    if (!gateway.is_unspecified()) nh.gateway = gateway;
  }
  if (request_->ifname_indexes_size() > 0 && request_->ifname_indexes(i) != 0) {
    nh.interface = request_->ifnames(static_cast<int>(request_->ifname_indexes(i)) - 1);
  }
  out.nexthops.push_back(std::move(nh));
  if (request_->metrics_size() > 0) out.metric = request_->metrics(i);
  if (request_->protocol_indexes_size() > 0 && request_->protocol_indexes(i) != 0) {
    out.protocol = request_->protocols(static_cast<int>(request_->protocol_indexes(i)) - 1);
  }
  return out;
}

fea_fib::v1::CommitTransactionReply CommitReply(const CommitResult& result, uint32_t not_found) {
  fea_fib::v1::CommitTransactionReply reply;
  reply.set_added(static_cast<uint32_t>(result.added));
  reply.set_replaced(static_cast<uint32_t>(result.replaced));
  reply.set_deleted(static_cast<uint32_t>(result.deleted));
  reply.set_not_found(not_found);
  return reply;
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
