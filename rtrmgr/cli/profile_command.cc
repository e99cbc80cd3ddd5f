// sluice profile list|enable|disable|get|clear [POINT] [on PROCESS] [--json]: profiling points
// (XORP NSDI'05 §8.1) through profile/1.0. Without `on PROCESS` the command goes to every
// process that has the point (bgp, rib, fea). --json: one document (docs/json.md) for list and
// get; nothing for the others.
//
//   sluice profile list
//   sluice profile enable bgp_route_in
//   sluice profile get rib_route_in on rib
//   sluice profile clear bgp_route_in

#include <iostream>

#include "absl/strings/str_format.h"
#include "ipc/methods/profile.h"
#include "rtrmgr/cli/command.h"
#include "rtrmgr/cli/json_view.h"
#include "rtrmgr/cli/queries.h"

namespace sluice::rtrmgr::cli {

int RunProfile(const std::vector<std::string>& all_args, Context& c) {
  std::vector<std::string> args;
  bool json = false;
  std::vector<std::string> processes = {"bgp", "rib", "fea"};
  for (size_t i = 0; i < all_args.size(); ++i) {
    if (all_args[i] == "--json") {
      json = true;
    } else if (all_args[i] == "on" && i + 1 < all_args.size()) {
      processes = {all_args[++i]};
    } else {
      args.push_back(all_args[i]);
    }
  }
  const std::string verb = args.empty() ? "" : args[0];
  const std::string point = args.size() > 1 ? args[1] : "";
  if (verb.empty() || (verb != "list" && point.empty()) || args.size() > 2) {
    *c.err << Usage(*FindCommand("profile"));
    return kUsage;
  }
  SyncClient client(c.finder_address, c.timeout_ms);
  int found = 0;
  // --json: one document for the whole command (docs/json.md).
  Json listed = Json::array(), entries = Json::array();
  uint64_t dropped = 0;
  for (const std::string& process : processes) {
    auto points =
        client.Call(process, ipc::methods::profile::kListPoints, profile::v1::ListPointsRequest());
    if (!points.ok()) {
      if (processes.size() == 1) {
        *c.err << "sluice profile: " << process << ": " << points.status().message() << "\n";
        return kFailed;
      }
      continue;
    }
    if (verb == "list") {
      for (const auto& p : points->points()) {
        if (json) {
          listed.push_back(Json{{"process", process},
                                {"name", p.name()},
                                {"enabled", p.enabled()},
                                {"entries", p.entries()}});
        } else {
          *c.out << absl::StrFormat("%-6s %-32s %-8s %8u entries\n", process, p.name(),
                                    p.enabled() ? "enabled" : "disabled", p.entries());
        }
      }
      ++found;
      continue;
    }
    bool has = false;
    for (const auto& p : points->points()) has |= p.name() == point;
    if (!has) continue;
    ++found;
    absl::Status s;
    if (verb == "enable" || verb == "disable") {
      profile::v1::EnableRequest q;
      q.set_point(point);
      q.set_enable(verb == "enable");
      s = client.Call(process, ipc::methods::profile::kEnable, q).status();
    } else if (verb == "clear") {
      profile::v1::ClearRequest q;
      q.set_point(point);
      s = client.Call(process, ipc::methods::profile::kClear, q).status();
    } else if (verb == "get") {
      profile::v1::GetEntriesRequest q;
      q.set_point(point);
      auto r = client.Call(process, ipc::methods::profile::kGetEntries, q);
      s = r.status();
      if (r.ok()) {
        for (const auto& e : r->entries()) {
          if (json) {
            entries.push_back(Json{{"process", process},
                                   {"point", point},
                                   {"time_us", e.time_us()},
                                   {"text", e.text()}});
          } else {
            *c.out << absl::StrFormat("%s %s %d.%06d %s\n", process, point, e.time_us() / 1000000,
                                      e.time_us() % 1000000, e.text());
          }
        }
        dropped += r->dropped();
        if (r->dropped() > 0 && !json) *c.out << r->dropped() << " entries dropped\n";
      }
    } else {
      *c.err << "sluice profile: unknown verb " << verb << "\n";
      return kUsage;
    }
    if (!s.ok()) {
      *c.err << "sluice profile " << verb << " " << point << " on " << process << ": "
             << s.message() << "\n";
      return kFailed;
    }
  }
  if (found == 0) {
    *c.err << "sluice profile: no process has "
           << (point.empty() ? "profiling points" : "the point " + point) << "\n";
    return kFailed;
  }
  if (json && verb == "list") *c.out << Print(Json{{"points", listed}}) << "\n";
  if (json && verb == "get") {
    *c.out << Print(Json{{"entries", entries}, {"dropped", dropped}}) << "\n";
  }
  return kOk;
}

}  // namespace sluice::rtrmgr::cli
