// sluice show route summary: per family, each protocol's routes in the RIB (rib/1.0 list_routes
// of that protocol) and how many of them won (list_routes of the winners).

#include <iostream>
#include <map>

#include "absl/strings/str_format.h"
#include "ipc/methods/rib.h"
#include "rtrmgr/cli/json_view.h"
#include "rtrmgr/cli/queries.h"
#include "rtrmgr/cli/show.h"

namespace sluice::rtrmgr::cli {

// Per family: each protocol's own routes and how many of them won.
int ShowRouteSummary(Context& c, bool json) {
  SyncClient client(c.finder_address, c.timeout_ms);
  auto protocols =
      client.Call("rib", ipc::methods::rib::kListProtocols, rib::v1::ListProtocolsRequest());
  if (!protocols.ok()) return Fail(c, "route summary", protocols.status());
  Json families = Json::array();
  for (const char* family : {"ipv4", "ipv6"}) {
    auto winners = AllRibRoutes(client, family);
    if (!winners.ok()) return Fail(c, "route summary", winners.status());
    std::map<std::string, uint64_t> selected;
    for (const rib::v1::RibRoute& r : *winners) ++selected[r.protocol()];
    Json list = Json::array();
    uint64_t total = 0;
    for (const rib::v1::ProtocolInfo& p : protocols->protocols()) {
      auto own = AllRibRoutes(client, family, p.protocol());
      if (!own.ok()) return Fail(c, "route summary", own.status());
      if (own->empty() && !selected.count(p.protocol())) continue;
      total += own->size();
      list.push_back(Json{{"protocol", p.protocol()},
                          {"admin_distance", p.admin_distance()},
                          {"routes", own->size()},
                          {"selected", selected[p.protocol()]}});
    }
    families.push_back(Json{
        {"family", family}, {"routes", total}, {"selected", winners->size()}, {"protocols", list}});
  }
  if (json) {
    *c.out << Print(Json{{"families", families}}) << "\n";
    return kOk;
  }
  *c.out << absl::StrFormat("%-6s %-12s %4s %10s %10s\n", "family", "protocol", "AD", "routes",
                            "selected");
  for (const Json& f : families) {
    for (const Json& p : f["protocols"]) {
      *c.out << absl::StrFormat("%-6s %-12s %4u %10u %10u\n", f["family"].get<std::string>(),
                                p["protocol"].get<std::string>(),
                                p["admin_distance"].get<uint32_t>(), p["routes"].get<uint64_t>(),
                                p["selected"].get<uint64_t>());
    }
    *c.out << absl::StrFormat("%-6s %-12s %4s %10u %10u\n", f["family"].get<std::string>(), "total",
                              "", f["routes"].get<uint64_t>(), f["selected"].get<uint64_t>());
  }
  return kOk;
}

}  // namespace sluice::rtrmgr::cli
