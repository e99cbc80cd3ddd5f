// log { level LEVEL; destination stderr|syslog|journal; syslog-socket PATH; }, at the top level
// and inside each process's block.
#include "absl/strings/str_format.h"
#include "rtrmgr/config/config_builder.h"
#include "rtrmgr/config/config_reader.h"

namespace sluice::rtrmgr {
namespace {

constexpr std::string_view kUsage =
    "log { level debug|info|warning|error; destination stderr|syslog|journal; "
    "syslog-socket PATH; }";

}  // namespace

void BuildLog(const ConfigNode& n, LogSettings* out, Diagnostics* diags) {
  if (!ExpectBlock(n, 0, kUsage, diags)) return;
  LogSettings log;
  log.where.loc = n.loc;
  BlockReader("log", diags)
      .Once("level",
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, "level debug|info|warning|error;", diags);
              base::LogLevel level;
              if (v && !base::ParseLogLevel(v->text, &level)) {
                diags->Add(v->loc, absl::StrFormat("unknown log level %s: want debug, info, "
                                                   "warning or error",
                                                   v->Describe()));
              } else if (v) {
                log.level = level;
              }
            })
      .Once("destination",
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, "destination stderr|syslog|journal;", diags);
              base::LogDestination destination;
              if (v && !base::ParseLogDestination(v->text, &destination)) {
                diags->Add(v->loc, absl::StrFormat("unknown log destination %s: want stderr, "
                                                   "syslog or journal",
                                                   v->Describe()));
              } else if (v) {
                log.destination = destination;
              }
            })
      .Once("syslog-socket",
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, "syslog-socket PATH;", diags);
              if (!v) return;
              auto path = ReadText(*v, 107, "the syslog socket path", diags);
              if (!path) return;
              if (path->empty() || (*path)[0] != '/') {
                diags->Add(v->loc, "the syslog socket must be an absolute path");
                return;
              }
              log.syslog_socket = *path;
            })
      .Read(n.children);
  *out = std::move(log);
}

ConfigNode TakeLog(const ConfigNode& block, const std::string& process, LogConfig* log,
                   Diagnostics* diags) {
  ConfigNode rest = block;
  rest.children.clear();
  bool seen = false;
  for (const ConfigNode& child : block.children) {
    if (child.keyword != "log") {
      rest.children.push_back(child);
      continue;
    }
    if (seen) {
      diags->Add(child.loc, absl::StrFormat("log given twice in %s", process));
      continue;
    }
    seen = true;
    BuildLog(child, &log->processes[process], diags);
  }
  return rest;
}

LogSettings LogConfig::For(const std::string& block) const {
  LogSettings out = all;
  auto it = processes.find(block);
  if (it == processes.end()) return out;
  if (it->second.level) out.level = it->second.level;
  if (it->second.destination) {
    out.destination = it->second.destination;
    out.syslog_socket = it->second.syslog_socket;
  } else if (!it->second.syslog_socket.empty()) {
    out.syslog_socket = it->second.syslog_socket;
  }
  return out;
}

}  // namespace sluice::rtrmgr
