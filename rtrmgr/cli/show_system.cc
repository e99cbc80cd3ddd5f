// sluice show { interfaces | plumbing | processes | configuration [ diff N ] }: the FEA's
// interfaces, a process's stage network, and what the router manager runs and with which
// configuration.

#include <iostream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "ipc/methods/fea_ifmgr.h"
#include "ipc/methods/profile.h"
#include "ipc/methods/rtrmgr.h"
#include "rtrmgr/cli/json_view.h"
#include "rtrmgr/cli/line_diff.h"
#include "rtrmgr/cli/queries.h"
#include "rtrmgr/cli/show.h"

namespace sluice::rtrmgr::cli {

int ShowInterfaces(Context& c, bool json) {
  SyncClient client(c.finder_address, c.timeout_ms);
  auto r = client.Call("fea", ipc::methods::fea_ifmgr::kListInterfaces,
                       fea_ifmgr::v1::ListInterfacesRequest());
  if (!r.ok()) return Fail(c, "interfaces", r.status());
  if (json) {
    Json list = Json::array();
    for (const auto& i : r->interfaces()) list.push_back(InterfaceJson(i));
    *c.out << Print(Json{{"interfaces", list}}) << "\n";
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
  auto r = client.Call(process, ipc::methods::profile::kDescribePlumbing,
                       profile::v1::DescribePlumbingRequest());
  if (!r.ok()) return Fail(c, "plumbing " + process, r.status());
  *c.out << (json ? Print(Json{{"process", process}, {"text", r->text()}}) : r->text()) << "\n";
  return kOk;
}

namespace {

void PrintChildren(const rtrmgr::v1::GetStatusReply& r, std::ostream& out) {
  out << "configuration: " << r.config_file() << "\n";
  if (r.confirm_remaining_ms() > 0) {
    out << absl::StrFormat(
        "unconfirmed: rolls back in %.0f s unless `sluice configure confirm` follows\n",
        r.confirm_remaining_ms() / 1000.0);
  }
  out << absl::StrFormat("%-14s %8s %8s %-10s %10s %10s  %s\n", "process", "pid", "restarts",
                         "configured", "RSS MB", "peak MB", "last exit");
  for (const auto& p : r.children()) {
    out << absl::StrFormat("%-14s %8d %8u %-10s %10.1f %10.1f  %s\n", "sluice-" + p.name(), p.pid(),
                           p.restarts(), p.configured() ? "yes" : "no", p.rss_kb() / 1024.0,
                           p.peak_rss_kb() / 1024.0, p.last_exit());
  }
}

}  // namespace

// What the router manager runs, then the FEAs the RIB feeds, local or not: either half alone
// when the other does not answer (a RIB without a router manager, say).
int ShowProcesses(Context& c, bool json) {
  SyncClient client(c.finder_address, c.timeout_ms);
  auto r = client.Call("rtrmgr", ipc::methods::rtrmgr::kGetStatus, rtrmgr::v1::GetStatusRequest());
  auto feas = FeaRows(client);
  if (!r.ok() && !feas.ok()) return Fail(c, "processes", r.status());
  if (json) {
    Json out = r.ok() ? StatusJson(*r) : Json::object();
    out["feas"] = feas.ok() ? FeasJson(*feas) : Json::array();
    *c.out << Print(out) << "\n";
    return kOk;
  }
  if (r.ok()) {
    PrintChildren(*r, *c.out);
  } else {
    *c.err << "sluice show processes: the router manager: " << r.status().message() << "\n";
  }
  if (feas.ok()) PrintFeas(*feas, *c.out);
  return kOk;
}

// The configuration the processes run, as the router manager prints it.
int ShowConfiguration(Context& c, bool json) {
  SyncClient client(c.finder_address, c.timeout_ms);
  auto r = client.Call("rtrmgr", ipc::methods::rtrmgr::kGetConfig, rtrmgr::v1::GetConfigRequest());
  if (!r.ok()) return Fail(c, "configuration", r.status());
  *c.out << (json ? Print(Json{{"file", r->file()}, {"text", r->text()}}) + "\n" : r->text());
  return kOk;
}

// The running configuration against the one committed N loads ago (the archive's entry N).
int ShowConfigurationDiff(const std::string& n_text, Context& c, bool json) {
  uint32_t n = 0;
  if (!absl::SimpleAtoi(n_text, &n) || n == 0) {
    return UsageError(c, "show configuration diff N [ --json ]");
  }
  SyncClient client(c.finder_address, c.timeout_ms);
  rtrmgr::v1::GetConfigRequest q;
  q.set_archived(n);
  auto before = client.Call("rtrmgr", ipc::methods::rtrmgr::kGetConfig, q);
  if (!before.ok()) return Fail(c, "configuration diff", before.status());
  auto running =
      client.Call("rtrmgr", ipc::methods::rtrmgr::kGetConfig, rtrmgr::v1::GetConfigRequest());
  if (!running.ok()) return Fail(c, "configuration diff", running.status());
  const std::vector<DiffLine> diff = LineDiff(before->text(), running->text());
  if (json) {
    Json lines = Json::array();
    for (const DiffLine& d : diff) {
      if (d.op == ' ') continue;
      lines.push_back(Json{{"op", std::string(1, d.op)}, {"line", d.line}, {"text", d.text}});
    }
    *c.out << Print(Json{{"n", n}, {"archived_file", before->file()}, {"changes", lines}}) << "\n";
    return kOk;
  }
  const std::string text = FormatDiff(diff);
  *c.out << "--- committed " << n << " loads ago (" << before->file() << ")\n"
         << "+++ running\n"
         << (text.empty() ? "no difference\n" : text);
  return kOk;
}

}  // namespace sluice::rtrmgr::cli
