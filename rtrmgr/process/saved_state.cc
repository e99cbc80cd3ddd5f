#include "rtrmgr/process/saved_state.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace sluice::rtrmgr {
namespace {

constexpr char kHeader[] = "# sluice-rtrmgr children: NAME PID START_TIME CONFIGURED PROGRAM";

std::optional<std::string> ReadProcFile(pid_t pid, const char* file) {
  if (pid <= 0) return std::nullopt;
  std::ifstream in(absl::StrCat("/proc/", pid, "/", file), std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool ValidName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  }
  return true;
}

}  // namespace

std::optional<uint64_t> ProcessStartTime(pid_t pid) {
  std::optional<std::string> stat = ReadProcFile(pid, "stat");
  if (!stat) return std::nullopt;
  // "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses; it ends at the last ')'.
  const size_t close = stat->rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::vector<std::string> fields = absl::StrSplit(stat->substr(close + 1), ' ', absl::SkipEmpty());
  // fields[0] is field 3 (state), so field 22 (starttime) is fields[19].
  if (fields.size() < 20) return std::nullopt;
  if (fields[0] == "Z" || fields[0] == "X") return std::nullopt;
  uint64_t start = 0;
  if (!absl::SimpleAtoi(fields[19], &start)) return std::nullopt;
  return start;
}

std::optional<std::string> ProcessProgram(pid_t pid) {
  std::optional<std::string> cmdline = ReadProcFile(pid, "cmdline");
  if (!cmdline || cmdline->empty()) return std::nullopt;
  return std::string(cmdline->c_str());
}

bool IsSameProcess(const ChildRecord& record) {
  const std::optional<uint64_t> start = ProcessStartTime(record.pid);
  if (!start || *start != record.start_time) return false;
  const std::optional<std::string> program = ProcessProgram(record.pid);
  return program && *program == record.program;
}

absl::Status WriteFileAtomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".new";
  unlink(tmp.c_str());
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::UnavailableError(absl::StrCat("cannot write ", tmp, ": ", std::strerror(errno)));
  }
  fchmod(fd, 0600);
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const bool ok = done == text.size() && fsync(fd) == 0;
  close(fd);
  if (!ok || rename(tmp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    unlink(tmp.c_str());
    return absl::UnavailableError(absl::StrCat("cannot write ", path, ": ", std::strerror(error)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadOwnFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return absl::NotFoundError(absl::StrCat("no file ", path));
    return absl::UnavailableError(absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
    close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat(path, " is not a regular file of uid ", geteuid(), ": ignoring it"));
  }
  std::string text;
  char buffer[4096];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return text;
}

std::string FormatChildren(const std::vector<ChildRecord>& records) {
  std::string text = absl::StrCat(kHeader, "\n");
  for (const ChildRecord& r : records) {
    absl::StrAppend(&text, r.name, " ", r.pid, " ", r.start_time, " ", r.configured ? 1 : 0, " ",
                    r.program, "\n");
  }
  return text;
}

absl::StatusOr<std::vector<ChildRecord>> ParseChildren(const std::string& text) {
  std::vector<ChildRecord> records;
  if (!text.empty() && text.back() != '\n') {
    return absl::DataLossError("the children file is cut short (no final newline)");
  }
  int number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    ++number;
    if (line.front() == '#') continue;
    std::vector<absl::string_view> f = absl::StrSplit(line, absl::MaxSplits(' ', 4));
    ChildRecord r;
    int configured = -1;
    int pid = 0;
    const bool ok = f.size() == 5 && absl::SimpleAtoi(f[1], &pid) && pid > 0 &&
                    absl::SimpleAtoi(f[2], &r.start_time) && absl::SimpleAtoi(f[3], &configured) &&
                    (configured == 0 || configured == 1) && !f[4].empty() && f[4].front() == '/';
    if (ok) {
      r.name = std::string(f[0]);
      r.pid = pid;
      r.configured = configured == 1;
      r.program = std::string(f[4]);
    }
    if (!ok || !ValidName(r.name)) {
      return absl::DataLossError(absl::StrCat("line ", number,
                                              " of the children file is not NAME PID START_TIME "
                                              "CONFIGURED PROGRAM: \"",
                                              line.substr(0, 100), "\""));
    }
    records.push_back(std::move(r));
  }
  return records;
}

absl::Status WriteChildren(const std::string& path, const std::vector<ChildRecord>& records) {
  return WriteFileAtomically(path, FormatChildren(records));
}

absl::StatusOr<std::vector<ChildRecord>> ReadChildren(const std::string& path) {
  absl::StatusOr<std::string> text = ReadOwnFile(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<std::vector<ChildRecord>> records = ParseChildren(*text);
  if (!records.ok()) {
    return absl::DataLossError(absl::StrCat(path, ": ", records.status().message()));
  }
  return records;
}

}  // namespace sluice::rtrmgr
