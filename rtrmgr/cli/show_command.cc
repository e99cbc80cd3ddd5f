// sluice show ...: operational views for people (tables) and scripts (--json: one JSON document
// per command, docs/json.md). The forms are in commands.cc; the views in show_*.cc.

#include <iostream>

#include "ipc/types_convert.h"
#include "rtrmgr/cli/show.h"

namespace sluice::rtrmgr::cli {

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

int UsageError(Context& c, const std::string& form) {
  *c.err << "usage: sluice " << form << "\n";
  return kUsage;
}

namespace {

int ShowBgp(const Args& args, Context& c, bool json) {
  const std::string what = args.empty() ? "" : args[0];
  const Args rest(args.begin() + (args.empty() ? 0 : 1), args.end());
  if (what == "peers" && rest.empty()) return ShowBgpPeers(c, json);
  if (what == "summary" && rest.empty()) return ShowBgpSummary(c, json);
  if (what == "neighbor") return ShowBgpNeighbor(rest, c, json);
  if (what == "damping") return ShowBgpDamping(rest, c, json);
  if (what == "bmp") return ShowBgpBmp(rest, c, json);
  if (what == "routes" && rest.size() == 1 && rest[0] == "count") {
    return ShowBgpRoutesCount(c, json);
  }
  if (what == "routes") return ShowBgpRoutes(rest, c, json);
  *c.err << Usage(*FindCommand("show"));
  return kUsage;
}

}  // namespace

int RunShow(const std::vector<std::string>& all_args, Context& context) {
  Args args;
  bool json = false;
  for (const std::string& a : all_args) {
    if (a == "--json") {
      json = true;
    } else {
      args.push_back(a);
    }
  }
  if (args.empty()) {
    *context.err << Usage(*FindCommand("show"));
    return kUsage;
  }
  const Args rest(args.begin() + 1, args.end());
  const std::string& what = args[0];
  if (what == "bgp") return ShowBgp(rest, context, json);
  if (what == "route" && rest.size() == 2 && rest[0] == "for") {
    return ShowRouteFor(rest[1], context, json);
  }
  if (what == "route" && rest.size() == 1 && rest[0] == "summary") {
    return ShowRouteSummary(context, json);
  }
  if (what == "route") return ShowRoute(rest, context, json);
  if (what == "fib" && rest.empty()) return ShowFib(context, json);
  if (what == "fib" && rest.size() == 2 && rest[0] == "fea") return ShowFib(context, json, rest[1]);
  if (what == "rpki" && rest.empty()) return ShowRpki(context, json);
  if (what == "rpki" && !rest.empty() && rest[0] == "vrps") {
    return ShowRpkiVrps(Args(rest.begin() + 1, rest.end()), context, json);
  }
  if (what == "interfaces" && rest.empty()) return ShowInterfaces(context, json);
  if (what == "plumbing" && rest.size() == 1) return ShowPlumbing(rest[0], context, json);
  if (what == "processes" && rest.empty()) return ShowProcesses(context, json);
  if (what == "configuration" && rest.empty()) return ShowConfiguration(context, json);
  if (what == "configuration" && rest.size() == 2 && rest[0] == "diff") {
    return ShowConfigurationDiff(rest[1], context, json);
  }
  *context.err << Usage(*FindCommand("show"));
  return kUsage;
}

}  // namespace sluice::rtrmgr::cli
