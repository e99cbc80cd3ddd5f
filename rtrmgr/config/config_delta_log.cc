// The log part of a configuration delta: which processes log differently.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "rtrmgr/config/config_delta.h"

namespace sluice::rtrmgr {
namespace {

// The blocks a log block can be in, and the router manager's own settings (the top level's).
constexpr const char* kProcesses[] = {"rtrmgr", "finder", "fea", "rib", "static", "rpki", "bgp"};

std::string Level(const LogSettings& s) {
  return std::string(base::LogLevelName(s.level.value_or(base::LogLevel::kInfo)));
}
std::string Destination(const LogSettings& s) {
  std::string d(base::LogDestinationName(s.destination.value_or(base::LogDestination::kStderr)));
  if (!s.syslog_socket.empty() && d == "syslog") absl::StrAppend(&d, " ", s.syslog_socket);
  return d;
}

}  // namespace

std::vector<LogDelta> DiffLog(const LogConfig& running, const LogConfig& next) {
  std::vector<LogDelta> out;
  for (const char* process : kProcesses) {
    LogDelta d{process, running.For(process), next.For(process)};
    if (Level(d.before) != Level(d.after) || Destination(d.before) != Destination(d.after)) {
      out.push_back(std::move(d));
    }
  }
  return out;
}

std::string LogDeltaLine(const LogDelta& d) {
  std::vector<std::string> parts;
  if (Level(d.before) != Level(d.after)) {
    parts.push_back(absl::StrCat("level ", Level(d.before), " -> ", Level(d.after)));
  }
  if (Destination(d.before) != Destination(d.after)) {
    parts.push_back(
        absl::StrCat("destination ", Destination(d.before), " -> ", Destination(d.after)));
  }
  return absl::StrCat("log: ", d.process, " ", absl::StrJoin(parts, ", "));
}

}  // namespace sluice::rtrmgr
