#include "static_routes/static_xrl.h"

#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/lost_call.h"
#include "base/status_macros.h"
#include "ipc/method.h"
#include "ipc/methods/rib.h"
#include "ipc/methods/rib_client.h"
#include "ipc/methods/static_routes.h"
#include "ipc/proto/rib.pb.h"
#include "ipc/proto/rib_client.pb.h"
#include "ipc/proto/static_routes.pb.h"
#include "ipc/types_convert.h"

namespace sluice::static_routes {

namespace {

namespace rib_v1 = ::sluice::rib::v1;
namespace client_v1 = ::sluice::rib_client::v1;
namespace v1 = ::sluice::static_routes::v1;

constexpr char kProtocol[] = "static";

// rib/1.0, called.
using ipc::methods::rib::kAddRoute4;
using ipc::methods::rib::kAddRoute6;
using ipc::methods::rib::kDeleteRoute4;
using ipc::methods::rib::kDeleteRoute6;
using ipc::methods::rib::kDeregisterInterest;
using ipc::methods::rib::kDeregisterProtocol;
using ipc::methods::rib::kEndOfRib;
using ipc::methods::rib::kRegisterInterest;
using ipc::methods::rib::kRegisterProtocol;
// rib_client/1.0 and static_routes/1.0, served.
using ipc::methods::rib_client::kRedistRoutes;
using ipc::methods::rib_client::kRouteInfoInvalid;
using ipc::methods::static_routes::kAddRoute;
using ipc::methods::static_routes::kDeleteRoute;
using ipc::methods::static_routes::kListRoutes;
using ipc::methods::static_routes::kSynced;

}  // namespace

XrlRibClient::XrlRibClient(ipc::XrlRouter* router, std::string rib_target,
                           std::chrono::seconds restart_time)
    : router_(router), rib_target_(std::move(rib_target)), restart_time_(restart_time) {}

XrlRibClient::~XrlRibClient() { *alive_ = false; }

void XrlRibClient::Failed(uint64_t session, const absl::Status& status) {
  ++failed_calls_;
  if (IsLostCall(status) && session == session_ && on_lost_call_) on_lost_call_();
}

template <typename Reply>
std::function<void(absl::StatusOr<Reply>)> XrlRibClient::OnFailure(std::string what) {
  return [this, alive = std::weak_ptr<bool>(alive_), session = session_,
          what = std::move(what)](absl::StatusOr<Reply> reply) {
    auto live = alive.lock();
    if (!live || !*live || reply.ok()) return;
    SLUICE_LOG(kWarning) << "RIB: " << what << ": " << reply.status().message();
    Failed(session, reply.status());
  };
}

void XrlRibClient::RegisterProtocol(bool resync) {
  rib_v1::RegisterProtocolRequest r;
  r.set_protocol(kProtocol);
  r.set_target(router_->instance_name());
  r.set_restart_time(static_cast<uint32_t>(restart_time_.count()));
  r.set_resync(resync);
  r.set_incarnation(router_->incarnation());
  router_->Call(rib_target_, kRegisterProtocol, std::move(r),
                [failed = OnFailure<rib_v1::RegisterProtocolReply>("register_protocol"),
                 resync](absl::StatusOr<rib_v1::RegisterProtocolReply> reply) {
                  if (!reply.ok()) return failed(std::move(reply));
                  if (reply->stale_routes() > 0) {
                    SLUICE_LOG(kInfo)
                        << "RIB keeps " << reply->stale_routes() << " static routes "
                        << (resync ? "of ours" : "of our predecessor") << " until end-of-RIB";
                  }
                });
}

void XrlRibClient::EndOfRib() {
  end_of_rib_pending_ = true;
  MaybeEndOfRib();
}

void XrlRibClient::MaybeEndOfRib() {
  if (!end_of_rib_pending_ || asking_ > 0) return;
  end_of_rib_pending_ = false;
  rib_v1::EndOfRibRequest r;
  r.set_protocol(kProtocol);
  // On the ordered stream, after every add sent so far.
  router_->Call(rib_target_, kEndOfRib, std::move(r),
                [failed = OnFailure<rib_v1::EndOfRibReply>("end_of_rib")](
                    absl::StatusOr<rib_v1::EndOfRibReply> reply) {
                  if (!reply.ok()) {
                    failed(std::move(reply));
                  } else if (reply->swept() > 0) {
                    SLUICE_LOG(kInfo) << "RIB withdraws " << reply->swept()
                                      << " static routes no longer configured";
                  }
                });
}

void XrlRibClient::DeregisterProtocol(std::function<void()> done) {
  rib_v1::DeregisterProtocolRequest r;
  r.set_protocol(kProtocol);
  router_->Call(rib_target_, kDeregisterProtocol, std::move(r),
                [done = std::move(done)](absl::StatusOr<rib_v1::DeregisterProtocolReply> reply) {
                  if (!reply.ok()) {
                    SLUICE_LOG(kWarning)
                        << "RIB: deregister_protocol: " << reply.status().message();
                  }
                  done();
                });
}

void XrlRibClient::Add(const StaticRoute& route) {
  auto done = OnFailure<rib_v1::RouteReply>("add " + route.ToString());
  if (route.network.is_v4()) {
    rib_v1::AddRoute4Request r;
    r.set_protocol(kProtocol);
    ipc::ToProto(route.network, r.mutable_network());
    if (route.nexthop) ipc::ToProto(route.nexthop->v4(), r.mutable_nexthop());
    r.set_ifname(route.ifname);
    r.set_metric(route.metric);
    r.set_tag(route.tag);
    router_->Call(rib_target_, kAddRoute4, std::move(r), std::move(done));
  } else {
    rib_v1::AddRoute6Request r;
    r.set_protocol(kProtocol);
    ipc::ToProto(route.network, r.mutable_network());
    if (route.nexthop) ipc::ToProto(route.nexthop->v6(), r.mutable_nexthop());
    r.set_ifname(route.ifname);
    r.set_metric(route.metric);
    r.set_tag(route.tag);
    router_->Call(rib_target_, kAddRoute6, std::move(r), std::move(done));
  }
}

void XrlRibClient::Delete(const net::Prefix& network) {
  // Absent already (NotFound): nothing to do; lost: the re-synchronisation sweeps it.
  auto failed = OnFailure<rib_v1::RouteReply>("delete " + network.ToString());
  auto done = [failed](absl::StatusOr<rib_v1::RouteReply> reply) {
    if (reply.status().code() != absl::StatusCode::kNotFound) failed(std::move(reply));
  };
  if (network.is_v4()) {
    rib_v1::DeleteRoute4Request r;
    r.set_protocol(kProtocol);
    ipc::ToProto(network, r.mutable_network());
    router_->Call(rib_target_, kDeleteRoute4, std::move(r), done);
  } else {
    rib_v1::DeleteRoute6Request r;
    r.set_protocol(kProtocol);
    ipc::ToProto(network, r.mutable_network());
    router_->Call(rib_target_, kDeleteRoute6, std::move(r), done);
  }
}

void XrlRibClient::Register(const net::IPAddress& nexthop, Answer answer) {
  rib_v1::RegisterInterestRequest r;
  r.set_client(router_->instance_name());
  ipc::ToProto(nexthop, r.mutable_address());
  ++asking_;
  router_->Call(rib_target_, kRegisterInterest, std::move(r),
                [this, alive = std::weak_ptr<bool>(alive_), nexthop,
                 answer = std::move(answer)](absl::StatusOr<rib_v1::RegisterInterestReply> reply) {
                  auto live = alive.lock();
                  if (!live || !*live) return;
                  --asking_;
                  absl::Cleanup settle = [this] { MaybeEndOfRib(); };
                  if (!reply.ok()) return answer(reply.status());
                  Resolution res;
                  res.resolvable = reply->resolvable();
                  res.valid_subnet = net::Prefix(nexthop, nexthop.bits());
                  if (reply->has_valid_subnet()) {
                    absl::StatusOr<net::Prefix> subnet = ipc::FromProto(reply->valid_subnet());
                    if (subnet.ok() && subnet->Contains(nexthop)) res.valid_subnet = *subnet;
                  }
                  answer(res);
                });
}

void XrlRibClient::Deregister(const net::Prefix& valid_subnet) {
  rib_v1::DeregisterInterestRequest r;
  r.set_client(router_->instance_name());
  ipc::ToProto(valid_subnet, r.mutable_valid_subnet());
  router_->Call(rib_target_, kDeregisterInterest, std::move(r),
                [](absl::StatusOr<rib_v1::DeregisterInterestReply>) {});
}

absl::Status ServeStatic(ipc::XrlRouter& router, StaticRoutes& routes,
                         std::function<void()> on_synced) {
  RETURN_IF_ERROR(router.Handle(
      kSynced, [on_synced](const v1::SyncedRequest&) -> absl::StatusOr<v1::SyncedReply> {
        if (on_synced) on_synced();
        return v1::SyncedReply();
      }));
  RETURN_IF_ERROR(router.Handle(
      kAddRoute, [&routes](const v1::AddRouteRequest& r) -> absl::StatusOr<v1::AddRouteReply> {
        if (!r.has_network()) return absl::InvalidArgumentError("add_route: network is required");
        StaticRoute route;
        absl::StatusOr<net::Prefix> network = ipc::FromProto(r.network());
        if (!network.ok()) {
          return absl::InvalidArgumentError(
              absl::StrCat("add_route: network: ", network.status().message()));
        }
        route.network = *network;
        if (r.has_nexthop()) {
          absl::StatusOr<net::IPAddress> nexthop = ipc::FromProto(r.nexthop());
          if (!nexthop.ok()) {
            return absl::InvalidArgumentError(
                absl::StrCat("add_route: nexthop: ", nexthop.status().message()));
          }
          route.nexthop = *nexthop;
        }
        route.ifname = r.ifname();
        route.metric = r.metric();
        route.tag = r.tag();
        route.track = r.track();
        RETURN_IF_ERROR(routes.Add(route));
        return v1::AddRouteReply();
      }));
  RETURN_IF_ERROR(router.Handle(
      kDeleteRoute,
      [&routes](const v1::DeleteRouteRequest& r) -> absl::StatusOr<v1::DeleteRouteReply> {
        if (!r.has_network()) {
          return absl::InvalidArgumentError("delete_route: network is required");
        }
        absl::StatusOr<net::Prefix> network = ipc::FromProto(r.network());
        if (!network.ok()) {
          return absl::InvalidArgumentError(
              absl::StrCat("delete_route: network: ", network.status().message()));
        }
        RETURN_IF_ERROR(routes.Delete(*network));
        return v1::DeleteRouteReply();
      }));
  RETURN_IF_ERROR(router.Handle(
      kListRoutes, [&routes](const v1::ListRoutesRequest&) -> absl::StatusOr<v1::ListRoutesReply> {
        v1::ListRoutesReply reply;
        for (const StaticRoutes::RouteView& v : routes.List()) {
          v1::StaticRouteState* out = reply.add_routes();
          ipc::ToProto(v.route.network, out->mutable_network());
          if (v.route.nexthop) ipc::ToProto(*v.route.nexthop, out->mutable_nexthop());
          out->set_ifname(v.route.ifname);
          out->set_metric(v.route.metric);
          out->set_tag(v.route.tag);
          out->set_track(v.route.track);
          out->set_installed(v.installed);
          out->set_nexthop_state(StaticRoutes::StateName(v.nexthop_state));
        }
        return reply;
      }));
  RETURN_IF_ERROR(
      router.Handle(kRouteInfoInvalid,
                    [&routes](const client_v1::RouteInfoInvalidRequest& r)
                        -> absl::StatusOr<client_v1::RouteInfoInvalidReply> {
                      absl::StatusOr<net::Prefix> subnet = ipc::FromProto(r.valid_subnet());
                      if (!subnet.ok()) {
                        return absl::InvalidArgumentError(absl::StrCat(
                            "route_info_invalid: valid_subnet: ", subnet.status().message()));
                      }
                      routes.RouteInfoInvalid(*subnet);
                      return client_v1::RouteInfoInvalidReply();
                    }));
  RETURN_IF_ERROR(router.Handle(
      kRedistRoutes,
      [](const client_v1::RedistRoutesRequest&) -> absl::StatusOr<client_v1::RedistRoutesReply> {
        return absl::UnimplementedError("sluice-static subscribes to no redistribution");
      }));
  return absl::OkStatus();
}

}  // namespace sluice::static_routes
