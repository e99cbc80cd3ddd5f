// The line formats of base/log.h: logfmt for files and the journal's MESSAGE, RFC 3164 for syslog.
#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/log.h"

namespace sluice::base {
namespace {

bool NeedsQuotes(std::string_view value) {
  if (value.empty()) return true;
  for (unsigned char c : value) {
    if (c <= ' ' || c == '"' || c == '=' || c == '\\' || c == 0x7f) return true;
  }
  return false;
}

// Key characters other than [A-Za-z0-9_.-] become '_', so a key never breaks the line.
std::string CleanKey(std::string_view key) {
  std::string out(key);
  for (char& c : out) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '-';
    if (!ok) c = '_';
  }
  return out.empty() ? "_" : out;
}

void AppendBody(std::string* out, LogLevel level, std::string_view proc, std::string_view msg,
                const LogFields& fields) {
  absl::StrAppend(out, "level=", std::string(LogLevelName(level)), " proc=", LogfmtValue(proc));
  absl::StrAppend(out, " msg=", LogfmtValue(msg, true));
  for (const auto& [key, value] : fields) {
    absl::StrAppend(out, " ", CleanKey(key), "=", LogfmtValue(value));
  }
}

}  // namespace

std::string LogfmtValue(std::string_view value, bool always_quote) {
  if (!always_quote && !NeedsQuotes(value)) return std::string(value);
  std::string out = "\"";
  for (unsigned char c : value) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < ' ' || c == 0x7f) {
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\x%02x", c);
          out += hex;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

std::string FormatLogLine(absl::Time when, LogLevel level, std::string_view proc,
                          std::string_view msg, const LogFields& fields) {
  std::string out =
      absl::StrCat("ts=", absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", when, absl::UTCTimeZone()), " ");
  AppendBody(&out, level, proc, msg, fields);
  return out;
}

std::string FormatSyslogDatagram(absl::Time when, LogLevel level, std::string_view proc, int pid,
                                 std::string_view msg, const LogFields& fields) {
  static constexpr int kSeverity[] = {7, 6, 4, 3};
  constexpr int kFacilityDaemon = 3;
  const int pri = kFacilityDaemon * 8 + kSeverity[static_cast<int>(level)];
  // RFC 3164 §4.1.2: "Mmm dd hh:mm:ss", the day padded with a space, local time.
  std::string out =
      absl::StrCat("<", pri, ">", absl::FormatTime("%b %e %H:%M:%S", when, absl::LocalTimeZone()),
                   " sluice-", CleanKey(proc), "[", pid, "]: ");
  AppendBody(&out, level, proc, msg, fields);
  return out;
}

}  // namespace sluice::base
