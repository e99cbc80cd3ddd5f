// FeaFibService's read-only handlers: lookups, list_routes and get_stats
// (fea/service/fea_fib_service.h).

#include <algorithm>
#include <optional>

#include "base/status_macros.h"
#include "fea/service/fea_fib_service.h"
#include "fea/service/fib_convert.h"
#include "ipc/methods/fea_fib.h"
#include "ipc/proto/fea_fib.pb.h"
#include "ipc/types_convert.h"

namespace sluice::fea {
namespace {

namespace pb = fea_fib::v1;

using ipc::methods::fea_fib::kGetStats;
using ipc::methods::fea_fib::kListRoutes;
using ipc::methods::fea_fib::kLookupRouteByDest4;
using ipc::methods::fea_fib::kLookupRouteByDest6;
using ipc::methods::fea_fib::kLookupRouteByNetwork;

constexpr uint32_t kDefaultPage = 1000;
constexpr uint32_t kMaxPage = 100000;

pb::LookupRouteReply LookupReply(const std::optional<FibRoute>& route) {
  pb::LookupRouteReply reply;
  if (route.has_value()) {
    reply.set_found(true);
    RouteToProto(*route, reply.mutable_route());
  }
  return reply;
}

// list_routes: a page of routes after `r.start_after`, in prefix order.
absl::StatusOr<pb::ListRoutesReply> ListRoutes(const Fib& fib, const pb::ListRoutesRequest& r) {
  std::optional<net::Prefix> after;
  if (r.has_start_after()) {
    ASSIGN_OR_RETURN(after, ipc::FromProto(r.start_after()));
  }
  const uint32_t page = r.max_routes() == 0 ? kDefaultPage : std::min(r.max_routes(), kMaxPage);
  pb::ListRoutesReply reply;
  fib.table().ForEach(std::nullopt, after, [&](const FibRoute& route) {
    if (after && route.prefix == *after) return true;
    if (static_cast<uint32_t>(reply.routes_size()) == page) {
      reply.set_more(true);
      return false;
    }
    RouteToProto(route, reply.add_routes());
    return true;
  });
  return reply;
}

// get_stats: route counts, refused changes and the route latency histogram.
pb::GetStatsReply Stats(const Fib& fib, const stage::LatencyHistogram& route_latency) {
  pb::GetStatsReply reply;
  reply.set_routes_ipv4(fib.table().size(net::Family::kIPv4));
  reply.set_routes_ipv6(fib.table().size(net::Family::kIPv6));
  reply.set_install_errors(fib.refused_changes());
  const stage::LatencyHistogram::Reading latency = route_latency.Read();
  pb::LatencyHistogram* h = reply.mutable_route_latency();
  for (size_t i = 0; i < latency.bounds_s.size(); ++i) {
    h->add_bounds_s(latency.bounds_s[i]);
    h->add_cumulative(latency.cumulative[i]);
  }
  h->set_count(latency.count);
  h->set_sum_s(latency.sum_s);
  return reply;
}

}  // namespace

absl::Status FeaFibService::RegisterQueries() {
  RETURN_IF_ERROR(router_.Handle(
      kLookupRouteByDest4,
      [this](const pb::LookupRouteByDest4Request& r) -> absl::StatusOr<pb::LookupRouteReply> {
        return LookupReply(fib_.LookupByDestination(net::IPAddress(ipc::FromProto(r.dest()))));
      }));
  RETURN_IF_ERROR(router_.Handle(
      kLookupRouteByDest6,
      [this](const pb::LookupRouteByDest6Request& r) -> absl::StatusOr<pb::LookupRouteReply> {
        return LookupReply(fib_.LookupByDestination(net::IPAddress(ipc::FromProto(r.dest()))));
      }));
  RETURN_IF_ERROR(router_.Handle(
      kLookupRouteByNetwork,
      [this](const pb::LookupRouteByNetworkRequest& r) -> absl::StatusOr<pb::LookupRouteReply> {
        ASSIGN_OR_RETURN(net::Prefix prefix, ipc::FromProto(r.network()));
        return LookupReply(fib_.LookupByPrefix(prefix));
      }));
  RETURN_IF_ERROR(router_.Handle(
      kListRoutes, [this](const pb::ListRoutesRequest& r) -> absl::StatusOr<pb::ListRoutesReply> {
        return ListRoutes(fib_, r);
      }));
  RETURN_IF_ERROR(router_.Handle(
      kGetStats, [this](const pb::GetStatsRequest&) -> absl::StatusOr<pb::GetStatsReply> {
        return Stats(fib_, route_latency_);
      }));
  return absl::OkStatus();
}

}  // namespace sluice::fea
