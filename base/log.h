#pragma once
// A tiny structured logger for every Sluice process (Debian's abseil 20220623 has no absl/log).
//
//   SLUICE_LOG(kInfo) << "peer " << addr << " established";
//   SLUICE_LOG(kWarning).Field("peer", addr) << "hold timer expired";
//   SLUICE_LOG(kInfo) << "session up" << base::Kv("peer", addr) << base::Kv("as", 65001);
//
// Each line is logfmt (key=value pairs, one line per message):
//
//   ts=2026-11-26T21:00:00.123456Z level=info proc=bgp msg="peer 127.0.0.2 up" peer=127.0.0.2
//
// `msg` is always quoted; other values only when they hold a space, a quote, '=', a backslash or
// a control character. Inside quotes '"' and '\' are escaped with '\', newline, CR and tab as
// \n \r \t, other control bytes as \xHH, so one message is always one line.
//
// Where lines go (SetLogDestination): stderr (the default; sluice-rtrmgr points each child's
// stderr at RUNDIR/NAME.log), syslog (RFC 3164 datagrams, facility daemon, to /dev/log or a Unix
// datagram socket of your choice), or the systemd journal (sd_journal_sendv(3), each field as a
// journal field, e.g. PEER=127.0.0.2). A syslog or journal write that fails goes to stderr
// (a syslog reader whose queue stays full for 10 ms, one that is not there).
//
// The level threshold comes from SLUICE_LOG_LEVEL (debug, info, warning, error; default info),
// SetLogLevel() at any time (thread-safe), or the --log-* options (base/program_options.h).

#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace sluice::base {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };
enum class LogDestination { kStderr, kSyslog, kJournal };

// "debug", "info", "warning", "error"; Parse also takes "warn" and "err". False for anything else.
std::string_view LogLevelName(LogLevel level);
bool ParseLogLevel(std::string_view text, LogLevel* out);
// "stderr", "syslog", "journal".
std::string_view LogDestinationName(LogDestination destination);
bool ParseLogDestination(std::string_view text, LogDestination* out);

void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();
// The process name on each line ("bgp", "rib", ...): proc=, syslog's tag "sluice-NAME".
void SetLogTag(std::string_view tag);
bool LogEnabled(LogLevel level);

// Sends the following lines to `destination`. `syslog_socket` is the Unix datagram socket for
// kSyslog (empty: /dev/log). Errors: InvalidArgument for a socket path too long for sun_path.
// A socket that does not answer yet is not an error: lines go to stderr until it does.
absl::Status SetLogDestination(LogDestination destination, std::string_view syslog_socket = "");

using LogFields = std::vector<std::pair<std::string, std::string>>;

// One structured line, without a newline (see the top of this file). Pure: for tests.
std::string FormatLogLine(absl::Time when, LogLevel level, std::string_view proc,
                          std::string_view msg, const LogFields& fields);
// `value` as logfmt writes it: as it is, or quoted and escaped when it must be.
std::string LogfmtValue(std::string_view value, bool always_quote = false);
// An RFC 3164 syslog datagram: "<PRI>Mmm dd hh:mm:ss sluice-PROC[PID]: " and the line without
// its ts= (facility daemon; severity debug 7, info 6, warning 4, error 3).
std::string FormatSyslogDatagram(absl::Time when, LogLevel level, std::string_view proc, int pid,
                                 std::string_view msg, const LogFields& fields);

// A field for a line: `<< base::Kv("peer", addr)`. The value is written with operator<<.
struct Kv {
  template <typename T>
  Kv(std::string_view k, const T& v) : key(k) {
    std::ostringstream s;
    s << v;
    value = s.str();
  }
  std::string key;
  std::string value;
};

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
  LogLine& operator<<(const Kv& kv) {
    fields_.emplace_back(kv.key, kv.value);
    return *this;
  }
  template <typename T>
  LogLine& Field(std::string_view key, const T& value) {
    return *this << Kv(key, value);
  }

 private:
  LogLevel level_;
  std::ostringstream stream_;
  LogFields fields_;
};

}  // namespace sluice::base

#define SLUICE_LOG(level)                                             \
  if (!::sluice::base::LogEnabled(::sluice::base::LogLevel::level)) { \
  } else                                                              \
    ::sluice::base::LogLine(::sluice::base::LogLevel::level)
