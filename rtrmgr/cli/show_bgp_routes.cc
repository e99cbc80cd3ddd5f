// sluice show bgp routes ...: the Loc-RIB or a peer's Adj-RIB-In / -Out (bgp/1.0 list_routes,
// every page), and how many routes each holds.

#include <iostream>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ipc/methods/bgp.h"
#include "ipc/types_convert.h"
#include "rtrmgr/cli/json_view.h"
#include "rtrmgr/cli/queries.h"
#include "rtrmgr/cli/show.h"

namespace sluice::rtrmgr::cli {
namespace {

constexpr char kRoutesForm[] =
    "show bgp routes [ PREFIX ] [ peer ADDR ] [ in | out ] [ ipv4 | ipv6 ] "
    "[ rpki { valid | invalid | not-found } ] [ --json ]";

const char* ViewName(bgp::v1::RibView v) {
  switch (v) {
    case bgp::v1::ADJ_RIB_IN:
      return "adj_rib_in";
    case bgp::v1::ADJ_RIB_OUT:
      return "adj_rib_out";
    default:
      return "loc_rib";
  }
}

bool IsRpkiState(const std::string& s) {
  return s == "valid" || s == "invalid" || s == "not-found";
}

// The requests a query stands for: per peer (every_peer), per family (both_families).
absl::StatusOr<std::vector<bgp::v1::ListRoutesRequest>> Requests(const BgpRoutesQuery& query,
                                                                 SyncClient& client) {
  std::vector<bgp::v1::ListRoutesRequest> by_peer = {query.request};
  if (query.every_peer) {
    auto peers = client.Call("bgp", ipc::methods::bgp::kListPeers, bgp::v1::ListPeersRequest());
    if (!peers.ok()) return peers.status();
    by_peer.clear();
    for (const bgp::v1::PeerInfo& p : peers->peers()) {
      bgp::v1::ListRoutesRequest q = query.request;
      *q.mutable_peer() = p.address();
      by_peer.push_back(std::move(q));
    }
  }
  if (!query.both_families) return by_peer;
  std::vector<bgp::v1::ListRoutesRequest> out;
  for (const bgp::v1::ListRoutesRequest& q : by_peer) {
    for (const char* family : {"ipv4", "ipv6"}) {
      out.push_back(q);
      out.back().set_family(family);
    }
  }
  return out;
}

// One table row; the RPKI column only when sluice-bgp validates.
void PrintRoute(const bgp::v1::Route& route, bool rpki, std::ostream& out) {
  out << absl::StrFormat("%-20s %-18s %-16s %6s %6s %-4s ", Text(route.network()),
                         Text(route.nexthop()), route.has_peer() ? Text(route.peer()) : "local",
                         route.has_med() ? absl::StrCat(route.med()) : "-",
                         route.has_local_pref() ? absl::StrCat(route.local_pref()) : "-",
                         route.origin().substr(0, 3));
  if (rpki) out << absl::StrFormat("%-9s ", route.rpki().empty() ? "-" : route.rpki());
  out << route.as_path() << "\n";
}

}  // namespace

std::optional<BgpRoutesQuery> ParseBgpRoutes(const Args& args, Context& c) {
  BgpRoutesQuery query;
  bgp::v1::ListRoutesRequest& q = query.request;
  q.set_view(bgp::v1::LOC_RIB);
  q.set_family("ipv4");
  std::string peer;
  bool family_given = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "peer" && i + 1 < args.size()) {
      peer = args[++i];
      if (q.view() == bgp::v1::LOC_RIB) q.set_view(bgp::v1::ADJ_RIB_IN);
    } else if (args[i] == "rpki" && i + 1 < args.size() && IsRpkiState(args[i + 1])) {
      q.set_rpki(args[++i]);
    } else if (args[i] == "in") {
      q.set_view(bgp::v1::ADJ_RIB_IN);
    } else if (args[i] == "out") {
      q.set_view(bgp::v1::ADJ_RIB_OUT);
    } else if (args[i] == "ipv6" || args[i] == "ipv4") {
      q.set_family(args[i]);
      family_given = true;
    } else if (auto p = net::Prefix::Parse(args[i]); p.ok()) {
      ipc::ToProto(*p, q.mutable_prefix());
      q.set_family(p->is_v4() ? "ipv4" : "ipv6");
      family_given = true;
    } else {
      UsageError(c, kRoutesForm);
      return std::nullopt;
    }
  }
  if (!q.rpki().empty()) {
    // The state is the Adj-RIB-In's: every received route, the import policy's verdict aside.
    if (q.view() == bgp::v1::ADJ_RIB_OUT) {
      *c.err << "sluice show bgp routes: rpki selects received routes (not out)\n";
      return std::nullopt;
    }
    q.set_view(bgp::v1::ADJ_RIB_IN);
    query.every_peer = peer.empty();
    query.both_families = !family_given;
  }
  if (q.view() != bgp::v1::LOC_RIB && peer.empty() && !query.every_peer) {
    *c.err << "sluice show bgp routes: in/out want peer ADDR\n";
    return std::nullopt;
  }
  if (!peer.empty()) {
    auto a = net::IPAddress::Parse(peer);
    if (!a.ok()) {
      *c.err << "sluice show bgp routes: " << a.status().message() << "\n";
      return std::nullopt;
    }
    ipc::ToProto(*a, q.mutable_peer());
  }
  return query;
}

int ShowBgpRoutes(const Args& args, Context& c, bool json) {
  std::optional<BgpRoutesQuery> query = ParseBgpRoutes(args, c);
  if (!query) return kUsage;
  query->request.set_max_routes(10000);
  SyncClient client(c.finder_address, c.timeout_ms);
  auto requests = Requests(*query, client);
  if (!requests.ok()) return Fail(c, "bgp routes", requests.status());
  Json routes = Json::array();
  uint64_t n = 0;
  std::optional<bool> rpki_column;  // decided by the first page: whether sluice-bgp validates
  auto header = [&](bool rpki) {
    rpki_column = rpki;
    *c.out << absl::StrFormat("%-20s %-18s %-16s %6s %6s %-4s ", "network", "nexthop", "from",
                              "med", "lpref", "orig");
    if (rpki) *c.out << absl::StrFormat("%-9s ", "rpki");
    *c.out << "as path\n";
  };
  for (bgp::v1::ListRoutesRequest& q : *requests) {
    while (true) {
      auto r = client.Call("bgp", ipc::methods::bgp::kListRoutes, q);
      if (!r.ok()) return Fail(c, "bgp routes", r.status());
      if (!json && !rpki_column && !r->routes().empty()) {
        header(!r->routes(0).rpki().empty());
      }
      for (const bgp::v1::Route& route : r->routes()) {
        ++n;
        if (json) {
          routes.push_back(BgpRouteJson(route));
        } else {
          PrintRoute(route, *rpki_column, *c.out);
        }
      }
      if (!r->more() || r->routes().empty()) break;
      *q.mutable_start_after() = r->routes().rbegin()->network();
    }
  }
  const bgp::v1::ListRoutesRequest& q = query->request;
  if (json) {
    *c.out << Print(Json{{"view", ViewName(q.view())},
                         {"family", query->both_families ? "all" : q.family()},
                         {"peer", q.has_peer() ? AddressJson(q.peer()) : Json(nullptr)},
                         {"rpki", q.rpki().empty() ? Json(nullptr) : Json(q.rpki())},
                         {"routes", routes}})
           << "\n";
  } else {
    if (!rpki_column) header(false);
    *c.out << n << " routes\n";
  }
  return kOk;
}

// The Loc-RIB counted route by route; each peer's Adj-RIB-In and -Out from its own counts.
int ShowBgpRoutesCount(Context& c, bool json) {
  SyncClient client(c.finder_address, c.timeout_ms);
  Json loc_rib = Json::object();
  for (const char* family : {"ipv4", "ipv6"}) {
    auto routes = AllBgpRoutes(client, bgp::v1::LOC_RIB, "", family);
    if (!routes.ok()) return Fail(c, "bgp routes count", routes.status());
    loc_rib[family] = routes->size();
  }
  auto r = client.Call("bgp", ipc::methods::bgp::kListPeers, bgp::v1::ListPeersRequest());
  if (!r.ok()) return Fail(c, "bgp routes count", r.status());
  Json peers = Json::array();
  for (const bgp::v1::PeerInfo& p : r->peers()) {
    Json in = {{"ipv4", 0}, {"ipv6", 0}}, out = {{"ipv4", 0}, {"ipv6", 0}};
    for (const bgp::v1::PeerFamily& f : p.family_counts()) {
      in[f.family()] = f.received();
      out[f.family()] = f.advertised();
    }
    peers.push_back(Json{{"address", AddressJson(p.address())},
                         {"adj_rib_in", in},
                         {"accepted", p.prefixes_accepted()},
                         {"adj_rib_out", out}});
  }
  if (json) {
    *c.out << Print(Json{{"loc_rib", loc_rib}, {"peers", peers}}) << "\n";
    return kOk;
  }
  *c.out << absl::StrFormat("%-20s %12s %12s %12s %12s\n", "", "ipv4 in", "ipv6 in", "ipv4 out",
                            "ipv6 out");
  *c.out << absl::StrFormat("%-20s %12u %12u\n", "Loc-RIB", loc_rib["ipv4"].get<uint64_t>(),
                            loc_rib["ipv6"].get<uint64_t>());
  for (const Json& p : peers) {
    *c.out << absl::StrFormat(
        "%-20s %12u %12u %12u %12u\n",
        p["address"].is_string() ? p["address"].get<std::string>() : "-",
        p["adj_rib_in"]["ipv4"].get<uint64_t>(), p["adj_rib_in"]["ipv6"].get<uint64_t>(),
        p["adj_rib_out"]["ipv4"].get<uint64_t>(), p["adj_rib_out"]["ipv6"].get<uint64_t>());
  }
  return kOk;
}

}  // namespace sluice::rtrmgr::cli
