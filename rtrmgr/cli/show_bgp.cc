// sluice show bgp { peers | summary | neighbor ADDR | damping }: the peers as bgp/1.0's
// list_peers and get_peer report them, and route flap damping (list_damped).

#include <iostream>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "ipc/methods/bgp.h"
#include "ipc/types_convert.h"
#include "rtrmgr/cli/json_view.h"
#include "rtrmgr/cli/peer_text.h"
#include "rtrmgr/cli/queries.h"
#include "rtrmgr/cli/show.h"

namespace sluice::rtrmgr::cli {
namespace {

using ipc::methods::bgp::kListDamped;

absl::StatusOr<bgp::v1::PeerInfo> GetPeer(Context& c, const std::string& address) {
  auto a = net::IPAddress::Parse(address);
  if (!a.ok()) return a.status();
  bgp::v1::PeerRequest q;
  ipc::ToProto(*a, q.mutable_address());
  SyncClient client(c.finder_address, c.timeout_ms);
  auto r = client.Call("bgp", ipc::methods::bgp::kGetPeer, q);
  if (!r.ok()) return r.status();
  return r->peer();
}

}  // namespace

int ShowBgpPeers(Context& c, bool json) {
  SyncClient client(c.finder_address, c.timeout_ms);
  auto r = client.Call("bgp", ipc::methods::bgp::kListPeers, bgp::v1::ListPeersRequest());
  if (!r.ok()) return Fail(c, "bgp peers", r.status());
  if (json) {
    Json peers = Json::array();
    for (const bgp::v1::PeerInfo& p : r->peers()) peers.push_back(PeerJson(p));
    *c.out << Print(Json{{"peers", peers}}) << "\n";
    return kOk;
  }
  *c.out << absl::StrFormat("%-20s %10s %-12s %10s %10s %10s %10s %9s  %s\n", "peer", "AS", "state",
                            "received", "accepted", "advertised", "msgs in/out", "uptime",
                            "last error");
  for (const bgp::v1::PeerInfo& p : r->peers()) {
    *c.out << absl::StrFormat(
        "%-20s %10u %-12s %10u %10u %10u %10s %8.0fs  %s\n", Text(p.address()), p.remote_as(),
        p.enabled() ? p.state() : (p.disabled_by_operator() ? "Down (CLI)" : "Disabled"),
        p.prefixes_received(), p.prefixes_accepted(), p.prefixes_advertised(),
        absl::StrCat(p.messages_in(), "/", p.messages_out()), p.uptime_s(), p.last_error());
    if (std::string problems = InputProblems(p); !problems.empty()) {
      *c.out << "    " << problems << "\n";
    }
    *c.out << "    " << GracefulRestartLine(p) << "\n";
  }
  return kOk;
}

int ShowBgpSummary(Context& c, bool json) {
  SyncClient client(c.finder_address, c.timeout_ms);
  auto local =
      client.Call("bgp", ipc::methods::bgp::kGetLocalConfig, bgp::v1::GetLocalConfigRequest());
  if (!local.ok()) return Fail(c, "bgp summary", local.status());
  auto r = client.Call("bgp", ipc::methods::bgp::kListPeers, bgp::v1::ListPeersRequest());
  if (!r.ok()) return Fail(c, "bgp summary", r.status());
  if (json) {
    Json peers = Json::array();
    for (const bgp::v1::PeerInfo& p : r->peers()) {
      peers.push_back(Json{{"address", AddressJson(p.address())},
                           {"remote_as", p.remote_as()},
                           {"state", PeerStateText(p)},
                           {"uptime_s", p.uptime_s()},
                           {"prefixes_received", p.prefixes_received()},
                           {"prefixes_accepted", p.prefixes_accepted()},
                           {"prefixes_advertised", p.prefixes_advertised()},
                           {"messages_in", p.messages_in()},
                           {"messages_out", p.messages_out()}});
    }
    *c.out << Print(Json{{"local_as", local->as()},
                         {"router_id", AddressJson(local->id())},
                         {"peers", peers}})
           << "\n";
    return kOk;
  }
  *c.out << "BGP router identifier " << ipc::FromProto(local->id()).ToString() << ", local AS "
         << local->as() << ", " << r->peers_size() << " peers\n\n";
  *c.out << absl::StrFormat("%-20s %10s %9s %9s %10s  %s\n", "Neighbor", "AS", "MsgRcvd", "MsgSent",
                            "Up/Down", "State/PfxRcd/PfxAcc");
  for (const bgp::v1::PeerInfo& p : r->peers()) {
    const bool up = p.enabled() && p.state() == "Established";
    *c.out << absl::StrFormat(
        "%-20s %10u %9u %9u %10s  %s\n", Text(p.address()), p.remote_as(), p.messages_in(),
        p.messages_out(), Uptime(p.uptime_s()),
        up ? absl::StrCat(p.prefixes_received(), " ", p.prefixes_accepted()) : PeerStateText(p));
  }
  return kOk;
}

// show bgp neighbor ADDR [ received-routes | advertised-routes ]
int ShowBgpNeighbor(const Args& args, Context& c, bool json) {
  constexpr char kForm[] =
      "show bgp neighbor ADDR [ received-routes [ rpki STATE ] | advertised-routes ]";
  if (args.size() == 4 && args[1] == "received-routes" && args[2] == "rpki") {
    return ShowBgpRoutes({"peer", args[0], "in", "rpki", args[3]}, c, json);
  }
  if (args.empty() || args.size() > 2) return UsageError(c, kForm);
  if (args.size() == 2) {
    if (args[1] != "received-routes" && args[1] != "advertised-routes") {
      return UsageError(c, kForm);
    }
    return ShowBgpRoutes({"peer", args[0], args[1] == "received-routes" ? "in" : "out"}, c, json);
  }
  auto p = GetPeer(c, args[0]);
  if (!p.ok()) return Fail(c, "bgp neighbor " + args[0], p.status());
  if (json) {
    *c.out << Print(Json{{"peer", PeerJson(*p)}}) << "\n";
  } else {
    PrintNeighbor(*p, *c.out);
  }
  return kOk;
}

int ShowBgpDamping(const Args& args, Context& c, bool json) {
  bgp::v1::ListDampedRequest q;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "suppressed") {
      q.set_suppressed_only(true);
    } else if (args[i] == "peer" && i + 1 < args.size()) {
      auto a = net::IPAddress::Parse(args[++i]);
      if (!a.ok()) return Fail(c, "bgp damping", a.status());
      ipc::ToProto(*a, q.mutable_peer());
    } else {
      return UsageError(c, "show bgp damping [ peer ADDR ] [ suppressed ] [ --json ]");
    }
  }
  SyncClient client(c.finder_address, c.timeout_ms);
  auto r = client.Call("bgp", kListDamped, q);
  if (!r.ok()) return Fail(c, "bgp damping", r.status());
  if (json) {
    Json routes = Json::array();
    for (const bgp::v1::DampedRoute& d : r->routes()) routes.push_back(DampedJson(d));
    *c.out << Print(Json{{"routes", routes}}) << "\n";
    return kOk;
  }
  *c.out << absl::StrFormat("%-20s %-24s %8s %-10s %9s %s\n", "peer", "prefix", "penalty", "state",
                            "reuse in", "route");
  size_t suppressed = 0;
  for (const bgp::v1::DampedRoute& d : r->routes()) {
    if (d.suppressed()) ++suppressed;
    *c.out << absl::StrFormat("%-20s %-24s %8u %-10s %9s %s\n", Text(d.peer()), Text(d.prefix()),
                              d.penalty(), d.suppressed() ? "suppressed" : "damped",
                              d.suppressed() ? absl::StrCat(d.reuse_in_s(), "s") : "-",
                              d.has_route() ? "announced" : "withdrawn");
  }
  *c.out << r->routes_size() << " prefixes, " << suppressed << " suppressed\n";
  return kOk;
}

}  // namespace sluice::rtrmgr::cli
