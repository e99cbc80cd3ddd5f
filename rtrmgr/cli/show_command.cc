// sluice show ...: operational views for people (tables) and scripts (--json: the replies as
// protobuf JSON, one object per line).
//
//   sluice show bgp peers
//   sluice show bgp routes [PREFIX] [peer ADDR] [in|out] [ipv6]   Loc-RIB, or a peer's
//                                                                 Adj-RIB-In (in) / -Out (out)
//   sluice show route [ipv4|ipv6] [PREFIX]     RIB winners with protocol and admin distance
//   sluice show fib                            the FEA's forwarding table
//   sluice show interfaces                     the FEA's interfaces and addresses
//   sluice show plumbing PROCESS               the stage network (bgp, rib, fea)
//   sluice show processes                      what the router manager runs (pid, restarts, RSS)
//   sluice show bgp damping [peer ADDR] [suppressed]   route flap damping: prefixes with a
//                                              figure of merit, suppressed ones with reuse time

#include <iostream>
#include <map>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/util/json_util.h"
#include "ipc/types_convert.h"
#include "rtrmgr/cli/command.h"
#include "rtrmgr/cli/queries.h"

namespace sluice::rtrmgr::cli {
namespace {

std::string Json(const google::protobuf::Message& m) {
  std::string out;
  google::protobuf::util::JsonPrintOptions o;
  o.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(m, &out, o);
  return out;
}

std::string Text(const types::v1::IPAddress& a) {
  auto v = ipc::FromProto(a);
  return v.ok() ? v->ToString() : "-";
}
std::string Text(const types::v1::IPPrefix& p) {
  auto v = ipc::FromProto(p);
  return v.ok() ? v->ToString() : "-";
}

int Fail(Context& c, const std::string& what, const absl::Status& s) {
  *c.err << "sluice show " << what << ": " << s.message() << "\n";
  return kFailed;
}

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

// The line under a peer's row about graceful restart (RFC 4724, RFC 8538): what each side
// offered on the current or last session, and the stale routes kept while the peer restarts.
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

int ShowBgpPeers(Context& c, bool json) {
  SyncClient client(c.finder_address, c.timeout_ms);
  auto r = client.Call("bgp", bgp::process::kListPeers, bgp::v1::ListPeersRequest());
  if (!r.ok()) return Fail(c, "bgp peers", r.status());
  if (json) {
    *c.out << Json(*r) << "\n";
    return kOk;
  }
  *c.out << absl::StrFormat("%-20s %10s %-12s %10s %10s %10s %10s %9s  %s\n", "peer", "AS", "state",
                            "received", "accepted", "advertised", "msgs in/out", "uptime",
                            "last error");
  for (const bgp::v1::PeerInfo& p : r->peers()) {
    *c.out << absl::StrFormat(
        "%-20s %10u %-12s %10u %10u %10u %10s %8.0fs  %s\n", Text(p.address()), p.remote_as(),
        p.enabled() ? p.state() : "Disabled", p.prefixes_received(), p.prefixes_accepted(),
        p.prefixes_advertised(), absl::StrCat(p.messages_in(), "/", p.messages_out()), p.uptime_s(),
        p.last_error());
    if (std::string problems = InputProblems(p); !problems.empty()) {
      *c.out << "    " << problems << "\n";
    }
    *c.out << "    " << GracefulRestartLine(p) << "\n";
  }
  return kOk;
}

const ipc::Method<bgp::v1::ListDampedRequest, bgp::v1::ListDampedReply> kListDamped{
    "bgp/1.0/list_damped"};

// --json: the whole list_damped reply as one object ({"routes": [...]}; {} when none).
int ShowBgpDamping(const std::vector<std::string>& args, Context& c, bool json) {
  bgp::v1::ListDampedRequest q;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "suppressed") {
      q.set_suppressed_only(true);
    } else if (args[i] == "peer" && i + 1 < args.size()) {
      auto a = net::IPAddress::Parse(args[++i]);
      if (!a.ok()) return Fail(c, "bgp damping", a.status());
      ipc::ToProto(*a, q.mutable_peer());
    } else {
      *c.err << "usage: sluice show bgp damping [peer ADDR] [suppressed] [--json]\n";
      return kUsage;
    }
  }
  SyncClient client(c.finder_address, c.timeout_ms);
  auto r = client.Call("bgp", kListDamped, q);
  if (!r.ok()) return Fail(c, "bgp damping", r.status());
  if (json) {
    *c.out << Json(*r) << "\n";
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

int ShowBgpRoutes(const std::vector<std::string>& args, Context& c, bool json) {
  bgp::v1::ListRoutesRequest q;
  q.set_view(bgp::v1::LOC_RIB);
  q.set_family("ipv4");
  std::string peer;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "peer" && i + 1 < args.size()) {
      peer = args[++i];
      if (q.view() == bgp::v1::LOC_RIB) q.set_view(bgp::v1::ADJ_RIB_IN);
    } else if (args[i] == "in") {
      q.set_view(bgp::v1::ADJ_RIB_IN);
    } else if (args[i] == "out") {
      q.set_view(bgp::v1::ADJ_RIB_OUT);
    } else if (args[i] == "ipv6" || args[i] == "ipv4") {
      q.set_family(args[i]);
    } else if (auto p = net::Prefix::Parse(args[i]); p.ok()) {
      ipc::ToProto(*p, q.mutable_prefix());
      q.set_family(p->is_v4() ? "ipv4" : "ipv6");
    } else {
      *c.err << "usage: sluice show bgp routes [PREFIX] [peer ADDR] [in|out] [ipv4|ipv6]\n";
      return kUsage;
    }
  }
  if (q.view() != bgp::v1::LOC_RIB && peer.empty()) {
    *c.err << "sluice show bgp routes: in/out want peer ADDR\n";
    return kUsage;
  }
  if (!peer.empty()) {
    auto a = net::IPAddress::Parse(peer);
    if (!a.ok()) return Fail(c, "bgp routes", a.status());
    ipc::ToProto(*a, q.mutable_peer());
  }
  SyncClient client(c.finder_address, c.timeout_ms);
  q.set_max_routes(10000);
  if (!json) {
    *c.out << absl::StrFormat("%-20s %-18s %-16s %6s %6s %-4s %s\n", "network", "nexthop", "from",
                              "med", "lpref", "orig", "as path");
  }
  uint64_t n = 0;
  while (true) {
    auto r = client.Call("bgp", bgp::process::kListRoutes, q);
    if (!r.ok()) return Fail(c, "bgp routes", r.status());
    for (const bgp::v1::Route& route : r->routes()) {
      ++n;
      if (json) {
        *c.out << Json(route) << "\n";
        continue;
      }
      *c.out << absl::StrFormat("%-20s %-18s %-16s %6s %6s %-4s %s\n", Text(route.network()),
                                Text(route.nexthop()),
                                route.has_peer() ? Text(route.peer()) : "local",
                                route.has_med() ? absl::StrCat(route.med()) : "-",
                                route.has_local_pref() ? absl::StrCat(route.local_pref()) : "-",
                                route.origin().substr(0, 3), route.as_path());
    }
    if (!r->more() || r->routes().empty()) break;
    *q.mutable_start_after() = r->routes().rbegin()->network();
  }
  if (!json) *c.out << n << " routes\n";
  return kOk;
}

int ShowRoute(const std::vector<std::string>& args, Context& c, bool json) {
  std::string family = "ipv4";
  std::optional<net::Prefix> prefix;
  for (const std::string& a : args) {
    if (a == "ipv4" || a == "ipv6") {
      family = a;
    } else if (auto p = net::Prefix::Parse(a); p.ok()) {
      prefix = *p;
    } else {
      *c.err << "usage: sluice show route [ipv4|ipv6] [PREFIX]\n";
      return kUsage;
    }
  }
  SyncClient client(c.finder_address, c.timeout_ms);
  std::vector<rib::v1::RibRoute> routes;
  if (prefix) {
    rib::v1::LookupRouteByNetworkRequest q;
    ipc::ToProto(*prefix, q.mutable_network());
    auto r = client.Call("rib", kRibLookupByNetwork, q);
    if (!r.ok()) return Fail(c, "route", r.status());
    if (r->found()) routes.push_back(r->route());
  } else {
    auto r = AllRibRoutes(client, family);
    if (!r.ok()) return Fail(c, "route", r.status());
    routes = *std::move(r);
  }
  if (!json) {
    *c.out << absl::StrFormat("%-24s %-10s %4s %-20s %-8s %6s\n", "network", "protocol", "AD",
                              "nexthop", "ifname", "metric");
  }
  for (const rib::v1::RibRoute& r : routes) {
    if (json) {
      *c.out << Json(r) << "\n";
      continue;
    }
    std::string nexthop = r.has_nexthop() ? Text(r.nexthop()) : "direct";
    if (r.resolved() && r.has_resolved_nexthop()) {
      nexthop += " (via " + Text(r.resolved_nexthop()) + ")";
    }
    *c.out << absl::StrFormat(
        "%-24s %-10s %4u %-20s %-8s %6u\n", Text(r.network()), r.protocol(), r.admin_distance(),
        nexthop, r.resolved_ifname().empty() ? r.ifname() : r.resolved_ifname(), r.metric());
  }
  if (!json) *c.out << routes.size() << " routes\n";
  return kOk;
}

int ShowFib(Context& c, bool json) {
  SyncClient client(c.finder_address, c.timeout_ms);
  auto r = AllFibRoutes(client);
  if (!r.ok()) return Fail(c, "fib", r.status());
  if (!json) {
    *c.out << absl::StrFormat("%-24s %-10s %-30s %6s\n", "network", "protocol", "nexthops",
                              "metric");
  }
  for (const fea_fib::v1::FibRoute& f : *r) {
    if (json) {
      *c.out << Json(f) << "\n";
      continue;
    }
    std::vector<std::string> hops;
    for (const auto& h : f.nexthops()) {
      hops.push_back(absl::StrCat(h.has_gateway() ? Text(h.gateway()) : "direct",
                                  h.ifname().empty() ? "" : " dev " + h.ifname()));
    }
    *c.out << absl::StrFormat("%-24s %-10s %-30s %6u\n", Text(f.network()), f.protocol(),
                              absl::StrJoin(hops, ", "), f.metric());
  }
  if (!json) *c.out << r->size() << " routes\n";
  return kOk;
}

int ShowInterfaces(Context& c, bool json) {
  SyncClient client(c.finder_address, c.timeout_ms);
  auto r = client.Call("fea", kListInterfaces, fea_ifmgr::v1::ListInterfacesRequest());
  if (!r.ok()) return Fail(c, "interfaces", r.status());
  if (json) {
    *c.out << Json(*r) << "\n";
    return kOk;
  }
  *c.out << absl::StrFormat("%-16s %5s %-8s %-8s %6s  %s\n", "interface", "index", "admin",
                            "carrier", "mtu", "addresses");
  for (const auto& i : r->interfaces()) {
    std::vector<std::string> addresses;
    for (const auto& a : i.addresses()) {
      addresses.push_back(absl::StrCat(Text(a.address()), "/", a.prefix_length()));
    }
    *c.out << absl::StrFormat("%-16s %5u %-8s %-8s %6u  %s\n", i.name(), i.index(),
                              i.enabled() ? "up" : "down", i.carrier() ? "up" : "down", i.mtu(),
                              absl::StrJoin(addresses, " "));
  }
  return kOk;
}

int ShowPlumbing(const std::string& process, Context& c, bool json) {
  SyncClient client(c.finder_address, c.timeout_ms);
  auto r = client.Call(process, kDescribePlumbing, profile::v1::DescribePlumbingRequest());
  if (!r.ok()) return Fail(c, "plumbing " + process, r.status());
  *c.out << (json ? Json(*r) : r->text()) << "\n";
  return kOk;
}

int ShowProcesses(Context& c, bool json) {
  SyncClient client(c.finder_address, c.timeout_ms);
  auto r = client.Call("rtrmgr", kRtrmgrStatus, rtrmgr::v1::GetStatusRequest());
  if (!r.ok()) return Fail(c, "processes", r.status());
  if (json) {
    *c.out << Json(*r) << "\n";
    return kOk;
  }
  *c.out << "configuration: " << r->config_file() << "\n";
  if (r->confirm_remaining_ms() > 0) {
    *c.out << absl::StrFormat(
        "unconfirmed: rolls back in %.0f s unless `sluice configure confirm` follows\n",
        r->confirm_remaining_ms() / 1000.0);
  }
  *c.out << absl::StrFormat("%-14s %8s %8s %-10s %10s %10s  %s\n", "process", "pid", "restarts",
                            "configured", "RSS MB", "peak MB", "last exit");
  for (const auto& p : r->children()) {
    *c.out << absl::StrFormat("%-14s %8d %8u %-10s %10.1f %10.1f  %s\n", "sluice-" + p.name(),
                              p.pid(), p.restarts(), p.configured() ? "yes" : "no",
                              p.rss_kb() / 1024.0, p.peak_rss_kb() / 1024.0, p.last_exit());
  }
  return kOk;
}

// The configuration the processes run, as the router manager prints it.
int ShowConfiguration(Context& c, bool json) {
  SyncClient client(c.finder_address, c.timeout_ms);
  auto r = client.Call("rtrmgr", kRtrmgrGetConfig, rtrmgr::v1::GetConfigRequest());
  if (!r.ok()) return Fail(c, "configuration", r.status());
  *c.out << (json ? Json(*r) + "\n" : r->text());
  return kOk;
}

}  // namespace

int RunShow(const std::vector<std::string>& all_args, Context& context) {
  std::vector<std::string> args;
  bool json = false;
  for (const std::string& a : all_args) {
    if (a == "--json") {
      json = true;
    } else {
      args.push_back(a);
    }
  }
  const auto usage = [&] {
    *context.err << Usage(*FindCommand("show"));
    return kUsage;
  };
  if (args.empty()) return usage();
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "bgp" && args.size() >= 2 && args[1] == "peers")
    return ShowBgpPeers(context, json);
  if (args[0] == "bgp" && args.size() >= 2 && args[1] == "damping") {
    return ShowBgpDamping(std::vector<std::string>(args.begin() + 2, args.end()), context, json);
  }
  if (args[0] == "bgp" && args.size() >= 2 && args[1] == "routes") {
    return ShowBgpRoutes(std::vector<std::string>(args.begin() + 2, args.end()), context, json);
  }
  if (args[0] == "route") return ShowRoute(rest, context, json);
  if (args[0] == "fib" && rest.empty()) return ShowFib(context, json);
  if (args[0] == "interfaces" && rest.empty()) return ShowInterfaces(context, json);
  if (args[0] == "plumbing" && rest.size() == 1) return ShowPlumbing(rest[0], context, json);
  if (args[0] == "processes" && rest.empty()) return ShowProcesses(context, json);
  if (args[0] == "configuration" && rest.empty()) return ShowConfiguration(context, json);
  return usage();
}

}  // namespace sluice::rtrmgr::cli
