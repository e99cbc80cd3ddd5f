#include "rib/service/rib_convert.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "ipc/types_convert.h"

namespace sluice::rib {
namespace {

absl::Status Field(const absl::Status& status, const char* field) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", status.message()));
}

std::optional<net::IPAddress> Specified(const net::IPAddress& a) {
  if (a.is_unspecified()) return std::nullopt;
  return a;
}

}  // namespace

absl::StatusOr<RouteInput> InputFromRequest(const rib::v1::AddRoute4Request& request) {
  RouteInput in;
  auto network = ipc::FromProto(request.network());
  if (!network.ok()) return Field(network.status(), "network");
  in.network = *network;
  if (request.has_nexthop())
    in.nexthop = Specified(net::IPAddress(ipc::FromProto(request.nexthop())));
  in.ifname = request.ifname();
  in.metric = request.metric();
  if (request.tag() != 0) in.tags.push_back(request.tag());
  return in;
}

absl::StatusOr<RouteInput> InputFromRequest(const rib::v1::AddRoute6Request& request) {
  RouteInput in;
  auto network = ipc::FromProto(request.network());
  if (!network.ok()) return Field(network.status(), "network");
  in.network = *network;
  if (request.has_nexthop())
    in.nexthop = Specified(net::IPAddress(ipc::FromProto(request.nexthop())));
  in.ifname = request.ifname();
  in.metric = request.metric();
  if (request.tag() != 0) in.tags.push_back(request.tag());
  return in;
}

absl::StatusOr<RouteInput> InputFromEntry(const rib::v1::RouteEntry& entry) {
  RouteInput in;
  auto network = ipc::FromProto(entry.network());
  if (!network.ok()) return Field(network.status(), "network");
  in.network = *network;
  if (entry.has_nexthop()) {
    auto nexthop = ipc::FromProto(entry.nexthop());
    if (!nexthop.ok()) return Field(nexthop.status(), "nexthop");
    in.nexthop = Specified(*nexthop);
  }
  in.ifname = entry.ifname();
  in.metric = entry.metric();
  in.tags.assign(entry.tags().begin(), entry.tags().end());
  return in;
}

absl::StatusOr<std::vector<RouteInput>> InputsFromPacked(
    const rib::v1::AddRoutesPackedRequest& request) {
  const net::Family family = request.ipv6() ? net::Family::kIPv6 : net::Family::kIPv4;
  const int words = ipc::AddressWords(family);
  const int n = request.lengths_size();
  auto column = [n](int size, int per_route, const char* name) -> absl::Status {
    if (size == 0 || size == n * per_route) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat(name, " has ", size, " entries for ", n, " routes; nothing applied"));
  };
  if (request.networks_size() != n * words) {
    return absl::InvalidArgumentError(absl::StrCat("networks has ", request.networks_size(),
                                                   " words for ", n, " routes; nothing applied"));
  }
  RETURN_IF_ERROR(column(request.nexthops_size(), words, "nexthops"));
  RETURN_IF_ERROR(column(request.metrics_size(), 1, "metrics"));
  RETURN_IF_ERROR(column(request.ifname_indexes_size(), 1, "ifname_indexes"));
  const uint32_t max_length = static_cast<uint32_t>(net::AddressBits(family));
  std::vector<RouteInput> inputs(n);
  for (int i = 0; i < n; ++i) {
    RouteInput& in = inputs[i];
    const uint32_t length = request.lengths(i);
    if (length > max_length) {
      return absl::InvalidArgumentError(absl::StrCat("route #", i, " of the batch: prefix length ",
                                                     length, " is more than ", max_length,
                                                     "; nothing applied"));
    }
    in.network = net::Prefix(ipc::AddressFromWords(family, request.networks().data() + i * words),
                             static_cast<int>(length));
    if (request.nexthops_size() > 0) {
      in.nexthop = Specified(ipc::AddressFromWords(family, request.nexthops().data() + i * words));
    }
    if (request.metrics_size() > 0) in.metric = request.metrics(i);
    if (request.ifname_indexes_size() > 0 && request.ifname_indexes(i) != 0) {
      const uint32_t index = request.ifname_indexes(i);
      if (index > static_cast<uint32_t>(request.ifnames_size())) {
        return absl::InvalidArgumentError(absl::StrCat("route #", i, " of the batch: ifname index ",
                                                       index, " past the ", request.ifnames_size(),
                                                       " ifnames; nothing applied"));
      }
      in.ifname = request.ifnames(static_cast<int>(index) - 1);
    }
  }
  return inputs;
}

void RouteToProto(const RibRoute& route, rib::v1::RibRoute* out) {
  ipc::ToProto(route.network, out->mutable_network());
  if (route.nexthop) ipc::ToProto(*route.nexthop, out->mutable_nexthop());
  if (!route.ifname.empty()) out->set_ifname(route.ifname.name());
  out->set_metric(route.metric);
  out->set_protocol(route.protocol.name());
  out->set_admin_distance(route.admin_distance);
  for (uint32_t tag : route.tags.tags()) out->add_tags(tag);
  if (route.resolved) {
    out->set_resolved(true);
    if (route.resolved->nexthop) {
      ipc::ToProto(*route.resolved->nexthop, out->mutable_resolved_nexthop());
    }
    if (!route.resolved->ifname.empty()) out->set_resolved_ifname(route.resolved->ifname.name());
    out->set_igp_metric(route.resolved->igp_metric);
  }
}

void AnswerToProto(const InterestAnswer& answer, rib::v1::RegisterInterestReply* out) {
  out->set_resolvable(answer.resolvable);
  ipc::ToProto(answer.valid_subnet, out->mutable_valid_subnet());
  if (answer.route) ipc::ToProto(answer.route->network, out->mutable_covering_network());
  if (answer.nexthop) ipc::ToProto(*answer.nexthop, out->mutable_nexthop());
  if (!answer.ifname.empty()) out->set_ifname(answer.ifname.name());
  out->set_metric(answer.metric);
  out->set_admin_distance(answer.admin_distance);
  if (!answer.protocol.empty()) out->set_protocol(answer.protocol.name());
}

void RedistChangeToProto(const RedistChange& change, rib_client::v1::RedistChange* out) {
  switch (change.op) {
    case RedistChange::Op::kAdd:
      out->set_op(rib_client::v1::RedistChange::ADD);
      break;
    case RedistChange::Op::kReplace:
      out->set_op(rib_client::v1::RedistChange::REPLACE);
      break;
    case RedistChange::Op::kDelete:
      out->set_op(rib_client::v1::RedistChange::DELETE);
      break;
  }
  RouteToProto(change.route, out->mutable_route());
}

void FibChangeToProto(const FibChange& change, fea_fib::v1::FibChange* out) {
  switch (change.op) {
    case FibChange::Op::kAdd:
      out->set_op(fea_fib::v1::FibChange::ADD);
      break;
    case FibChange::Op::kReplace:
      out->set_op(fea_fib::v1::FibChange::REPLACE);
      break;
    case FibChange::Op::kDelete:
      out->set_op(fea_fib::v1::FibChange::DELETE);
      break;
  }
  fea_fib::v1::FibRoute* route = out->mutable_route();
  ipc::ToProto(change.route.network, route->mutable_network());
  if (change.op == FibChange::Op::kDelete) return;  // the FEA needs only the network
  fea_fib::v1::Nexthop* nh = route->add_nexthops();
  if (change.route.nexthop) ipc::ToProto(*change.route.nexthop, nh->mutable_gateway());
  if (!change.route.ifname.empty()) nh->set_ifname(change.route.ifname.name());
  route->set_metric(change.route.metric);
  route->set_protocol(change.route.protocol.name());
}

}  // namespace sluice::rib

namespace sluice::rib {
namespace {

// The 1-based index of `symbol` in `table` (added when new); 0 for the empty symbol. A batch
// uses a handful of distinct names: `seen` caches symbol id -> index linearly.
uint32_t IndexOf(Symbol symbol, std::vector<std::pair<uint32_t, uint32_t>>& seen,
                 google::protobuf::RepeatedPtrField<std::string>* table) {
  if (symbol.empty()) return 0;
  for (const auto& [id, index] : seen) {
    if (id == symbol.id()) return index;
  }
  table->Add(std::string(symbol.name()));
  const uint32_t index = static_cast<uint32_t>(table->size());
  seen.emplace_back(symbol.id(), index);
  return index;
}

fea_fib::v1::FibChange::Op OpToProto(FibChange::Op op) {
  switch (op) {
    case FibChange::Op::kAdd:
      return fea_fib::v1::FibChange::ADD;
    case FibChange::Op::kReplace:
      return fea_fib::v1::FibChange::REPLACE;
    case FibChange::Op::kDelete:
      return fea_fib::v1::FibChange::DELETE;
  }
  return fea_fib::v1::FibChange::OP_UNSPECIFIED;
}

}  // namespace

void FibBatchToPacked(const FibBatch& batch, fea_fib::v1::ApplyBatchPackedRequest* out) {
  const net::Family family = batch.family;
  const int n = static_cast<int>(batch.changes.size());
  const int words = ipc::AddressWords(family);
  out->set_ipv6(family == net::Family::kIPv6);
  out->mutable_ops()->Reserve(n);
  out->mutable_lengths()->Reserve(n);
  out->mutable_networks()->Reserve(n * words);
  out->mutable_gateways()->Reserve(n * words);
  out->mutable_metrics()->Reserve(n);
  out->mutable_ifname_indexes()->Reserve(n);
  out->mutable_protocol_indexes()->Reserve(n);
  std::vector<std::pair<uint32_t, uint32_t>> ifnames, protocols;
  for (const FibChange& change : batch.changes) {
    const FibRoute& route = change.route;
    out->add_ops(OpToProto(change.op));
    out->add_lengths(static_cast<uint32_t>(route.network.length()));
    ipc::AppendWords(route.network.address(), out->mutable_networks());
    if (change.op == FibChange::Op::kDelete) {  // the FEA needs only the network
      ipc::AppendZeroWords(family, out->mutable_gateways());
      out->add_metrics(0);
      out->add_ifname_indexes(0);
      out->add_protocol_indexes(0);
      continue;
    }
    if (route.nexthop) {
      ipc::AppendWords(*route.nexthop, out->mutable_gateways());
    } else {
      ipc::AppendZeroWords(family, out->mutable_gateways());
    }
    out->add_metrics(route.metric);
    out->add_ifname_indexes(IndexOf(route.ifname, ifnames, out->mutable_ifnames()));
    out->add_protocol_indexes(IndexOf(route.protocol, protocols, out->mutable_protocols()));
  }
}

}  // namespace sluice::rib
