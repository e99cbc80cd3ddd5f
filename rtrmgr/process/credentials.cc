#include "rtrmgr/process/credentials.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_format.h"
#include "ipc/random.h"

namespace sluice::rtrmgr {
namespace {

constexpr size_t kKeySize = 32;

absl::Status Errno(const char* what, const std::string& path) {
  return absl::UnavailableError(
      absl::StrFormat("cannot %s %s: %s", what, path, std::strerror(errno)));
}

absl::StatusOr<std::string> ReadKey(int fd, const std::string& path) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return Errno("inspect", path);
  if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "refusing master key %s: it must be a regular file of uid %d readable by nobody else "
        "(remove it: a new one is made)",
        path, geteuid()));
  }
  std::string key(kKeySize, '\0');
  if (read(fd, key.data(), key.size()) != static_cast<ssize_t>(key.size())) {
    return absl::FailedPreconditionError(
        absl::StrFormat("master key %s is shorter than %d octets (remove it)", path, kKeySize));
  }
  return key;
}

}  // namespace

absl::StatusOr<std::string> LoadOrCreateMasterKey(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    auto key = ReadKey(fd, path);
    close(fd);
    return key;
  }
  if (errno != ENOENT) return Errno("open", path);
  std::string key = ipc::RandomOctets(kKeySize);
  fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Errno("create", path);
  bool written = write(fd, key.data(), key.size()) == static_cast<ssize_t>(key.size());
  close(fd);
  if (!written) {
    unlink(path.c_str());
    return Errno("write", path);
  }
  return key;
}

absl::StatusOr<int> SecretPipe(std::string_view secret) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrFormat("pipe: %s", std::strerror(errno)));
  }
  // A credential is a few dozen octets: far below the pipe's buffer, so this never blocks.
  bool written = write(fds[1], secret.data(), secret.size()) == static_cast<ssize_t>(secret.size());
  close(fds[1]);
  if (!written) {
    close(fds[0]);
    return absl::InternalError(absl::StrFormat("pipe write: %s", std::strerror(errno)));
  }
  return fds[0];
}

}  // namespace sluice::rtrmgr
