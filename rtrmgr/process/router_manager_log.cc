// The log block: the flags each process starts with, and a changed block applied at run time
// (common/1.0 set_log on each running process; the top level's settings on the router manager).
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "ipc/methods/common.h"
#include "ipc/proto/common.pb.h"
#include "ipc/xrl_router.h"
#include "rtrmgr/config/config_delta.h"
#include "rtrmgr/process/configurator.h"
#include "rtrmgr/process/router_manager.h"

namespace sluice::rtrmgr {
namespace {

using ipc::methods::common::kSetLog;

// The configuration block a child's settings come from ("static_routes" is in "static").
std::string BlockOf(const std::string& child) {
  return child == Configurator::kStaticTarget ? "static" : child;
}

std::vector<std::string> LogFlags(const LogSettings& log) {
  std::vector<std::string> flags;
  if (log.level) {
    flags.insert(flags.end(), {"--log-level", std::string(base::LogLevelName(*log.level))});
  }
  if (log.destination) {
    flags.insert(flags.end(),
                 {"--log-destination", std::string(base::LogDestinationName(*log.destination))});
  }
  if (!log.syslog_socket.empty()) {
    flags.insert(flags.end(), {"--log-syslog-socket", log.syslog_socket});
  }
  return flags;
}

}  // namespace

std::vector<std::string> RouterManager::ChildLogFlags(const std::string& child) const {
  return LogFlags(running_.log.For(BlockOf(child)));
}

void RouterManager::ApplyOwnLog() const {
  const LogSettings own = running_.log.For("rtrmgr");
  if (own.level) base::SetLogLevel(*own.level);
  if (own.destination) {
    if (absl::Status s = base::SetLogDestination(*own.destination, own.syslog_socket); !s.ok()) {
      SLUICE_LOG(kWarning) << "log destination: " << s.message();
    }
  }
}

void RouterManager::ApplyLogDelta(const std::vector<LogDelta>& changes) {
  for (const LogDelta& d : changes) {
    if (d.process == "rtrmgr") {
      base::SetLogLevel(d.after.level.value_or(base::LogLevel::kInfo));
      const auto destination = d.after.destination.value_or(base::LogDestination::kStderr);
      if (absl::Status s = base::SetLogDestination(destination, d.after.syslog_socket); !s.ok()) {
        SLUICE_LOG(kWarning) << "log destination: " << s.message();
      }
      continue;
    }
    if (d.process == "finder") {  // no common/1.0 on the Finder's own server
      SLUICE_LOG(kInfo) << "the Finder's log settings take effect at its next start";
      continue;
    }
    const std::string name = d.process == "static" ? Configurator::kStaticTarget : d.process;
    const std::string child = d.process == "bgp" ? options_.bgp_instance : name;
    const Supervisor::Child* running = supervisor_.Find(name);
    if (running == nullptr || running->pid <= 0) continue;  // starts with the new flags
    common::v1::SetLogRequest request;
    request.set_level(
        std::string(base::LogLevelName(d.after.level.value_or(base::LogLevel::kInfo))));
    request.set_destination(std::string(
        base::LogDestinationName(d.after.destination.value_or(base::LogDestination::kStderr))));
    request.set_syslog_socket(d.after.syslog_socket);
    router_->Call(
        child, kSetLog, std::move(request), [child](absl::StatusOr<common::v1::SetLogReply> reply) {
          if (!reply.ok()) {
            SLUICE_LOG(kWarning).Field("process", child)
                << child << " did not take its new log settings: " << reply.status().message();
          }
        });
  }
}

}  // namespace sluice::rtrmgr
