#include "net/log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace sluice::net {
namespace {

LogLevel InitialLevel() {
  const char* env = std::getenv("SLUICE_LOG_LEVEL");
  if (env == nullptr) return LogLevel::kInfo;
  if (std::strcmp(env, "debug") == 0) return LogLevel::kDebug;
  if (std::strcmp(env, "warning") == 0) return LogLevel::kWarning;
  if (std::strcmp(env, "error") == 0) return LogLevel::kError;
  return LogLevel::kInfo;
}

std::atomic<int> g_level{static_cast<int>(InitialLevel())};
std::mutex g_mu;
std::string g_tag = "sluice";

}  // namespace

void SetLogLevel(LogLevel level) { g_level.store(static_cast<int>(level)); }
LogLevel GetLogLevel() { return static_cast<LogLevel>(g_level.load()); }
bool LogEnabled(LogLevel level) { return static_cast<int>(level) >= g_level.load(); }

void SetLogTag(std::string_view tag) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_tag = std::string(tag);
}

LogLine::~LogLine() {
  static constexpr char kLetters[] = {'D', 'I', 'W', 'E'};
  std::string when = absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", absl::Now(), absl::UTCTimeZone());
  std::lock_guard<std::mutex> lock(g_mu);
  std::fprintf(stderr, "%s %c %s: %s\n", when.c_str(), kLetters[static_cast<int>(level_)],
               g_tag.c_str(), stream_.str().c_str());
}

}  // namespace sluice::net
