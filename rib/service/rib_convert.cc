#include "rib/service/rib_convert.h"

#include "absl/strings/str_cat.h"
#include "ipc/types_convert.h"
#include "net/status_macros.h"

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
