// sluice set log level LEVEL [ PROCESS ]: a process's log threshold, at once, until it restarts
// or a reload changes its log block (common/1.0 set_log; base/log.h).
#include <iostream>

#include "base/log.h"
#include "ipc/methods/common.h"
#include "ipc/proto/common.pb.h"
#include "rtrmgr/cli/command.h"
#include "rtrmgr/cli/sync_client.h"

namespace sluice::rtrmgr::cli {
namespace {

using ipc::methods::common::kSetLog;

// The processes by the names an operator uses, and their Finder targets.
struct Process {
  const char* name;
  const char* target;
};
// Not the Finder: its server has no common/1.0 (its log block applies when it starts).
constexpr Process kProcesses[] = {{"rtrmgr", "rtrmgr"},        {"fea", "fea"},   {"rib", "rib"},
                                  {"static", "static_routes"}, {"rpki", "rpki"}, {"bgp", "bgp"}};

}  // namespace

int RunSet(const std::vector<std::string>& args, Context& c) {
  base::LogLevel level;
  if (args.size() < 3 || args.size() > 4 || args[0] != "log" || args[1] != "level") {
    *c.err << Usage(*FindCommand("set"));
    return kUsage;
  }
  if (!base::ParseLogLevel(args[2], &level)) {
    *c.err << "sluice set log level: unknown level " << args[2]
           << " (debug, info, warning, error)\n";
    return kUsage;
  }
  const std::string only = args.size() == 4 ? args[3] : "";
  bool known = only.empty();
  for (const Process& p : kProcesses) known |= only == p.name;
  if (!known) {
    *c.err << "sluice set log level: unknown process " << only
           << " (rtrmgr, fea, rib, static, rpki, bgp)\n";
    return kUsage;
  }
  SyncClient client(c.finder_address, c.timeout_ms);
  int status = kOk;
  for (const Process& p : kProcesses) {
    if (!only.empty() && only != p.name) continue;
    common::v1::SetLogRequest q;
    q.set_level(std::string(base::LogLevelName(level)));
    auto reply = client.Call(p.target, kSetLog, q);
    if (reply.ok()) {
      *c.out << p.name << ": log level " << reply->level() << "\n";
    } else if (!only.empty() || reply.status().code() != absl::StatusCode::kNotFound) {
      // Without PROCESS, a process that does not run (no rpki block) is no error.
      *c.err << "sluice set log level: " << p.name << ": " << reply.status().message() << "\n";
      status = kFailed;
    }
  }
  return status;
}

}  // namespace sluice::rtrmgr::cli
