// sluice show bgp { peers | summary | neighbor ADDR | damping }: the peers as bgp/1.0's
// list_peers and get_peer report them, and route flap damping (list_damped).

#include <iostream>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "ipc/types_convert.h"
#include "rtrmgr/cli/json_view.h"
#include "rtrmgr/cli/queries.h"
#include "rtrmgr/cli/show.h"

namespace sluice::rtrmgr::cli {
namespace {

const ipc::Method<bgp::v1::ListDampedRequest, bgp::v1::ListDampedReply> kListDamped{
    "bgp/1.0/list_damped"};

// The line under a peer's row about what its input cost: RFC 7606 outcomes and session resets by
// cause ("" when there is nothing to say).
std::string InputProblems(const bgp::v1::PeerInfo& p) {
  std::vector<std::string> parts;
  if (p.updates_treat_as_withdraw() + p.updates_attribute_discard() + p.afi_safi_disables() > 0) {
    std::string s = absl::StrFormat(
        "rfc7606 treat-as-withdraw %u, attribute-discard %u, "
        "afi-safi-disable %u",
        p.updates_treat_as_withdraw(), p.updates_attribute_discard(), p.afi_safi_disables());
    if (p.disabled_families_size() > 0) {
      absl::StrAppend(&s, " (disabled now: ", absl::StrJoin(p.disabled_families(), " "), ")");
    }
    parts.push_back(s);
  }
  if (!p.session_resets().empty()) {
    std::map<std::string, uint64_t> sorted(p.session_resets().begin(), p.session_resets().end());
    parts.push_back("session resets " + absl::StrJoin(sorted, ", ", absl::PairFormatter(" ")));
  }
  return absl::StrJoin(parts, "; ");
}

// One side's Graceful Restart capability: "restart-time 120 R N F(ipv4 ipv6)"; "none".
std::string GracefulText(bool has, const bgp::v1::GracefulRestartInfo& g) {
  if (!has) return "none";
  std::string s = absl::StrCat("restart-time ", g.restart_time());
  if (g.restart_state()) s += " R";
  if (g.notification()) s += " N";
  if (g.forwarding_preserved_size() > 0) {
    absl::StrAppend(&s, " F(", absl::StrJoin(g.forwarding_preserved(), " "), ")");
  }
  return s;
}

// Graceful restart (RFC 4724, RFC 8538): what each side offered on the current or last session,
// and the stale routes kept while the peer restarts.
std::string GracefulRestartLine(const bgp::v1::PeerInfo& p) {
  if (!p.graceful_restart_configured()) return "graceful restart disabled";
  std::string s = absl::StrCat(
      "graceful restart: sent ",
      GracefulText(p.has_graceful_restart_sent(), p.graceful_restart_sent()), "; received ",
      GracefulText(p.has_graceful_restart_received(), p.graceful_restart_received()));
  if (!p.graceful_helper().empty()) {
    uint64_t stale = 0;
    for (const bgp::v1::PeerFamily& f : p.family_counts()) stale += f.stale();
    absl::StrAppendFormat(
        &s, "; stale, %u routes, %.0f s left (%s)", stale, p.graceful_seconds_left(),
        p.graceful_helper() == "restart" ? "peer restarting" : "waiting for End-of-RIB");
  }
  return s;
}

// "1d02h03m" past a day, else "02:03:04"; "never" when 0.
std::string Uptime(double seconds) {
  if (seconds <= 0) return "never";
  const uint64_t s = static_cast<uint64_t>(seconds);
  if (s >= 86400) return absl::StrFormat("%ud%02uh%02um", s / 86400, s / 3600 % 24, s / 60 % 60);
  return absl::StrFormat("%02u:%02u:%02u", s / 3600, s / 60 % 60, s % 60);
}

absl::StatusOr<bgp::v1::PeerInfo> GetPeer(Context& c, const std::string& address) {
  auto a = net::IPAddress::Parse(address);
  if (!a.ok()) return a.status();
  bgp::v1::PeerRequest q;
  ipc::ToProto(*a, q.mutable_address());
  SyncClient client(c.finder_address, c.timeout_ms);
  auto r = client.Call("bgp", bgp::process::kGetPeer, q);
  if (!r.ok()) return r.status();
  return r->peer();
}

void PrintNeighbor(const bgp::v1::PeerInfo& p, std::ostream& out) {
  out << "BGP neighbor " << Text(p.address()) << ", remote AS " << p.remote_as() << ", "
      << (p.internal() ? "internal" : "external") << " link"
      << (p.description().empty() ? "" : ", \"" + p.description() + "\"") << "\n";
  out << "  state " << PeerStateText(p) << ", up " << Uptime(p.uptime_s()) << ", "
      << p.established_transitions() << " times established\n";
  out << absl::StrFormat("  local %s port %u, remote port %u, remote router ID %s\n",
                         Text(p.local_address()), p.local_port(), p.remote_port(),
                         ipc::FromProto(p.remote_bgp_id()).ToString());
  out << absl::StrFormat("  hold time %u s (configured %u), keepalive %u s\n", p.hold_time(),
                         p.hold_time_configured(), p.keepalive_time());
  out << "  families " << absl::StrJoin(p.families(), " ") << "; capabilities"
      << (p.four_octet_as() ? " four-octet-as" : "") << (p.route_refresh() ? " route-refresh" : "")
      << "\n";
  out << absl::StrFormat(
      "  messages in %u out %u; updates %u/%u; keepalives %u/%u; notifications %u/%u; "
      "route-refresh %u/%u\n",
      p.messages_in(), p.messages_out(), p.updates_in(), p.updates_out(), p.keepalives_in(),
      p.keepalives_out(), p.notifications_in(), p.notifications_out(), p.route_refreshes_in(),
      p.route_refreshes_out());
  for (const bgp::v1::PeerFamily& f : p.family_counts()) {
    out << absl::StrFormat("  %s %s: received %u, accepted %u, advertised %u%s\n", f.family(),
                           f.up() ? "up" : "down", f.received(), f.accepted(), f.advertised(),
                           f.stale() > 0 ? absl::StrCat(", stale ", f.stale()) : "");
  }
  if (!p.last_error().empty()) out << "  last error: " << p.last_error() << "\n";
  if (std::string problems = InputProblems(p); !problems.empty()) {
    out << "  " << problems << "\n";
  }
  out << "  " << GracefulRestartLine(p) << "\n";
}

}  // namespace

int ShowBgpPeers(Context& c, bool json) {
  SyncClient client(c.finder_address, c.timeout_ms);
  auto r = client.Call("bgp", bgp::process::kListPeers, bgp::v1::ListPeersRequest());
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
  auto local = client.Call("bgp", bgp::process::kGetLocalConfig, bgp::v1::GetLocalConfigRequest());
  if (!local.ok()) return Fail(c, "bgp summary", local.status());
  auto r = client.Call("bgp", bgp::process::kListPeers, bgp::v1::ListPeersRequest());
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
  constexpr char kForm[] = "show bgp neighbor ADDR [ received-routes | advertised-routes ]";
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
