#pragma once
// A tiny logger for every Sluice process (Debian's abseil 20220623 has no absl/log).
//
//   SLUICE_LOG(kInfo) << "peer " << addr << " established";
//
// Lines go to stderr as "2026-11-21T20:12:00.123456Z I bgp: text". The level threshold comes
// from SLUICE_LOG_LEVEL (debug, info, warning, error; default info) or SetLogLevel().

#include <sstream>
#include <string_view>

namespace sluice::net {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();
// The process name printed on each line ("bgp", "rib", ...).
void SetLogTag(std::string_view tag);
bool LogEnabled(LogLevel level);

class LogLine {
 public:
  explicit LogLine(LogLevel level) : level_(level) {}
  ~LogLine();
  LogLine(const LogLine&) = delete;
  LogLine& operator=(const LogLine&) = delete;
  template <typename T>
  LogLine& operator<<(const T& v) {
    stream_ << v;
    return *this;
  }

 private:
  LogLevel level_;
  std::ostringstream stream_;
};

}  // namespace sluice::net

#define SLUICE_LOG(level)                                           \
  if (!::sluice::net::LogEnabled(::sluice::net::LogLevel::level)) { \
  } else                                                            \
    ::sluice::net::LogLine(::sluice::net::LogLevel::level)
