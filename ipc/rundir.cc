#include "ipc/rundir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace sluice::ipc {
namespace {

constexpr size_t kMaxUnixPath = 107;

absl::Status BadEndpoint(std::string_view endpoint) {
  return absl::InvalidArgumentError(
      absl::StrFormat("bad endpoint \"%s\" (want unix:/PATH or tcp:127.0.0.1:PORT)", endpoint));
}

}  // namespace

std::string RunDir() {
  const char* dir = std::getenv("SLUICE_RUNDIR");
  if (dir != nullptr && dir[0] != '\0') return dir;
  if (geteuid() == 0) return "/run/sluice";
  const char* xdg = std::getenv("XDG_RUNTIME_DIR");
  if (xdg != nullptr && xdg[0] == '/') return absl::StrCat(xdg, "/sluice");
  return absl::StrCat("/tmp/sluice-", geteuid());
}

absl::Status EnsureRunDir(const std::string& dir, mode_t mode) {
  if (mkdir(dir.c_str(), mode) == 0) {
    chmod(dir.c_str(), mode);  // the umask may have narrowed it
  } else if (errno != EEXIST) {
    return absl::UnavailableError(
        absl::StrFormat("cannot create run directory %s: %s", dir, std::strerror(errno)));
  }
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0) {
    return absl::UnavailableError(
        absl::StrFormat("cannot inspect run directory %s: %s", dir, std::strerror(errno)));
  }
  auto refuse = [&](const std::string& why) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "refusing run directory %s: %s (remove it, or make it a directory of root or of the "
        "user running Sluice, writable by no one else)",
        dir, why));
  };
  if (S_ISLNK(st.st_mode)) return refuse("it is a symbolic link");
  if (!S_ISDIR(st.st_mode)) return refuse("it is not a directory");
  if (st.st_uid != geteuid() && st.st_uid != 0) {
    return refuse(absl::StrFormat("it is owned by uid %d", st.st_uid));
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return refuse(absl::StrFormat("it is writable by %s (mode %04o)",
                                  (st.st_mode & S_IWOTH) != 0 ? "others" : "its group",
                                  st.st_mode & 07777));
  }
  return absl::OkStatus();
}

std::string SocketDir() {
  const char* dir = std::getenv("SLUICE_SOCKET_DIR");
  if (dir != nullptr && dir[0] != '\0') return dir;
  return RunDir();
}

absl::Status EnsureSocketDir() { return EnsureRunDir(SocketDir(), 0700); }

std::string DefaultFinderAddress() {
  const char* finder = std::getenv("SLUICE_FINDER");
  if (finder != nullptr && finder[0] != '\0') return finder;
  return absl::StrCat("unix:", RunDir(), "/finder.sock");
}

std::string ClientFinderAddress(const std::string& system_run_dir) {
  const char* finder = std::getenv("SLUICE_FINDER");
  const char* dir = std::getenv("SLUICE_RUNDIR");
  if ((finder != nullptr && finder[0] != '\0') || (dir != nullptr && dir[0] != '\0')) {
    return DefaultFinderAddress();
  }
  const auto is_socket = [](const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
  };
  const std::string own = RunDir() + "/finder.sock";
  const std::string system = system_run_dir + "/finder.sock";
  if (!is_socket(own) && is_socket(system)) return "unix:" + system;
  return "unix:" + own;
}

absl::StatusOr<std::string> GrpcTarget(std::string_view endpoint) {
  if (endpoint.substr(0, 6) == "unix:/") return std::string(endpoint);
  if (endpoint.substr(0, 4) == "tcp:") {
    std::string_view hostport = endpoint.substr(4);
    size_t colon = hostport.rfind(':');
    if (colon == std::string_view::npos || colon == 0) return BadEndpoint(endpoint);
    if (hostport[0] == '[') return absl::StrCat("ipv6:", std::string(hostport));
    return absl::StrCat("ipv4:", std::string(hostport));
  }
  return BadEndpoint(endpoint);
}

absl::StatusOr<std::string> GrpcListenAddress(std::string_view endpoint) {
  if (endpoint.substr(0, 6) == "unix:/") {
    if (endpoint.size() - 5 > kMaxUnixPath) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "Unix socket path %s is longer than %d octets; use a shorter SLUICE_RUNDIR",
          endpoint.substr(5), static_cast<int>(kMaxUnixPath)));
    }
    return std::string(endpoint);
  }
  if (endpoint.substr(0, 4) == "tcp:" && endpoint.size() > 4) {
    return std::string(endpoint.substr(4));
  }
  return BadEndpoint(endpoint);
}

}  // namespace sluice::ipc
