#include "bgp/process/bgp_service.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "bgp/process/bgp_convert.h"
#include "ipc/methods/bgp.h"
#include "ipc/methods/policy_backend.h"
#include "ipc/methods/rib_client.h"
#include "ipc/types_convert.h"

namespace sluice::bgp::process {

namespace {

namespace rib_client_v1 = ::sluice::rib_client::v1;

using ipc::methods::bgp::kAddPeer;
using ipc::methods::bgp::kDisablePeer;
using ipc::methods::bgp::kEnablePeer;
using ipc::methods::bgp::kGetLocalConfig;
using ipc::methods::bgp::kGetPeer;
using ipc::methods::bgp::kGetRouteCandidates;
using ipc::methods::bgp::kListen;
using ipc::methods::bgp::kListPeers;
using ipc::methods::bgp::kListRoutes;
using ipc::methods::bgp::kOriginateRoute;
using ipc::methods::bgp::kRemovePeer;
using ipc::methods::bgp::kResetPeer;
using ipc::methods::bgp::kRouteRefresh;
using ipc::methods::bgp::kSetBgpId;
using ipc::methods::bgp::kSetClusterId;
using ipc::methods::bgp::kSetGracefulRestart;
using ipc::methods::bgp::kSetLocalAs;
using ipc::methods::bgp::kSetPeerExportPolicy;
using ipc::methods::bgp::kSetPeerImportPolicy;
using ipc::methods::bgp::kStopListening;
using ipc::methods::bgp::kWithdrawRoute;
using ipc::methods::rib_client::kRedistRoutes;
using ipc::methods::rib_client::kRouteInfoInvalid;

constexpr size_t kDefaultPage = 1000;
constexpr size_t kMaxPage = 100000;

// A required address field: InvalidArgument naming it when absent or malformed.
absl::StatusOr<net::IPAddress> Address(const char* method, const char* field, bool present,
                                       const types::v1::IPAddress& a) {
  if (!present) {
    return absl::InvalidArgumentError(absl::StrFormat("%s: %s is required", method, field));
  }
  absl::StatusOr<net::IPAddress> r = ipc::FromProto(a);
  if (!r.ok()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: %s: %s", method, field, r.status().message()));
  }
  return r;
}

absl::StatusOr<net::Prefix> Network(const char* method, const char* field, bool present,
                                    const types::v1::IPPrefix& p) {
  if (!present) {
    return absl::InvalidArgumentError(absl::StrFormat("%s: %s is required", method, field));
  }
  absl::StatusOr<net::Prefix> r = ipc::FromProto(p);
  if (!r.ok()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: %s: %s", method, field, r.status().message()));
  }
  return r;
}

// A handler for the five methods that take a peer's address.
template <typename Reply, typename Fn>
auto PeerHandler(const char* method, Fn fn) {
  return [method, fn](const v1::PeerRequest& r) -> absl::StatusOr<Reply> {
    ASSIGN_OR_RETURN(net::IPAddress a, Address(method, "address", r.has_address(), r.address()));
    return fn(a);
  };
}

absl::StatusOr<rpki::RpkiState> RpkiStateFromName(const char* method, const std::string& name) {
  for (rpki::RpkiState s :
       {rpki::RpkiState::kValid, rpki::RpkiState::kInvalid, rpki::RpkiState::kNotFound}) {
    if (name == rpki::RpkiStateName(s)) return s;
  }
  return absl::InvalidArgumentError(
      absl::StrCat(method, ": rpki: \"", name, "\" is not valid, invalid or not-found"));
}

// The query of a list_routes call; `q.max` is one more than the page, which tells whether another
// page follows.
absl::StatusOr<RouteQuery> ListRoutesQuery(const v1::ListRoutesRequest& r) {
  constexpr const char* m = "list_routes";
  RouteQuery q;
  switch (r.view()) {
    case v1::LOC_RIB:
      q.view = RibView::kLocRib;
      break;
    case v1::ADJ_RIB_IN:
      q.view = RibView::kAdjRibIn;
      break;
    case v1::ADJ_RIB_OUT:
      q.view = RibView::kAdjRibOut;
      break;
    default:
      return absl::InvalidArgumentError(absl::StrCat(m, ": unknown view ", int(r.view())));
  }
  absl::StatusOr<std::optional<AfiSafi>> family = FamilyFromText(r.family());
  if (!family.ok())
    return absl::InvalidArgumentError(absl::StrCat(m, ": ", family.status().message()));
  std::optional<net::Family> f;
  if (*family) f = (*family)->afi == Afi::kIPv6 ? net::Family::kIPv6 : net::Family::kIPv4;
  if (r.has_peer()) {
    ASSIGN_OR_RETURN(q.peer, Address(m, "peer", true, r.peer()));
  }
  if (r.has_prefix()) {
    ASSIGN_OR_RETURN(q.prefix, Network(m, "prefix", true, r.prefix()));
  }
  if (r.has_within()) {
    ASSIGN_OR_RETURN(q.within, Network(m, "within", true, r.within()));
  }
  if (r.has_start_after()) {
    ASSIGN_OR_RETURN(q.after, Network(m, "start_after", true, r.start_after()));
  }
  for (const std::optional<net::Prefix>* p : {&q.prefix, &q.within, &q.after}) {
    if (!*p) continue;
    if (f && *f != (*p)->family()) {
      return absl::InvalidArgumentError(
          absl::StrCat(m, ": ", (*p)->ToString(), " is not of family ", r.family()));
    }
    f = (*p)->family();
  }
  q.family = f.value_or(net::Family::kIPv4);
  if (!r.rpki().empty()) {
    ASSIGN_OR_RETURN(q.rpki, RpkiStateFromName(m, r.rpki()));
  }
  const size_t page =
      r.max_routes() == 0 ? kDefaultPage : std::min<size_t>(r.max_routes(), kMaxPage);
  q.max = page + 1;
  return q;
}

// list_routes: one page, read without the loop waiting for the shards.
void ListRoutes(BgpProcess& bgp, const v1::ListRoutesRequest& r,
                ipc::Responder<v1::ListRoutesReply> responder) {
  absl::StatusOr<RouteQuery> q = ListRoutesQuery(r);
  if (!q.ok()) return responder.Fail(q.status());
  const size_t page = q->max - 1;
  bgp.ReadRoutesAsync(
      *q, [page, responder = std::make_shared<ipc::Responder<v1::ListRoutesReply>>(
                     std::move(responder))](absl::StatusOr<std::vector<BgpRoute>> routes) {
        if (!routes.ok()) return responder->Fail(routes.status());
        v1::ListRoutesReply* reply = responder->reply();
        reply->set_more(routes->size() > page);
        if (routes->size() > page) routes->resize(page);
        reply->mutable_routes()->Reserve(int(routes->size()));
        for (const BgpRoute& route : *routes) ToProto(route, reply->add_routes());
        responder->Finish(absl::OkStatus());
      });
}

// get_route_candidates: the Loc-RIB route first, marked best, then the other candidates. Two
// reads, one after the other, neither waiting on the loop.
void Candidates(BgpProcess& bgp, const v1::GetRouteCandidatesRequest& r,
                ipc::Responder<v1::ListRoutesReply> responder) {
  absl::StatusOr<net::Prefix> prefix =
      Network("get_route_candidates", "prefix", r.has_prefix(), r.prefix());
  if (!prefix.ok()) return responder.Fail(prefix.status());
  RouteQuery q;
  q.view = RibView::kLocRib;
  q.family = prefix->family();
  q.prefix = *prefix;
  auto shared = std::make_shared<ipc::Responder<v1::ListRoutesReply>>(std::move(responder));
  bgp.ReadRoutesAsync(q, [&bgp, prefix = *prefix, shared](absl::StatusOr<std::vector<BgpRoute>> b) {
    std::optional<BgpRoute> best;
    if (b.ok() && !b->empty()) best = b->front();
    bgp.routing().CandidatesAsync(prefix, [best, shared](std::vector<BgpRoute> all) {
      auto is_best = [&](const BgpRoute& c) {
        return best && best->source == c.source && best->path_id == c.path_id;
      };
      std::stable_partition(all.begin(), all.end(), is_best);
      for (const BgpRoute& c : all) {
        v1::Route* out = shared->reply()->add_routes();
        ToProto(c, out);
        out->set_best(is_best(c));
      }
      shared->Finish(absl::OkStatus());
    });
  });
}

// bgp/1.0 local configuration: the AS, the BGP Identifier, the cluster ID, and reading them back.
absl::Status ServeLocalConfig(ipc::XrlRouter& router, BgpProcess& bgp) {
  RETURN_IF_ERROR(router.Handle(
      kSetLocalAs, [&](const v1::SetLocalAsRequest& r) -> absl::StatusOr<v1::SetLocalAsReply> {
        RETURN_IF_ERROR(bgp.SetLocalAs(r.as()));
        return v1::SetLocalAsReply();
      }));
  RETURN_IF_ERROR(router.Handle(
      kSetBgpId, [&](const v1::SetBgpIdRequest& r) -> absl::StatusOr<v1::SetBgpIdReply> {
        RETURN_IF_ERROR(bgp.SetBgpId(ipc::FromProto(r.id())));
        return v1::SetBgpIdReply();
      }));
  RETURN_IF_ERROR(
      router.Handle(kSetClusterId,
                    [&](const v1::SetClusterIdRequest& r) -> absl::StatusOr<v1::SetClusterIdReply> {
                      bgp.SetClusterId(ipc::FromProto(r.id()).value());
                      return v1::SetClusterIdReply();
                    }));
  RETURN_IF_ERROR(router.Handle(
      kGetLocalConfig,
      [&](const v1::GetLocalConfigRequest&) -> absl::StatusOr<v1::GetLocalConfigReply> {
        v1::GetLocalConfigReply reply;
        reply.set_as(bgp.local().as);
        ipc::ToProto(bgp.local().bgp_id, reply.mutable_id());
        for (const ListenerInfo& l : bgp.listeners()) {
          v1::Listener* out = reply.add_listeners();
          ipc::ToProto(l.address, out->mutable_address());
          out->set_port(l.port);
        }
        reply.set_rib(bgp.has_rib());
        ipc::ToProto(net::IPv4Address(bgp.cluster_id()), reply.mutable_cluster_id());
        return reply;
      }));
  return absl::OkStatus();
}

// bgp/1.0 listening sockets: open and close them.
absl::Status ServeListeners(ipc::XrlRouter& router, BgpProcess& bgp) {
  RETURN_IF_ERROR(
      router.Handle(kListen, [&](const v1::ListenRequest& r) -> absl::StatusOr<v1::ListenReply> {
        ASSIGN_OR_RETURN(net::IPAddress a,
                         Address("listen", "address", r.has_address(), r.address()));
        if (r.port() > 65535) return absl::InvalidArgumentError("listen: port over 65535");
        ASSIGN_OR_RETURN(uint16_t port, bgp.Listen(a, uint16_t(r.port())));
        v1::ListenReply reply;
        reply.set_port(port);
        return reply;
      }));
  RETURN_IF_ERROR(router.Handle(
      kStopListening,
      [&](const v1::StopListeningRequest& r) -> absl::StatusOr<v1::StopListeningReply> {
        ASSIGN_OR_RETURN(net::IPAddress a,
                         Address("stop_listening", "address", r.has_address(), r.address()));
        if (r.port() > 65535) return absl::InvalidArgumentError("stop_listening: port over 65535");
        RETURN_IF_ERROR(bgp.StopListening(a, uint16_t(r.port())));
        return v1::StopListeningReply();
      }));
  return absl::OkStatus();
}

// bgp/1.0 graceful restart (RFC 4724): the restart and stale-routes times this BGP advertises.
absl::Status ServeGracefulRestart(ipc::XrlRouter& router, BgpProcess& bgp) {
  RETURN_IF_ERROR(router.Handle(
      kSetGracefulRestart,
      [&](const v1::SetGracefulRestartRequest& r) -> absl::StatusOr<v1::SetGracefulRestartReply> {
        const uint32_t restart = r.has_restart_time() ? r.restart_time() : 120;
        const uint32_t stale = r.has_stale_routes_time() ? r.stale_routes_time() : 360;
        if (restart > kGrMaxRestartTime) {
          return absl::InvalidArgumentError(absl::StrFormat(
              "set_graceful_restart: restart_time %u is over %u s (RFC 4724: 12 bits)", restart,
              kGrMaxRestartTime));
        }
        bgp.SetGracefulRestart(uint16_t(restart), stale);
        return v1::SetGracefulRestartReply();
      }));
  return absl::OkStatus();
}

// bgp/1.0 peers: add, remove, enable, disable, reset, read, list and ask for routes again.
absl::Status ServePeers(ipc::XrlRouter& router, BgpProcess& bgp) {
  RETURN_IF_ERROR(
      router.Handle(kAddPeer, [&](const v1::AddPeerRequest& r) -> absl::StatusOr<v1::AddPeerReply> {
        ASSIGN_OR_RETURN(auto config, PeerFromProto(r));
        RETURN_IF_ERROR(bgp.AddPeer(config.first, std::move(config.second)));
        return v1::AddPeerReply();
      }));
  RETURN_IF_ERROR(router.Handle(
      kRemovePeer,
      PeerHandler<v1::PeerReply>("remove_peer",
                                 [&](const net::IPAddress& a) -> absl::StatusOr<v1::PeerReply> {
                                   RETURN_IF_ERROR(bgp.RemovePeer(a));
                                   return v1::PeerReply();
                                 })));
  RETURN_IF_ERROR(router.Handle(
      kEnablePeer,
      PeerHandler<v1::PeerReply>("enable_peer",
                                 [&](const net::IPAddress& a) -> absl::StatusOr<v1::PeerReply> {
                                   RETURN_IF_ERROR(bgp.EnablePeer(a));
                                   return v1::PeerReply();
                                 })));
  RETURN_IF_ERROR(
      router.Handle(kDisablePeer, [&](const v1::PeerRequest& r) -> absl::StatusOr<v1::PeerReply> {
        ASSIGN_OR_RETURN(net::IPAddress a,
                         Address("disable_peer", "address", r.has_address(), r.address()));
        RETURN_IF_ERROR(bgp.DisablePeer(a, r.by_operator()));
        return v1::PeerReply();
      }));
  RETURN_IF_ERROR(router.Handle(
      kResetPeer, PeerHandler<v1::PeerReply>(
                      "reset_peer", [&](const net::IPAddress& a) -> absl::StatusOr<v1::PeerReply> {
                        RETURN_IF_ERROR(bgp.ResetPeer(a));
                        return v1::PeerReply();
                      })));
  RETURN_IF_ERROR(router.Handle(
      kGetPeer, PeerHandler<v1::GetPeerReply>(
                    "get_peer", [&](const net::IPAddress& a) -> absl::StatusOr<v1::GetPeerReply> {
                      ASSIGN_OR_RETURN(PeerView view, bgp.GetPeer(a));
                      v1::GetPeerReply reply;
                      ToProto(view, reply.mutable_peer());
                      return reply;
                    })));
  RETURN_IF_ERROR(router.Handle(
      kListPeers, [&](const v1::ListPeersRequest&) -> absl::StatusOr<v1::ListPeersReply> {
        v1::ListPeersReply reply;
        for (const PeerView& v : bgp.ListPeers()) ToProto(v, reply.add_peers());
        return reply;
      }));
  RETURN_IF_ERROR(router.Handle(
      kRouteRefresh,
      [&](const v1::RouteRefreshRequest& r) -> absl::StatusOr<v1::RouteRefreshReply> {
        ASSIGN_OR_RETURN(net::IPAddress a,
                         Address("route_refresh", "address", r.has_address(), r.address()));
        absl::StatusOr<std::optional<AfiSafi>> family = FamilyFromText(r.family());
        if (!family.ok()) {
          return absl::InvalidArgumentError(
              absl::StrCat("route_refresh: ", family.status().message()));
        }
        RETURN_IF_ERROR(r.outbound() ? bgp.ResendRoutes(a, *family) : bgp.RouteRefresh(a, *family));
        return v1::RouteRefreshReply();
      }));
  return absl::OkStatus();
}

// bgp/1.0 per-peer policy by name: refused with a pointer to policy_backend/1.0.
absl::Status ServePeerPolicyNames(ipc::XrlRouter& router) {
  for (const auto* method : {&kSetPeerImportPolicy, &kSetPeerExportPolicy}) {
    const bool import = method == &kSetPeerImportPolicy;
    RETURN_IF_ERROR(router.Handle(
        *method,
        [import](const v1::SetPeerPolicyRequest&) -> absl::StatusOr<v1::SetPeerPolicyReply> {
          return absl::UnimplementedError(absl::StrCat(
              "set_peer_", import ? "import" : "export",
              "_policy: a policy name alone cannot be installed; send the policy text with ",
              ipc::methods::policy_backend::kConfigure.name().xrl(),
              "?filter:txt=", import ? "import" : "export", ":ADDRESS"));
        }));
  }
  return absl::OkStatus();
}

// bgp/1.0 routes: originate and withdraw this BGP's own, list them and a prefix's candidates.
absl::Status ServeRoutes(ipc::XrlRouter& router, BgpProcess& bgp) {
  RETURN_IF_ERROR(router.Handle(
      kOriginateRoute,
      [&](const v1::OriginateRouteRequest& r) -> absl::StatusOr<v1::OriginateRouteReply> {
        ASSIGN_OR_RETURN(net::Prefix network,
                         Network("originate_route", "network", r.has_network(), r.network()));
        ASSIGN_OR_RETURN(PathAttributes attributes, AttributesFromProto(r, network));
        RETURN_IF_ERROR(bgp.Originate(network, std::move(attributes)));
        return v1::OriginateRouteReply();
      }));
  RETURN_IF_ERROR(router.Handle(
      kWithdrawRoute,
      [&](const v1::WithdrawRouteRequest& r) -> absl::StatusOr<v1::WithdrawRouteReply> {
        ASSIGN_OR_RETURN(net::Prefix network,
                         Network("withdraw_route", "network", r.has_network(), r.network()));
        RETURN_IF_ERROR(bgp.WithdrawOriginated(network));
        return v1::WithdrawRouteReply();
      }));
  RETURN_IF_ERROR(router.HandleAsync(
      kListRoutes,
      [&](const v1::ListRoutesRequest& r, ipc::Responder<v1::ListRoutesReply> responder) {
        ListRoutes(bgp, r, std::move(responder));
      }));
  RETURN_IF_ERROR(router.HandleAsync(
      kGetRouteCandidates,
      [&](const v1::GetRouteCandidatesRequest& r, ipc::Responder<v1::ListRoutesReply> responder) {
        Candidates(bgp, r, std::move(responder));
      }));
  return absl::OkStatus();
}

}  // namespace

absl::Status ServeBgp(ipc::XrlRouter& router, BgpProcess& bgp) {
  RETURN_IF_ERROR(ServeLocalConfig(router, bgp));
  RETURN_IF_ERROR(ServeListeners(router, bgp));
  RETURN_IF_ERROR(ServeGracefulRestart(router, bgp));
  RETURN_IF_ERROR(ServePeers(router, bgp));
  RETURN_IF_ERROR(ServePeerPolicyNames(router));
  RETURN_IF_ERROR(ServeRoutes(router, bgp));
  return absl::OkStatus();
}

absl::Status ServeRibClient(ipc::XrlRouter& router, BgpProcess& bgp, BgpRedist* redist) {
  RETURN_IF_ERROR(router.Handle(kRouteInfoInvalid,
                                [&](const rib_client_v1::RouteInfoInvalidRequest& r)
                                    -> absl::StatusOr<rib_client_v1::RouteInfoInvalidReply> {
                                  ASSIGN_OR_RETURN(net::Prefix subnet,
                                                   Network("route_info_invalid", "valid_subnet",
                                                           r.has_valid_subnet(), r.valid_subnet()));
                                  bgp.OnRouteInfoInvalid(subnet);
                                  return rib_client_v1::RouteInfoInvalidReply();
                                }));
  RETURN_IF_ERROR(router.Handle(
      kRedistRoutes,
      [redist](const rib_client_v1::RedistRoutesRequest& r)
          -> absl::StatusOr<rib_client_v1::RedistRoutesReply> {
        if (redist == nullptr) {
          return absl::UnimplementedError("redist_routes: this BGP has no redistribution");
        }
        if (r.family() != "ipv4" && r.family() != "ipv6") {
          return absl::InvalidArgumentError(
              absl::StrCat("redist_routes: family \"", r.family(), "\""));
        }
        const net::Family family = r.family() == "ipv6" ? net::Family::kIPv6 : net::Family::kIPv4;
        std::vector<RedistRoute> changes;
        changes.reserve(r.changes_size());
        for (const rib_client_v1::RedistChange& c : r.changes()) {
          RedistRoute route;
          route.deleted = c.op() == rib_client_v1::RedistChange::DELETE;
          ASSIGN_OR_RETURN(route.network, Network("redist_routes", "network",
                                                  c.route().has_network(), c.route().network()));
          if (c.route().has_nexthop()) {
            absl::StatusOr<net::IPAddress> nh = ipc::FromProto(c.route().nexthop());
            if (nh.ok()) route.nexthop = *nh;
          }
          route.metric = c.route().metric();
          route.tags.assign(c.route().tags().begin(), c.route().tags().end());
          changes.push_back(std::move(route));
        }
        redist->OnChanges(family, r.protocol(), changes, r.dump_done(), r.dump_start());
        return rib_client_v1::RedistRoutesReply();
      }));
  return absl::OkStatus();
}

}  // namespace sluice::bgp::process
