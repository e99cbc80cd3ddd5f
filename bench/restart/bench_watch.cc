#include "bench/restart/bench_watch.h"

#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "rtrmgr/mainjob/programs.h"

namespace sluice::bench::restart {

using rtrmgr::mainjob::ReadFile;

KernelMonitor::KernelMonitor(std::string file) : file_(std::move(file)) {
  pid_ = rtrmgr::mainjob::Spawn(
      {"/usr/bin/stdbuf", "-oL", "/usr/sbin/ip", "-4", "monitor", "route"}, file_, file_ + ".err");
}

KernelMonitor::~KernelMonitor() { rtrmgr::mainjob::Stop(pid_, 2); }

size_t KernelMonitor::Mark() const {
  std::ifstream in(file_, std::ios::ate | std::ios::binary);
  return in ? static_cast<size_t>(in.tellg()) : 0;
}

size_t KernelMonitor::Count(size_t mark, unsigned table, bool deleted) const {
  std::ifstream in(file_, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(mark));
  const std::string needle = absl::StrCat("table ", table, " ");
  size_t n = 0;
  for (std::string line; std::getline(in, line);) {
    if ((line + " ").find(needle) == std::string::npos) continue;
    if ((line.rfind("Deleted", 0) == 0) == deleted) ++n;
  }
  return n;
}

size_t KernelMonitor::Deletions(size_t mark, unsigned table) const {
  return Count(mark, table, true);
}
size_t KernelMonitor::Additions(size_t mark, unsigned table) const {
  return Count(mark, table, false);
}

std::optional<absl::Time> LogLineTime(const std::string& file, absl::Time after,
                                      const std::string& text) {
  std::istringstream lines(ReadFile(file));
  for (std::string line; std::getline(lines, line);) {
    const size_t space = line.find(' ');
    if (space == std::string::npos || line.find(text) == std::string::npos) continue;
    // A structured line starts "ts=TIME " (base/log.h).
    const size_t from = line.rfind("ts=", 0) == 0 ? 3 : 0;
    absl::Time t;
    std::string error;
    if (!absl::ParseTime("%Y-%m-%dT%H:%M:%E*SZ", line.substr(from, space - from), &t, &error)) {
      continue;
    }
    if (t >= after) return t;
  }
  return std::nullopt;
}

long LowestHeld(const std::string& file, double from_mono) {
  std::istringstream lines(ReadFile(file));
  long lowest = -1;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("\"event\":\"progress\"") == std::string::npos) continue;
    const size_t held = line.find("\"held\":");
    const size_t mono = line.find("\"mono\":");
    if (held == std::string::npos || mono == std::string::npos) continue;
    if (std::strtod(line.c_str() + mono + 7, nullptr) < from_mono) continue;
    const long h = std::strtol(line.c_str() + held + 7, nullptr, 10);
    if (lowest < 0 || h < lowest) lowest = h;
  }
  return lowest;
}

double MonotonicSeconds() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

size_t KernelRoutes(unsigned table) {
  const std::string command = absl::StrCat("ip -4 route show table ", table, " | wc -l");
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return 0;
  char buffer[64] = {0};
  const bool read = std::fgets(buffer, sizeof(buffer), p) != nullptr;
  pclose(p);
  size_t n = 0;
  return read && absl::SimpleAtoi(std::string(buffer).substr(0, std::string(buffer).find('\n')), &n)
             ? n
             : 0;
}

}  // namespace sluice::bench::restart
