#include "base/log.h"

#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>

#include "base/log_hook.h"
// The journal's CODE_FILE/CODE_LINE would name this file, not the SLUICE_LOG call site.
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace sluice::base {
namespace {

LogLevel InitialLevel() {
  const char* env = std::getenv("SLUICE_LOG_LEVEL");
  LogLevel level = LogLevel::kInfo;
  if (env != nullptr) ParseLogLevel(env, &level);
  return level;
}

std::atomic<int> g_level{static_cast<int>(InitialLevel())};

// Everything below is guarded by g_mu: one line is written at a time.
std::mutex g_mu;
std::string g_tag = "sluice";
LogDestination g_destination = LogDestination::kStderr;
std::string g_syslog_path = "/dev/log";
int g_syslog_fd = -1;  // connected to g_syslog_path; -1: not (yet)
std::function<void()> g_stderr_hook;

void CloseSyslog() {
  if (g_syslog_fd >= 0) close(g_syslog_fd);
  g_syslog_fd = -1;
}

bool SendSyslog(const std::string& datagram) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (g_syslog_fd < 0) {
      g_syslog_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      if (g_syslog_fd < 0) return false;
      sockaddr_un addr{};
      addr.sun_family = AF_UNIX;
      std::memcpy(addr.sun_path, g_syslog_path.data(), g_syslog_path.size());
      if (connect(g_syslog_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        CloseSyslog();
        return false;
      }
      // A reader that falls behind gets a moment (its queue may hold as few as 10 datagrams:
      // net.unix.max_dgram_qlen); one that does not read at all costs each line 10 ms.
      const timeval timeout{0, 10000};
      setsockopt(g_syslog_fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    }
    if (send(g_syslog_fd, datagram.data(), datagram.size(), MSG_NOSIGNAL) >= 0) {
      return true;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) return false;  // full: this line to stderr
    CloseSyslog();  // the receiver went away or was replaced: reconnect once
  }
  return false;
}

// Journal field names: upper-case letters, digits and '_', not starting with '_' or a digit.
std::string JournalKey(std::string_view key) {
  std::string out;
  for (char c : key) {
    out += std::isalnum(static_cast<unsigned char>(c))
               ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
               : '_';
  }
  if (out.empty() || !std::isalpha(static_cast<unsigned char>(out[0]))) out = "F" + out;
  return out.substr(0, 64);
}

bool SendJournal(LogLevel level, const std::string& msg, const LogFields& fields) {
  static constexpr int kPriority[] = {7, 6, 4, 3};
  std::vector<std::string> items = {
      absl::StrCat("MESSAGE=", msg),
      absl::StrCat("PRIORITY=", kPriority[static_cast<int>(level)]),
      absl::StrCat("SYSLOG_IDENTIFIER=sluice-", g_tag),
      absl::StrCat("SLUICE_PROC=", g_tag),
  };
  for (const auto& [key, value] : fields) {
    items.push_back(absl::StrCat(JournalKey(key), "=", value));
  }
  // sd_journal_sendv(3) drops lines silently when journald is not there: they go to stderr.
  if (access("/run/systemd/journal/socket", W_OK) != 0) return false;
  std::vector<iovec> iov;
  for (std::string& s : items) iov.push_back({s.data(), s.size()});
  return sd_journal_sendv(iov.data(), static_cast<int>(iov.size())) >= 0;
}

void WriteStderr(const std::string& line) {
  if (g_stderr_hook) g_stderr_hook();
  std::fprintf(stderr, "%s\n", line.c_str());
}

}  // namespace

std::string_view LogLevelName(LogLevel level) {
  static constexpr std::string_view kNames[] = {"debug", "info", "warning", "error"};
  return kNames[static_cast<int>(level)];
}

bool ParseLogLevel(std::string_view text, LogLevel* out) {
  if (text == "debug")
    *out = LogLevel::kDebug;
  else if (text == "info")
    *out = LogLevel::kInfo;
  else if (text == "warning" || text == "warn")
    *out = LogLevel::kWarning;
  else if (text == "error" || text == "err")
    *out = LogLevel::kError;
  else
    return false;
  return true;
}

std::string_view LogDestinationName(LogDestination destination) {
  switch (destination) {
    case LogDestination::kSyslog:
      return "syslog";
    case LogDestination::kJournal:
      return "journal";
    default:
      return "stderr";
  }
}

bool ParseLogDestination(std::string_view text, LogDestination* out) {
  if (text == "stderr")
    *out = LogDestination::kStderr;
  else if (text == "syslog")
    *out = LogDestination::kSyslog;
  else if (text == "journal")
    *out = LogDestination::kJournal;
  else
    return false;
  return true;
}

void SetLogLevel(LogLevel level) { g_level.store(static_cast<int>(level)); }
LogLevel GetLogLevel() { return static_cast<LogLevel>(g_level.load()); }
bool LogEnabled(LogLevel level) { return static_cast<int>(level) >= g_level.load(); }

void SetStderrLogHook(std::function<void()> hook) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_stderr_hook = std::move(hook);
}

void SetLogTag(std::string_view tag) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_tag = std::string(tag);
}

absl::Status SetLogDestination(LogDestination destination, std::string_view syslog_socket) {
  std::string path = syslog_socket.empty() ? "/dev/log" : std::string(syslog_socket);
  if (path.size() >= sizeof(sockaddr_un::sun_path)) {
    return absl::InvalidArgumentError(absl::StrCat("syslog socket path too long: ", path));
  }
  std::lock_guard<std::mutex> lock(g_mu);
  CloseSyslog();
  g_destination = destination;
  g_syslog_path = std::move(path);
  return absl::OkStatus();
}

LogLine::~LogLine() {
  const absl::Time now = absl::Now();
  const std::string msg = stream_.str();
  std::lock_guard<std::mutex> lock(g_mu);
  bool sent = false;
  if (g_destination == LogDestination::kSyslog) {
    sent = SendSyslog(FormatSyslogDatagram(now, level_, g_tag, getpid(), msg, fields_));
  } else if (g_destination == LogDestination::kJournal) {
    sent = SendJournal(level_, msg, fields_);
  }
  if (!sent) WriteStderr(FormatLogLine(now, level_, g_tag, msg, fields_));
}

}  // namespace sluice::base
