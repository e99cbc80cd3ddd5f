// The FEAs the RIB feeds, for `sluice show processes`: rib/1.0 list_feas, and each live FEA's
// route count from its own fea_fib/1.0 get_stats.

#include <ostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ipc/methods/fea_fib.h"
#include "ipc/methods/rib.h"
#include "rtrmgr/cli/show.h"

namespace sluice::rtrmgr::cli {
namespace {

std::string StateText(const FeaRow& row) {
  if (!row.feed.up()) return "down";
  if (row.feed.lagging()) return "lagging";
  if (row.feed.resyncing()) return "resyncing";
  return "up";
}

}  // namespace

absl::StatusOr<std::vector<FeaRow>> FeaRows(SyncClient& client) {
  auto r = client.Call("rib", ipc::methods::rib::kListFeas, rib::v1::ListFeasRequest());
  if (!r.ok()) return r.status();
  std::vector<FeaRow> rows;
  for (const rib::v1::FeaFeed& feed : r->feas()) {
    FeaRow row{.feed = feed, .routes = std::nullopt};
    // A lagging FEA is not answering: its count would cost the call's whole timeout.
    if (feed.up() && !feed.lagging()) {
      auto stats =
          client.Call(feed.fea(), ipc::methods::fea_fib::kGetStats, fea_fib::v1::GetStatsRequest());
      if (stats.ok()) row.routes = stats->routes_ipv4() + stats->routes_ipv6();
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

void PrintFeas(const std::vector<FeaRow>& rows, std::ostream& out) {
  out << absl::StrFormat("\n%-14s %-10s %10s %10s %11s %7s %10s\n", "FEA", "state", "routes",
                         "backlog", "full pushes", "lagged", "interfaces");
  for (const FeaRow& row : rows) {
    out << absl::StrFormat("%-14s %-10s %10s %10u %11u %7u %10s\n", row.feed.fea(), StateText(row),
                           row.routes ? absl::StrCat(*row.routes) : "-",
                           row.feed.queued() + row.feed.in_flight(), row.feed.full_pushes(),
                           row.feed.lagged(), row.feed.interfaces_known() ? "known" : "-");
  }
}

Json FeasJson(const std::vector<FeaRow>& rows) {
  Json list = Json::array();
  for (const FeaRow& row : rows) {
    list.push_back(Json{{"name", row.feed.fea()},
                        {"state", StateText(row)},
                        {"routes", row.routes ? Json(*row.routes) : Json(nullptr)},
                        {"queued", row.feed.queued()},
                        {"in_flight", row.feed.in_flight()},
                        {"full_pushes", row.feed.full_pushes()},
                        {"lagged", row.feed.lagged()},
                        {"batches_failed", row.feed.batches_failed()},
                        {"interfaces_known", row.feed.interfaces_known()}});
  }
  return list;
}

}  // namespace sluice::rtrmgr::cli
