#pragma once
// The `sluice show` views (show_command.cc dispatches). Each prints a table, or with `json` one
// JSON document (json_view.h, docs/json.md), and returns an exit code (command.h).

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ipc/proto/bgp.pb.h"
#include "ipc/proto/rib.pb.h"
#include "ipc/proto/types.pb.h"
#include "rtrmgr/cli/command.h"
#include "rtrmgr/cli/json_view.h"
#include "rtrmgr/cli/sync_client.h"

namespace sluice::rtrmgr::cli {

using Args = std::vector<std::string>;

// Addresses and prefixes as text; "-" when unset or unreadable.
std::string Text(const types::v1::IPAddress& a);
std::string Text(const types::v1::IPPrefix& p);
// "sluice show WHAT: message" on the error stream; kFailed.
int Fail(Context& c, const std::string& what, const absl::Status& s);
// kUsage after printing `form`'s usage line.
int UsageError(Context& c, const std::string& form);

// show_bgp.cc
int ShowBgpPeers(Context& c, bool json);
int ShowBgpSummary(Context& c, bool json);
int ShowBgpNeighbor(const Args& args, Context& c, bool json);
int ShowBgpDamping(const Args& args, Context& c, bool json);
int ShowBgpBmp(const Args& args, Context& c, bool json);
// show_bgp_routes.cc
// What `show bgp routes ARGS` asks sluice-bgp for (bgp/1.0 list_routes): `request`, sent once
// per family listed (both with `rpki STATE` and neither a family nor a prefix) and, with
// `every_peer` (`rpki STATE` without `peer ADDR`), once per peer with its address in `peer`.
// `rpki STATE` selects the Adj-RIB-In's routes in that RFC 6811 state ("valid", "invalid",
// "not-found"). nullopt (after printing why) on a usage error.
struct BgpRoutesQuery {
  bgp::v1::ListRoutesRequest request;
  bool every_peer = false;
  bool both_families = false;
};
std::optional<BgpRoutesQuery> ParseBgpRoutes(const Args& args, Context& c);
int ShowBgpRoutes(const Args& args, Context& c, bool json);
int ShowBgpRoutesCount(Context& c, bool json);
// show_route.cc
int ShowRoute(const Args& args, Context& c, bool json);
int ShowRouteFor(const std::string& address, Context& c, bool json);
int ShowRouteSummary(Context& c, bool json);
// `fea`: the FEA instance whose FIB is listed ("fea": the first of the class).
int ShowFib(Context& c, bool json, const std::string& fea = "fea");
// show_rpki.cc
int ShowRpki(Context& c, bool json);
int ShowRpkiVrps(const Args& args, Context& c, bool json);
// show_feas.cc: the FEAs the RIB feeds (rib/1.0 list_feas) and, for each one up, the routes
// its FIB holds (its fea_fib/1.0 get_stats; nullopt when down, lagging or not answering).
struct FeaRow {
  rib::v1::FeaFeed feed;
  std::optional<uint64_t> routes;
};
absl::StatusOr<std::vector<FeaRow>> FeaRows(SyncClient& client);
// A table: name, state (down, up, lagging, resyncing), routes, backlog (changes queued or in
// flight), full pushes, times lagged.
void PrintFeas(const std::vector<FeaRow>& rows, std::ostream& out);
Json FeasJson(const std::vector<FeaRow>& rows);
// show_system.cc
int ShowInterfaces(Context& c, bool json);
int ShowPlumbing(const std::string& process, Context& c, bool json);
int ShowProcesses(Context& c, bool json);
int ShowConfiguration(Context& c, bool json);
int ShowConfigurationDiff(const std::string& n, Context& c, bool json);

}  // namespace sluice::rtrmgr::cli
