#include "rtrmgr/process/program_dir.h"

#include <limits.h>
#include <unistd.h>

#include <filesystem>
#include <map>

namespace sluice::rtrmgr {

namespace {

// Each program's folder in the build tree (the source folder that builds it).
const std::map<std::string, std::string>& BuildTreeFolders() {
  static const auto* folders = new std::map<std::string, std::string>{
      {"sluice-finder", "finder"},
      {"sluice-fea", "fea"},
      {"sluice-rib", "rib"},
      {"sluice-bgp", "bgp/process"},
      {"sluice-static", "static_routes"},
      {"sluice-rpki", "rpki"},
  };
  return *folders;
}

bool IsInstalledLayout(const std::string& dir) {
  return access((dir + "/sluice-finder").c_str(), X_OK) == 0;
}

// `path` without its last `n` components ("/a/b/c", 2 gives "/a"); "." when too short.
std::string Parent(std::string path, int n) {
  for (int i = 0; i < n; ++i) {
    const size_t slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    path.resize(slash);
  }
  return path;
}

}  // namespace

std::string DefaultProgramDir() {
  char path[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0) return ".";
  const std::string exe(path, static_cast<size_t>(n));
  // PREFIX/sbin/sluice-rtrmgr: the daemons' directory relative to sbin (set by CMake).
  const std::string installed =
      std::filesystem::path(Parent(exe, 1) + "/" + SLUICE_DAEMON_DIR_FROM_SBIN).lexically_normal();
  if (IsInstalledLayout(installed)) return installed;
  return Parent(exe, 3);  // BUILD/rtrmgr/process/sluice-rtrmgr
}

std::string ProgramPath(const std::string& dir, const std::string& program) {
  if (IsInstalledLayout(dir)) return dir + "/" + program;
  const auto folder = BuildTreeFolders().find(program);
  if (folder == BuildTreeFolders().end()) return dir + "/" + program;
  return dir + "/" + folder->second + "/" + program;
}

}  // namespace sluice::rtrmgr
