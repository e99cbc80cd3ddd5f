// sluice show route ... and show fib: the RIB's winners (rib/1.0 list_routes), one destination's
// longest match in the RIB and in the FEA's FIB (lookup_route_by_dest4/6 of each), and the FIB
// (fea_fib/1.0 list_routes).

#include <iostream>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "ipc/methods/fea_fib.h"
#include "ipc/methods/rib.h"
#include "ipc/types_convert.h"
#include "rtrmgr/cli/json_view.h"
#include "rtrmgr/cli/queries.h"
#include "rtrmgr/cli/show.h"

namespace sluice::rtrmgr::cli {
namespace {

constexpr char kRouteHeader[] = "%-24s %-10s %4s %-20s %-8s %6s\n";

void PrintRibRoute(const rib::v1::RibRoute& r, std::ostream& out) {
  std::string nexthop = r.has_nexthop() ? Text(r.nexthop()) : "direct";
  if (r.resolved() && r.has_resolved_nexthop()) {
    nexthop += " (via " + Text(r.resolved_nexthop()) + ")";
  }
  out << absl::StrFormat(
      kRouteHeader, Text(r.network()), r.protocol(), absl::StrCat(r.admin_distance()), nexthop,
      r.resolved_ifname().empty() ? r.ifname() : r.resolved_ifname(), absl::StrCat(r.metric()));
}

std::string Nexthops(const fea_fib::v1::FibRoute& f) {
  std::vector<std::string> hops;
  for (const auto& h : f.nexthops()) {
    hops.push_back(absl::StrCat(h.has_gateway() ? Text(h.gateway()) : "direct",
                                h.ifname().empty() ? "" : " dev " + h.ifname()));
  }
  return absl::StrJoin(hops, ", ");
}

// Longest match for `a` in the RIB and in the FIB; nullopt when none covers it.
struct Lookup {
  std::optional<rib::v1::RibRoute> rib;
  std::optional<fea_fib::v1::FibRoute> fib;
};
absl::StatusOr<Lookup> LookUp(SyncClient& client, const net::IPAddress& a) {
  Lookup out;
  absl::StatusOr<rib::v1::LookupRouteReply> rib;
  absl::StatusOr<fea_fib::v1::LookupRouteReply> fib;
  if (a.is_v4()) {
    rib::v1::LookupRouteByDest4Request q;
    ipc::ToProto(a.v4(), q.mutable_dest());
    rib = client.Call("rib", ipc::methods::rib::kLookupRouteByDest4, q);
    fea_fib::v1::LookupRouteByDest4Request f;
    ipc::ToProto(a.v4(), f.mutable_dest());
    fib = client.Call("fea", ipc::methods::fea_fib::kLookupRouteByDest4, f);
  } else {
    rib::v1::LookupRouteByDest6Request q;
    ipc::ToProto(a.v6(), q.mutable_dest());
    rib = client.Call("rib", ipc::methods::rib::kLookupRouteByDest6, q);
    fea_fib::v1::LookupRouteByDest6Request f;
    ipc::ToProto(a.v6(), f.mutable_dest());
    fib = client.Call("fea", ipc::methods::fea_fib::kLookupRouteByDest6, f);
  }
  if (!rib.ok()) return rib.status();
  if (!fib.ok()) return fib.status();
  if (rib->found()) out.rib = rib->route();
  if (fib->found()) out.fib = fib->route();
  return out;
}

}  // namespace

int ShowRoute(const Args& args, Context& c, bool json) {
  std::string family = "ipv4";
  std::optional<net::Prefix> prefix;
  for (const std::string& a : args) {
    if (a == "ipv4" || a == "ipv6") {
      family = a;
    } else if (auto p = net::Prefix::Parse(a); p.ok()) {
      prefix = *p;
      family = p->is_v4() ? "ipv4" : "ipv6";
    } else {
      return UsageError(c, "show route [ ipv4 | ipv6 ] [ PREFIX ] [ --json ]");
    }
  }
  SyncClient client(c.finder_address, c.timeout_ms);
  std::vector<rib::v1::RibRoute> routes;
  if (prefix) {
    rib::v1::LookupRouteByNetworkRequest q;
    ipc::ToProto(*prefix, q.mutable_network());
    auto r = client.Call("rib", ipc::methods::rib::kLookupRouteByNetwork, q);
    if (!r.ok()) return Fail(c, "route", r.status());
    if (r->found()) routes.push_back(r->route());
  } else {
    auto r = AllRibRoutes(client, family);
    if (!r.ok()) return Fail(c, "route", r.status());
    routes = *std::move(r);
  }
  if (json) {
    Json list = Json::array();
    for (const rib::v1::RibRoute& r : routes) list.push_back(RibRouteJson(r));
    *c.out << Print(Json{{"family", family}, {"routes", list}}) << "\n";
    return kOk;
  }
  *c.out << absl::StrFormat(kRouteHeader, "network", "protocol", "AD", "nexthop", "ifname",
                            "metric");
  for (const rib::v1::RibRoute& r : routes) PrintRibRoute(r, *c.out);
  *c.out << routes.size() << " routes\n";
  return kOk;
}

int ShowRouteFor(const std::string& address, Context& c, bool json) {
  auto a = net::IPAddress::Parse(address);
  if (!a.ok()) return UsageError(c, "show route for ADDRESS [ --json ]");
  SyncClient client(c.finder_address, c.timeout_ms);
  auto found = LookUp(client, *a);
  if (!found.ok()) return Fail(c, "route for " + address, found.status());
  if (json) {
    *c.out << Print(Json{{"address", a->ToString()},
                         {"rib", found->rib ? RibRouteJson(*found->rib) : Json(nullptr)},
                         {"fib", found->fib ? FibRouteJson(*found->fib) : Json(nullptr)}})
           << "\n";
    return kOk;
  }
  *c.out << "RIB:";
  if (found->rib) {
    *c.out << "\n"
           << absl::StrFormat(kRouteHeader, "network", "protocol", "AD", "nexthop", "ifname",
                              "metric");
    PrintRibRoute(*found->rib, *c.out);
  } else {
    *c.out << " no route to " << a->ToString() << "\n";
  }
  *c.out << "FIB: ";
  if (found->fib) {
    *c.out << Text(found->fib->network()) << " " << found->fib->protocol() << " via "
           << Nexthops(*found->fib) << " metric " << found->fib->metric() << "\n";
  } else {
    *c.out << "no route to " << a->ToString() << "\n";
  }
  return kOk;
}

int ShowFib(Context& c, bool json, const std::string& fea) {
  SyncClient client(c.finder_address, c.timeout_ms);
  auto r = AllFibRoutes(client, fea);
  if (!r.ok()) return Fail(c, "fib", r.status());
  if (json) {
    Json list = Json::array();
    for (const fea_fib::v1::FibRoute& f : *r) list.push_back(FibRouteJson(f));
    *c.out << Print(Json{{"routes", list}}) << "\n";
    return kOk;
  }
  *c.out << absl::StrFormat("%-24s %-10s %-30s %6s\n", "network", "protocol", "nexthops", "metric");
  for (const fea_fib::v1::FibRoute& f : *r) {
    *c.out << absl::StrFormat("%-24s %-10s %-30s %6u\n", Text(f.network()), f.protocol(),
                              Nexthops(f), f.metric());
  }
  *c.out << r->size() << " routes\n";
  return kOk;
}

}  // namespace sluice::rtrmgr::cli
