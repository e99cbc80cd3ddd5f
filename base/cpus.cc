#include "base/cpus.h"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace sluice::base {

namespace {

// A hierarchy this process's cgroup limits CPU bandwidth in: where it is mounted, and the path
// of our cgroup below that mount.
struct Hierarchy {
  bool v2 = false;
  std::string mount_point;
  std::string relative;  // "" or "/a/b"
};

std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<int64_t> ReadNumber(const std::string& path) {
  std::optional<std::string> text = ReadFile(path);
  int64_t n = 0;
  if (!text || !absl::SimpleAtoi(absl::StripAsciiWhitespace(*text), &n)) return std::nullopt;
  return n;
}

// cgroup v2: "QUOTA PERIOD" or "max PERIOD".
std::optional<int> LimitV2(const std::string& dir) {
  std::optional<std::string> text = ReadFile(dir + "/cpu.max");
  if (!text) return std::nullopt;
  std::vector<absl::string_view> fields =
      absl::StrSplit(absl::StripAsciiWhitespace(*text), ' ', absl::SkipEmpty());
  int64_t quota = 0, period = 0;
  if (fields.size() != 2 || fields[0] == "max" || !absl::SimpleAtoi(fields[0], &quota) ||
      !absl::SimpleAtoi(fields[1], &period)) {
    return std::nullopt;
  }
  return CpusOfQuota(quota, period);
}

// cgroup v1's cpu controller: cpu.cfs_quota_us (-1: none) and cpu.cfs_period_us.
std::optional<int> LimitV1(const std::string& dir) {
  std::optional<int64_t> quota = ReadNumber(dir + "/cpu.cfs_quota_us");
  std::optional<int64_t> period = ReadNumber(dir + "/cpu.cfs_period_us");
  if (!quota || !period) return std::nullopt;
  return CpusOfQuota(*quota, *period);
}

std::optional<int> Lower(std::optional<int> a, std::optional<int> b) {
  if (!a) return b;
  if (!b) return a;
  return std::min(*a, *b);
}

// /proc/self/cgroup: "0::/PATH" for v2, "ID:CONTROLLERS:/PATH" for v1; the path of our cgroup in
// the v2 hierarchy and in the v1 hierarchy of the cpu controller.
void CgroupPaths(absl::string_view self_cgroup, std::optional<std::string>* v2,
                 std::optional<std::string>* v1_cpu) {
  for (absl::string_view line : absl::StrSplit(self_cgroup, '\n', absl::SkipEmpty())) {
    std::vector<absl::string_view> f = absl::StrSplit(line, absl::MaxSplits(':', 2));
    if (f.size() != 3) continue;
    if (f[0] == "0" && f[1].empty()) {
      *v2 = std::string(f[2]);
      continue;
    }
    for (absl::string_view controller : absl::StrSplit(f[1], ',')) {
      if (controller == "cpu") *v1_cpu = std::string(f[2]);
    }
  }
}

// Where `path` (our cgroup) lies below a mount of root `root`: "" for the mount point itself,
// nullopt when outside what the mount shows (in another cgroup namespace the path starts with
// "/..") or not a path.
std::optional<std::string> Below(absl::string_view root, absl::string_view path) {
  if (path.empty() || path.front() != '/' || absl::StrContains(path, "/..")) return std::nullopt;
  if (root == "/") return std::string(path == "/" ? "" : path);
  if (!absl::ConsumePrefix(&path, root)) return std::nullopt;
  if (!path.empty() && path.front() != '/') return std::nullopt;
  return std::string(path);
}

// A mountinfo path field as the file system knows it: the kernel writes a space, tab, newline and
// backslash in it as "\040", "\011", "\012" and "\134" (proc(5), fs/proc_namespace.c).
std::string UnescapeMountField(absl::string_view field) {
  std::string out;
  out.reserve(field.size());
  for (size_t i = 0; i < field.size(); ++i) {
    const absl::string_view rest = field.substr(i + 1, 3);
    const bool octal = field[i] == '\\' && rest.size() == 3 && rest[0] >= '0' && rest[0] <= '3' &&
                       rest[1] >= '0' && rest[1] <= '7' && rest[2] >= '0' && rest[2] <= '7';
    if (!octal) {
      out.push_back(field[i]);
      continue;
    }
    out.push_back(static_cast<char>((rest[0] - '0') * 64 + (rest[1] - '0') * 8 + (rest[2] - '0')));
    i += 3;
  }
  return out;
}

// The hierarchies of mountinfo ("ID PARENT DEV ROOT MOUNT_POINT OPTIONS [TAGS] - TYPE SOURCE
// SUPER_OPTIONS", proc(5)) that hold our cgroups.
std::vector<Hierarchy> Hierarchies(absl::string_view mountinfo,
                                   const std::optional<std::string>& v2_path,
                                   const std::optional<std::string>& v1_cpu_path) {
  std::vector<Hierarchy> found;
  for (absl::string_view line : absl::StrSplit(mountinfo, '\n', absl::SkipEmpty())) {
    std::vector<absl::string_view> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
    auto dash = std::find(f.begin(), f.end(), "-");
    if (f.size() < 5 || dash == f.end() || f.end() - dash < 4) continue;
    const bool v2 = dash[1] == "cgroup2";
    bool v1_cpu = false;
    for (absl::string_view option : absl::StrSplit(dash[3], ',')) {
      v1_cpu = v1_cpu || (dash[1] == "cgroup" && option == "cpu");
    }
    const std::optional<std::string>& path = v2 ? v2_path : v1_cpu_path;
    if (!(v2 || v1_cpu) || !path) continue;
    if (std::optional<std::string> relative = Below(UnescapeMountField(f[3]), *path)) {
      found.push_back(Hierarchy{v2, UnescapeMountField(f[4]), *relative});
    }
  }
  return found;
}

}  // namespace

std::optional<int> CpusOfQuota(int64_t quota, int64_t period) {
  if (quota <= 0 || period <= 0) return std::nullopt;
  const int64_t cpus = (quota + period - 1) / period;
  return static_cast<int>(std::min<int64_t>(cpus, 1 << 20));
}

std::optional<int> CgroupCpuLimit(absl::string_view self_cgroup, absl::string_view mountinfo,
                                  const std::string& fs_root) {
  std::optional<std::string> v2, v1_cpu;
  CgroupPaths(self_cgroup, &v2, &v1_cpu);
  std::optional<int> limit;
  for (const Hierarchy& h : Hierarchies(mountinfo, v2, v1_cpu)) {
    std::string relative = h.relative;
    while (true) {
      const std::string dir = fs_root + h.mount_point + relative;
      limit = Lower(limit, h.v2 ? LimitV2(dir) : LimitV1(dir));
      if (relative.empty()) break;
      relative.resize(relative.rfind('/'));
    }
  }
  return limit;
}

std::optional<int> AffinityCpus() {
  for (int cpus = 1024; cpus <= (1 << 20); cpus *= 2) {
    cpu_set_t* set = CPU_ALLOC(cpus);
    if (set == nullptr) return std::nullopt;
    const size_t size = CPU_ALLOC_SIZE(cpus);
    const int rc = sched_getaffinity(0, size, set);
    const int count = rc == 0 ? CPU_COUNT_S(size, set) : 0;
    const int error = errno;
    CPU_FREE(set);
    if (rc == 0) return count > 0 ? std::optional<int>(count) : std::nullopt;
    if (error != EINVAL) return std::nullopt;  // EINVAL: more CPUs than the set holds
  }
  return std::nullopt;
}

int UsableCpus() {
  std::optional<int> cpus = AffinityCpus();
  if (!cpus) {
    const unsigned n = std::thread::hardware_concurrency();
    if (n > 0) cpus = static_cast<int>(n);
  }
  std::optional<std::string> self = ReadFile("/proc/self/cgroup");
  std::optional<std::string> mounts = ReadFile("/proc/self/mountinfo");
  if (self && mounts) cpus = Lower(cpus, CgroupCpuLimit(*self, *mounts));
  return std::max(cpus.value_or(1), 1);
}

}  // namespace sluice::base
