// sluice configure: change the running configuration through the router manager, all or
// nothing (a file with errors, or one a process refuses, changes nothing).
//
//   sluice configure load FILE             apply FILE as a delta
//   sluice configure load FILE --check     print the delta only
//   sluice configure load FILE --confirm MINUTES
//                                          apply, and roll back after MINUTES (a decimal
//                                          number: 0.5 is 30 seconds) unless confirmed
//   sluice configure confirm               keep what a --confirm load applied
//   sluice configure rollback [N]          apply the configuration committed N loads ago
//                                          (default 1: the one before the running one)

#include <stdlib.h>

#include <algorithm>
#include <iostream>

#include "absl/strings/numbers.h"
#include "ipc/methods/rtrmgr.h"
#include "rtrmgr/cli/command.h"
#include "rtrmgr/cli/queries.h"

namespace sluice::rtrmgr::cli {

namespace {

// The longest --confirm: one day.
constexpr double kMaxConfirmMinutes = 24 * 60;

// Prints a load's delta and warnings, or its error; the exit code.
int Report(const absl::StatusOr<rtrmgr::v1::LoadConfigReply>& r, const std::string& what,
           Context& c) {
  if (!r.ok()) {
    *c.err << r.status().message() << "\n";
    *c.err << "sluice configure: " << what << " not loaded; the running configuration stays\n";
    return kFailed;
  }
  *c.out << r->delta() << (r->delta().empty() || r->delta().back() == '\n' ? "" : "\n");
  for (const std::string& w : r->warnings()) *c.err << "warning: " << w << "\n";
  return kOk;
}

int Load(const std::vector<std::string>& args, Context& c) {
  rtrmgr::v1::LoadConfigRequest q;
  if (args.size() == 3 && args[2] == "--check") {
    q.set_dry_run(true);
  } else if (args.size() == 4 && args[2] == "--confirm") {
    double minutes = 0;
    if (!absl::SimpleAtod(args[3], &minutes) || !(minutes > 0) || minutes > kMaxConfirmMinutes) {
      *c.err << "sluice configure: --confirm " << args[3]
             << ": want minutes, a number above 0 and at most " << kMaxConfirmMinutes << "\n";
      return kUsage;
    }
    q.set_confirm_ms(std::max<uint64_t>(1, static_cast<uint64_t>(minutes * 60000)));
  } else if (args.size() != 2) {
    *c.err << Usage(*FindCommand("configure"));
    return kUsage;
  }
  char resolved[4096];
  q.set_file(realpath(args[1].c_str(), resolved) != nullptr ? resolved : args[1]);
  SyncClient client(c.finder_address, std::max(c.timeout_ms, 30000));
  int code = Report(client.Call("rtrmgr", ipc::methods::rtrmgr::kLoadConfig, q), args[1], c);
  if (code == kOk && q.confirm_ms() > 0) {
    *c.err << "sluice configure: rolls back in " << args[3]
           << " minutes unless `sluice configure confirm` follows\n";
  }
  return code;
}

int Confirm(Context& c) {
  SyncClient client(c.finder_address, c.timeout_ms);
  auto r = client.Call("rtrmgr", ipc::methods::rtrmgr::kConfirmConfig,
                       rtrmgr::v1::ConfirmConfigRequest());
  if (!r.ok()) {
    *c.err << "sluice configure confirm: " << r.status().message() << "\n";
    return kFailed;
  }
  *c.out << "confirmed\n";
  return kOk;
}

int Rollback(const std::vector<std::string>& args, Context& c) {
  uint32_t n = 1;
  if (args.size() > 2 || (args.size() == 2 && (!absl::SimpleAtoi(args[1], &n) || n == 0))) {
    *c.err << "usage: sluice configure rollback [N]  (N: 1 or more commits back)\n";
    return kUsage;
  }
  rtrmgr::v1::RollbackConfigRequest q;
  q.set_n(n);
  SyncClient client(c.finder_address, std::max(c.timeout_ms, 30000));
  return Report(client.Call("rtrmgr", ipc::methods::rtrmgr::kRollbackConfig, q),
                "rollback " + std::to_string(n), c);
}

}  // namespace

int RunConfigure(const std::vector<std::string>& args, Context& c) {
  if (args.size() >= 2 && args[0] == "load") return Load(args, c);
  if (args.size() == 1 && args[0] == "confirm") return Confirm(c);
  if (!args.empty() && args[0] == "rollback") return Rollback(args, c);
  *c.err << Usage(*FindCommand("configure"));
  return kUsage;
}

}  // namespace sluice::rtrmgr::cli
