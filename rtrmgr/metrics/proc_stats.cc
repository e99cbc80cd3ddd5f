#include "rtrmgr/metrics/proc_stats.h"

#include <unistd.h>

#include <cctype>
#include <charconv>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace sluice::rtrmgr::metrics {

namespace {

std::vector<std::string_view> Fields(std::string_view text) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    size_t start = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i > start) out.push_back(text.substr(start, i - start));
  }
  return out;
}

bool ToNumber(std::string_view text, uint64_t* out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

absl::StatusOr<std::string> ReadAll(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

absl::StatusOr<ProcessStats> ParseProcStats(std::string_view stat, std::string_view statm,
                                            long ticks_per_second, long page_size) {
  const size_t close = stat.rfind(')');
  if (close == std::string_view::npos || ticks_per_second <= 0 || page_size <= 0) {
    return absl::InvalidArgumentError("/proc/PID/stat: no command name in parentheses");
  }
  // After the command name: field 3 (state) is the first, so utime (14) is the 12th.
  std::vector<std::string_view> after = Fields(stat.substr(close + 1));
  uint64_t utime = 0;
  uint64_t stime = 0;
  if (after.size() < 13 || !ToNumber(after[11], &utime) || !ToNumber(after[12], &stime)) {
    return absl::InvalidArgumentError("/proc/PID/stat: no utime and stime");
  }
  std::vector<std::string_view> pages = Fields(statm);
  uint64_t resident = 0;
  if (pages.size() < 2 || !ToNumber(pages[1], &resident)) {
    return absl::InvalidArgumentError("/proc/PID/statm: no resident field");
  }
  ProcessStats stats;
  stats.rss_bytes = resident * static_cast<uint64_t>(page_size);
  stats.cpu_seconds = static_cast<double>(utime + stime) / static_cast<double>(ticks_per_second);
  return stats;
}

absl::StatusOr<ProcessStats> ReadProcessStats(pid_t pid) {
  const std::string dir = absl::StrCat("/proc/", pid, "/");
  absl::StatusOr<std::string> stat = ReadAll(dir + "stat");
  if (!stat.ok()) return stat.status();
  absl::StatusOr<std::string> statm = ReadAll(dir + "statm");
  if (!statm.ok()) return statm.status();
  return ParseProcStats(*stat, *statm, sysconf(_SC_CLK_TCK), sysconf(_SC_PAGESIZE));
}

}  // namespace sluice::rtrmgr::metrics
