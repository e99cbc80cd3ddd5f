#include "ipc/process_security.h"

#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"

namespace sluice::ipc {
namespace {

std::string& Credential() {
  static std::string credential;
  return credential;
}

// Reads the whole credential (a few dozen octets) and closes `fd`.
absl::StatusOr<std::string> ReadAndClose(int fd) {
  std::string credential;
  char buffer[128];
  while (true) {
    ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      absl::Status status = absl::InvalidArgumentError(absl::StrFormat(
          "%s=%d: cannot read the credential: %s", kCredentialFdEnv, fd, std::strerror(errno)));
      close(fd);
      return status;
    }
    credential.append(buffer, static_cast<size_t>(n));
    if (credential.size() > 4096) break;
  }
  close(fd);
  return credential;
}

}  // namespace

absl::Status HardenProcess() {
  umask(077);
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  const char* fd_text = std::getenv(kCredentialFdEnv);
  if (fd_text == nullptr) return absl::OkStatus();
  int fd = -1;
  bool valid = absl::SimpleAtoi(fd_text, &fd) && fd > 2;
  unsetenv(kCredentialFdEnv);
  if (!valid) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s does not name an inherited descriptor", kCredentialFdEnv));
  }
  auto credential = ReadAndClose(fd);
  if (!credential.ok()) return credential.status();
  Credential() = *std::move(credential);
  return absl::OkStatus();
}

const std::string& ProcessCredential() { return Credential(); }

}  // namespace sluice::ipc
