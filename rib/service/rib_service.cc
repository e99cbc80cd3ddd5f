#include "rib/service/rib_service.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "ipc/methods/rib.h"
#include "ipc/proto/rib.pb.h"
#include "ipc/types_convert.h"
#include "rib/service/rib_convert.h"
#include "stage/route_arrival.h"

namespace sluice::rib {
namespace {

namespace pb = rib::v1;

using ipc::methods::rib::kAddRoute4;
using ipc::methods::rib::kAddRoute6;
using ipc::methods::rib::kAddRoutes;
using ipc::methods::rib::kAddRoutesPacked;
using ipc::methods::rib::kDeleteRoute4;
using ipc::methods::rib::kDeleteRoute6;
using ipc::methods::rib::kDeleteRoutes;
using ipc::methods::rib::kDeregisterInterest;
using ipc::methods::rib::kDeregisterProtocol;
using ipc::methods::rib::kEndOfRib;
using ipc::methods::rib::kGetAdminDistance;
using ipc::methods::rib::kListFeas;
using ipc::methods::rib::kListProtocols;
using ipc::methods::rib::kListRoutes;
using ipc::methods::rib::kLookupRouteByDest4;
using ipc::methods::rib::kLookupRouteByDest6;
using ipc::methods::rib::kLookupRouteByNetwork;
using ipc::methods::rib::kRedistSubscribe;
using ipc::methods::rib::kRedistUnsubscribe;
using ipc::methods::rib::kRegisterInterest;
using ipc::methods::rib::kRegisterProtocol;
using ipc::methods::rib::kReplaceRoute4;
using ipc::methods::rib::kReplaceRoute6;
using ipc::methods::rib::kReplaceRoutes;
using ipc::methods::rib::kSetAdminDistance;

constexpr uint32_t kDefaultPage = 1000;
constexpr uint32_t kMaxRestartTime = 86400;  // seconds
constexpr uint32_t kMaxPage = 100000;

pb::RoutesReply ToReply(const BatchResult& result) {
  pb::RoutesReply reply;
  reply.set_applied(static_cast<uint32_t>(result.applied));
  for (const net::Prefix& p : result.not_found) ipc::ToProto(p, reply.add_not_found());
  return reply;
}

pb::LookupRouteReply ToReply(const std::optional<RibRoute>& route) {
  pb::LookupRouteReply reply;
  if (route) {
    reply.set_found(true);
    RouteToProto(*route, reply.mutable_route());
  }
  return reply;
}

// Converts every route of a batch; the first bad one refuses the batch.
absl::StatusOr<std::vector<RouteInput>> Inputs(const pb::RoutesRequest& request) {
  std::vector<RouteInput> inputs;
  inputs.reserve(request.routes_size());
  for (int i = 0; i < request.routes_size(); ++i) {
    auto input = InputFromEntry(request.routes(i));
    if (!input.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "route #", i, " of the batch: ", input.status().message(), "; nothing applied"));
    }
    inputs.push_back(*std::move(input));
  }
  return inputs;
}

}  // namespace

RibService::RibService(ipc::XrlRouter& router, Rib& rib, RibClients& clients)
    : router_(router), rib_(rib), clients_(clients) {}

absl::Status RibService::Register() {
  RETURN_IF_ERROR(RegisterRoutes());
  RETURN_IF_ERROR(RegisterQueries());
  return RegisterClients();
}

absl::Status RibService::RegisterRoutes() {
  // One route per call (scripting): a batch of one.
  auto add_one = [this](const std::string& protocol, const ipc::Caller& caller,
                        absl::StatusOr<RouteInput> input,
                        bool replace) -> absl::StatusOr<pb::RouteReply> {
    RETURN_IF_ERROR(clients_.CheckWriter(protocol, caller));
    RETURN_IF_ERROR(input.status());
    std::span<const RouteInput> one(&*input, 1);
    ASSIGN_OR_RETURN(BatchResult result,
                     replace ? rib_.ReplaceRoutes(protocol, one) : rib_.AddRoutes(protocol, one));
    pb::RouteReply reply;
    if (replace) reply.set_found(result.not_found.empty());
    return reply;
  };
  auto delete_one = [this](const std::string& protocol, const ipc::Caller& caller,
                           absl::StatusOr<net::Prefix> prefix) -> absl::StatusOr<pb::RouteReply> {
    RETURN_IF_ERROR(clients_.CheckWriter(protocol, caller));
    RETURN_IF_ERROR(prefix.status());
    ASSIGN_OR_RETURN(BatchResult result,
                     rib_.DeleteRoutes(protocol, std::span<const net::Prefix>(&*prefix, 1)));
    pb::RouteReply reply;
    reply.set_found(result.not_found.empty());
    return reply;
  };
  RETURN_IF_ERROR(router_.Handle(kAddRoute4,
                                 [add_one](const pb::AddRoute4Request& r, const ipc::Caller& caller)
                                     -> absl::StatusOr<pb::RouteReply> {
                                   return add_one(r.protocol(), caller, InputFromRequest(r), false);
                                 }));
  RETURN_IF_ERROR(router_.Handle(kAddRoute6,
                                 [add_one](const pb::AddRoute6Request& r, const ipc::Caller& caller)
                                     -> absl::StatusOr<pb::RouteReply> {
                                   return add_one(r.protocol(), caller, InputFromRequest(r), false);
                                 }));
  RETURN_IF_ERROR(router_.Handle(kReplaceRoute4,
                                 [add_one](const pb::AddRoute4Request& r, const ipc::Caller& caller)
                                     -> absl::StatusOr<pb::RouteReply> {
                                   return add_one(r.protocol(), caller, InputFromRequest(r), true);
                                 }));
  RETURN_IF_ERROR(router_.Handle(kReplaceRoute6,
                                 [add_one](const pb::AddRoute6Request& r, const ipc::Caller& caller)
                                     -> absl::StatusOr<pb::RouteReply> {
                                   return add_one(r.protocol(), caller, InputFromRequest(r), true);
                                 }));
  RETURN_IF_ERROR(
      router_.Handle(kDeleteRoute4,
                     [delete_one](const pb::DeleteRoute4Request& r,
                                  const ipc::Caller& caller) -> absl::StatusOr<pb::RouteReply> {
                       return delete_one(r.protocol(), caller, ipc::FromProto(r.network()));
                     }));
  RETURN_IF_ERROR(
      router_.Handle(kDeleteRoute6,
                     [delete_one](const pb::DeleteRoute6Request& r,
                                  const ipc::Caller& caller) -> absl::StatusOr<pb::RouteReply> {
                       return delete_one(r.protocol(), caller, ipc::FromProto(r.network()));
                     }));

  // Batches (protocols).
  RETURN_IF_ERROR(
      router_.Handle(kAddRoutes,
                     [this](const pb::RoutesRequest& r,
                            const ipc::Caller& caller) -> absl::StatusOr<pb::RoutesReply> {
                       RETURN_IF_ERROR(clients_.CheckWriter(r.protocol(), caller));
                       ASSIGN_OR_RETURN(std::vector<RouteInput> inputs, Inputs(r));
                       stage::ArrivalScope arrival(static_cast<int64_t>(r.arrival_ns()));
                       ASSIGN_OR_RETURN(BatchResult result, rib_.AddRoutes(r.protocol(), inputs));
                       return ToReply(result);
                     }));
  RETURN_IF_ERROR(
      router_.Handle(kAddRoutesPacked,
                     [this](const pb::AddRoutesPackedRequest& r,
                            const ipc::Caller& caller) -> absl::StatusOr<pb::RoutesReply> {
                       RETURN_IF_ERROR(clients_.CheckWriter(r.protocol(), caller));
                       ASSIGN_OR_RETURN(std::vector<RouteInput> inputs, InputsFromPacked(r));
                       stage::ArrivalScope arrival(static_cast<int64_t>(r.arrival_ns()));
                       ASSIGN_OR_RETURN(BatchResult result, rib_.AddRoutes(r.protocol(), inputs));
                       return ToReply(result);
                     }));
  RETURN_IF_ERROR(router_.Handle(
      kReplaceRoutes,
      [this](const pb::RoutesRequest& r,
             const ipc::Caller& caller) -> absl::StatusOr<pb::RoutesReply> {
        RETURN_IF_ERROR(clients_.CheckWriter(r.protocol(), caller));
        ASSIGN_OR_RETURN(std::vector<RouteInput> inputs, Inputs(r));
        stage::ArrivalScope arrival(static_cast<int64_t>(r.arrival_ns()));
        ASSIGN_OR_RETURN(BatchResult result, rib_.ReplaceRoutes(r.protocol(), inputs));
        return ToReply(result);
      }));
  return router_.Handle(
      kDeleteRoutes,
      [this](const pb::DeleteRoutesRequest& r,
             const ipc::Caller& caller) -> absl::StatusOr<pb::RoutesReply> {
        RETURN_IF_ERROR(clients_.CheckWriter(r.protocol(), caller));
        std::vector<net::Prefix> prefixes;
        prefixes.reserve(r.networks_size());
        for (int i = 0; i < r.networks_size(); ++i) {
          auto prefix = ipc::FromProto(r.networks(i));
          if (!prefix.ok()) {
            return absl::InvalidArgumentError(absl::StrCat(
                "network #", i, " of the batch: ", prefix.status().message(), "; nothing applied"));
          }
          prefixes.push_back(*prefix);
        }
        stage::ArrivalScope arrival(static_cast<int64_t>(r.arrival_ns()));
        ASSIGN_OR_RETURN(BatchResult result, rib_.DeleteRoutes(r.protocol(), prefixes));
        return ToReply(result);
      });
}

absl::Status RibService::RegisterQueries() {
  RETURN_IF_ERROR(router_.Handle(
      kLookupRouteByDest4,
      [this](const pb::LookupRouteByDest4Request& r) -> absl::StatusOr<pb::LookupRouteReply> {
        return ToReply(rib_.LookupDestination(net::IPAddress(ipc::FromProto(r.dest()))));
      }));
  RETURN_IF_ERROR(router_.Handle(
      kLookupRouteByDest6,
      [this](const pb::LookupRouteByDest6Request& r) -> absl::StatusOr<pb::LookupRouteReply> {
        return ToReply(rib_.LookupDestination(net::IPAddress(ipc::FromProto(r.dest()))));
      }));
  RETURN_IF_ERROR(router_.Handle(
      kLookupRouteByNetwork,
      [this](const pb::LookupRouteByNetworkRequest& r) -> absl::StatusOr<pb::LookupRouteReply> {
        ASSIGN_OR_RETURN(net::Prefix prefix, ipc::FromProto(r.network()));
        return ToReply(rib_.LookupPrefix(prefix));
      }));
  RETURN_IF_ERROR(router_.Handle(
      kListRoutes, [this](const pb::ListRoutesRequest& r) -> absl::StatusOr<pb::ListRoutesReply> {
        net::Family family = net::Family::kIPv4;
        if (r.family() == "ipv6") {
          family = net::Family::kIPv6;
        } else if (!r.family().empty() && r.family() != "ipv4") {
          return absl::InvalidArgumentError(
              absl::StrCat("family \"", r.family(), "\": want ipv4 or ipv6"));
        }
        std::optional<net::Prefix> after;
        if (r.has_start_after()) {
          ASSIGN_OR_RETURN(after, ipc::FromProto(r.start_after()));
        }
        const size_t page = r.max_routes() == 0 ? kDefaultPage : std::min(r.max_routes(), kMaxPage);
        std::vector<RibRoute> routes;
        if (r.protocol().empty()) {
          routes = rib_.ListRoutes(family, after, page + 1);
        } else {
          ASSIGN_OR_RETURN(routes, rib_.ListProtocolRoutes(r.protocol(), family, after, page + 1));
        }
        pb::ListRoutesReply reply;
        if (routes.size() > page) {
          routes.resize(page);
          reply.set_more(true);
        }
        for (const RibRoute& route : routes) RouteToProto(route, reply.add_routes());
        return reply;
      }));
  RETURN_IF_ERROR(router_.Handle(
      kGetAdminDistance,
      [this](const pb::GetAdminDistanceRequest& r) -> absl::StatusOr<pb::GetAdminDistanceReply> {
        ASSIGN_OR_RETURN(uint16_t distance, rib_.GetAdminDistance(r.protocol()));
        pb::GetAdminDistanceReply reply;
        reply.set_admin_distance(distance);
        return reply;
      }));
  RETURN_IF_ERROR(router_.Handle(
      kSetAdminDistance,
      [this](const pb::SetAdminDistanceRequest& r) -> absl::StatusOr<pb::SetAdminDistanceReply> {
        if (r.admin_distance() > kMaxAdminDistance) {
          return absl::InvalidArgumentError(absl::StrCat("admin distance ", r.admin_distance(),
                                                         " for ", r.protocol(), ": the most is ",
                                                         kMaxAdminDistance));
        }
        RETURN_IF_ERROR(
            rib_.SetAdminDistance(r.protocol(), static_cast<uint16_t>(r.admin_distance())));
        return pb::SetAdminDistanceReply();
      }));
  RETURN_IF_ERROR(router_.Handle(
      kListFeas, [this](const pb::ListFeasRequest&) -> absl::StatusOr<pb::ListFeasReply> {
        pb::ListFeasReply reply;
        for (const FeaState& state : rib_.FeaStates()) {
          pb::FeaFeed* f = reply.add_feas();
          f->set_fea(state.name);
          f->set_up(state.up);
          f->set_lagging(state.lagging);
          f->set_resyncing(state.resyncing);
          f->set_queued(state.queued);
          f->set_in_flight(state.in_flight);
          f->set_full_pushes(state.full_pushes);
          f->set_lagged(state.lagged);
          f->set_batches_failed(state.batches_failed);
          f->set_interfaces_known(state.interfaces_known);
        }
        return reply;
      }));
  return router_.Handle(
      kListProtocols,
      [this](const pb::ListProtocolsRequest&) -> absl::StatusOr<pb::ListProtocolsReply> {
        pb::ListProtocolsReply reply;
        for (const ProtocolInfo& info : rib_.Protocols()) {
          pb::ProtocolInfo* p = reply.add_protocols();
          p->set_protocol(info.name);
          p->set_igp(info.protocol_class == ProtocolClass::kIgp);
          p->set_admin_distance(info.admin_distance);
          p->set_routes(info.routes_v4 + info.routes_v6);
          p->set_routes_ipv4(info.routes_v4);
          p->set_routes_ipv6(info.routes_v6);
          p->set_owner(clients_.OwnerOf(info.name));
        }
        return reply;
      });
}

absl::Status RibService::RegisterClients() {
  RETURN_IF_ERROR(router_.Handle(
      kRegisterProtocol,
      [this](const pb::RegisterProtocolRequest& r,
             const ipc::Caller& caller) -> absl::StatusOr<pb::RegisterProtocolReply> {
        if (r.restart_time() > kMaxRestartTime) {
          return absl::InvalidArgumentError(absl::StrCat("restart_time ", r.restart_time(),
                                                         ": the most is ", kMaxRestartTime, " s"));
        }
        ASSIGN_OR_RETURN(size_t stale,
                         clients_.RegisterProtocol(r.protocol(), caller, r.target(),
                                                   std::chrono::seconds(r.restart_time()),
                                                   r.resync(), r.incarnation()));
        pb::RegisterProtocolReply reply;
        reply.set_stale_routes(static_cast<uint32_t>(stale));
        return reply;
      }));
  RETURN_IF_ERROR(router_.Handle(
      kDeregisterProtocol,
      [this](const pb::DeregisterProtocolRequest& r,
             const ipc::Caller& caller) -> absl::StatusOr<pb::DeregisterProtocolReply> {
        RETURN_IF_ERROR(clients_.DeregisterProtocol(r.protocol(), caller));
        return pb::DeregisterProtocolReply();
      }));
  RETURN_IF_ERROR(router_.Handle(kEndOfRib,
                                 [this](const pb::EndOfRibRequest& r, const ipc::Caller& caller)
                                     -> absl::StatusOr<pb::EndOfRibReply> {
                                   RETURN_IF_ERROR(clients_.CheckWriter(r.protocol(), caller));
                                   ASSIGN_OR_RETURN(size_t swept, rib_.EndOfRib(r.protocol()));
                                   pb::EndOfRibReply reply;
                                   reply.set_swept(static_cast<uint32_t>(swept));
                                   return reply;
                                 }));
  auto register_interest =
      [this](const pb::RegisterInterestRequest& r,
             const ipc::Caller& caller) -> absl::StatusOr<pb::RegisterInterestReply> {
    ASSIGN_OR_RETURN(std::string client,
                     ipc::CallerAsTarget("register_interest", r.client(), caller));
    ASSIGN_OR_RETURN(net::IPAddress address, ipc::FromProto(r.address()));
    ASSIGN_OR_RETURN(InterestAnswer answer, clients_.RegisterInterest(client, address));
    pb::RegisterInterestReply reply;
    AnswerToProto(answer, &reply);
    return reply;
  };
  RETURN_IF_ERROR(router_.HandleAsync(
      kRegisterInterest,
      [this, register_interest](const pb::RegisterInterestRequest& r, const ipc::Caller& caller,
                                ipc::Responder<pb::RegisterInterestReply> responder) {
        auto answer = [register_interest, r, caller,
                       responder = std::make_shared<ipc::Responder<pb::RegisterInterestReply>>(
                           std::move(responder))] {
          absl::StatusOr<pb::RegisterInterestReply> reply = register_interest(r, caller);
          if (!reply.ok()) return responder->Fail(reply.status());
          *responder->reply() = std::move(*reply);
          responder->Finish(absl::OkStatus());
        };
        if (gate_ == nullptr) return answer();
        gate_->WhenIgpReady(std::move(answer));
      }));
  RETURN_IF_ERROR(router_.Handle(
      kDeregisterInterest,
      [this](const pb::DeregisterInterestRequest& r,
             const ipc::Caller& caller) -> absl::StatusOr<pb::DeregisterInterestReply> {
        ASSIGN_OR_RETURN(std::string client,
                         ipc::CallerAsTarget("deregister_interest", r.client(), caller));
        ASSIGN_OR_RETURN(net::Prefix subnet, ipc::FromProto(r.valid_subnet()));
        RETURN_IF_ERROR(clients_.DeregisterInterest(client, subnet));
        return pb::DeregisterInterestReply();
      }));
  RETURN_IF_ERROR(router_.Handle(
      kRedistSubscribe,
      [this](const pb::RedistSubscribeRequest& r,
             const ipc::Caller& caller) -> absl::StatusOr<pb::RedistSubscribeReply> {
        ASSIGN_OR_RETURN(std::string target,
                         ipc::CallerAsTarget("redist_subscribe", r.target(), caller));
        RETURN_IF_ERROR(clients_.RedistSubscribe(target, r.family(), r.protocol()));
        return pb::RedistSubscribeReply();
      }));
  return router_.Handle(
      kRedistUnsubscribe,
      [this](const pb::RedistSubscribeRequest& r,
             const ipc::Caller& caller) -> absl::StatusOr<pb::RedistSubscribeReply> {
        ASSIGN_OR_RETURN(std::string target,
                         ipc::CallerAsTarget("redist_unsubscribe", r.target(), caller));
        RETURN_IF_ERROR(clients_.RedistUnsubscribe(target, r.family(), r.protocol()));
        return pb::RedistSubscribeReply();
      });
}

}  // namespace sluice::rib
