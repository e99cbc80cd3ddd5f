// sluice show bgp bmp: sluice-bgp's BMP monitoring stations (RFC 7854) — connection state, the
// Route Monitoring each is sent, and how its bounded buffer fares (bgp/1.0 list_bmp_stations).
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "ipc/methods/bgp.h"
#include "rtrmgr/cli/json_view.h"
#include "rtrmgr/cli/show.h"
#include "rtrmgr/cli/sync_client.h"

namespace sluice::rtrmgr::cli {
namespace {

using ipc::methods::bgp::kListBmpStations;

std::vector<std::string> RouteMonitoring(const bgp::v1::BmpStation& s) {
  std::vector<std::string> out;
  for (int v : s.route_monitoring()) {
    out.push_back(v == bgp::v1::BMP_PRE_POLICY    ? "pre-policy"
                  : v == bgp::v1::BMP_POST_POLICY ? "post-policy"
                  : v == bgp::v1::BMP_LOC_RIB     ? "loc-rib"
                                                  : "unknown");
  }
  return out;
}

// "down", "syncing" (connected, the snapshot is being sent) or "up".
std::string State(const bgp::v1::BmpStation& s) {
  return !s.connected() ? "down" : s.synced() ? "up" : "syncing";
}

Json StationJson(const bgp::v1::BmpStation& s) {
  return Json{{"address", AddressJson(s.address())},
              {"port", s.port()},
              {"state", State(s)},
              {"route_monitoring", RouteMonitoring(s)},
              {"buffer_bytes", s.buffer_bytes()},
              {"queued_bytes", s.queued_bytes()},
              {"bytes_sent", s.bytes_sent()},
              {"connects", s.connects()},
              {"overflows", s.overflows()}};
}

}  // namespace

int ShowBgpBmp(const Args& args, Context& c, bool json) {
  if (!args.empty()) return UsageError(c, "show bgp bmp [ --json ]");
  SyncClient client(c.finder_address, c.timeout_ms);
  auto r = client.Call("bgp", kListBmpStations, bgp::v1::ListBmpStationsRequest());
  if (!r.ok()) return Fail(c, "bgp bmp", r.status());
  if (json) {
    Json stations = Json::array();
    for (const bgp::v1::BmpStation& s : r->stations()) stations.push_back(StationJson(s));
    *c.out << Print(Json{{"stations", stations}}) << "\n";
    return kOk;
  }
  *c.out << absl::StrFormat("%-28s %-8s %-30s %10s %10s %8s %9s\n", "station", "state",
                            "route monitoring", "sent MiB", "queued KiB", "connects", "overflows");
  for (const bgp::v1::BmpStation& s : r->stations()) {
    *c.out << absl::StrFormat("%-28s %-8s %-30s %10.1f %10.1f %8u %9u\n",
                              absl::StrCat(Text(s.address()), " port ", s.port()), State(s),
                              absl::StrJoin(RouteMonitoring(s), " "),
                              double(s.bytes_sent()) / (1 << 20), double(s.queued_bytes()) / 1024,
                              s.connects(), s.overflows());
  }
  *c.out << r->stations_size() << " stations\n";
  return kOk;
}

}  // namespace sluice::rtrmgr::cli
