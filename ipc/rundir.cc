#include "ipc/rundir.h"

#include <sys/stat.h>

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
  return "/tmp/sluice-rundir";
}

absl::Status EnsureRunDir(const std::string& dir) {
  if (mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST) return absl::OkStatus();
  return absl::UnavailableError(
      absl::StrFormat("cannot create run directory %s: %s", dir, std::strerror(errno)));
}

std::string DefaultFinderAddress() {
  const char* finder = std::getenv("SLUICE_FINDER");
  if (finder != nullptr && finder[0] != '\0') return finder;
  return absl::StrCat("unix:", RunDir(), "/finder.sock");
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
