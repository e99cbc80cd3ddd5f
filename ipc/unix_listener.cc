#include "ipc/unix_listener.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "absl/strings/str_format.h"
#include "base/log.h"
#include "grpcpp/server.h"
#include "grpcpp/server_posix.h"

namespace sluice::ipc {
namespace {

constexpr size_t kMaxUnixPath = sizeof(sockaddr_un::sun_path) - 1;

absl::StatusOr<sockaddr_un> UnixAddress(const std::string& path) {
  if (path.size() > kMaxUnixPath) {
    return absl::InvalidArgumentError(
        absl::StrFormat("Unix socket path %s is longer than %d octets; use a shorter run directory",
                        path, static_cast<int>(kMaxUnixPath)));
  }
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.data(), path.size());
  return address;
}

absl::Status Errno(const char* what, const std::string& path) {
  return absl::UnavailableError(
      absl::StrFormat("cannot %s Unix socket %s: %s", what, path, std::strerror(errno)));
}

}  // namespace

bool UnixSocketAnswers(const std::string& path) {
  auto address = UnixAddress(path);
  if (!address.ok()) return false;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  bool answers = connect(fd, reinterpret_cast<const sockaddr*>(&*address), sizeof(*address)) == 0;
  close(fd);
  return answers;
}

absl::StatusOr<int> BindUnixSocket(const std::string& path, SocketAccess access) {
  auto address = UnixAddress(path);
  if (!address.ok()) return address.status();
  if (UnixSocketAnswers(path)) {
    return absl::UnavailableError(
        absl::StrFormat("Unix socket %s is already in use by a running process", path));
  }
  unlink(path.c_str());  // a stale socket (or anything else) in our directory
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Errno("create", path);
  // The file is created with the socket's mode less the umask: never wider than `access`.
  fchmod(fd, access.mode);
  if (bind(fd, reinterpret_cast<const sockaddr*>(&*address), sizeof(*address)) != 0 ||
      listen(fd, 128) != 0) {
    absl::Status status = Errno("bind", path);
    close(fd);
    return status;
  }
  absl::Status status = absl::OkStatus();
  if ((access.group != static_cast<gid_t>(-1) || access.owner != static_cast<uid_t>(-1)) &&
      chown(path.c_str(), access.owner, access.group) != 0) {
    status = Errno("set the owner of", path);
  } else if (chmod(path.c_str(), access.mode) != 0) {
    status = Errno("set the mode of", path);
  }
  if (!status.ok()) {
    close(fd);
    unlink(path.c_str());
    return status;
  }
  return fd;
}

absl::StatusOr<std::unique_ptr<UnixListener>> UnixListener::Bind(const std::string& path,
                                                                 SocketAccess access) {
  auto fd = BindUnixSocket(path, access);
  if (!fd.ok()) return fd.status();
  return std::unique_ptr<UnixListener>(new UnixListener(*fd, path, true));
}

absl::StatusOr<std::unique_ptr<UnixListener>> UnixListener::Adopt(int fd) {
  int type = 0;
  int listening = 0;
  socklen_t length = sizeof(type);
  sockaddr_un address{};
  socklen_t address_length = sizeof(address);
  bool ok = getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0 && type == SOCK_STREAM;
  length = sizeof(listening);
  ok = ok && getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0 && listening;
  ok = ok && getsockname(fd, reinterpret_cast<sockaddr*>(&address), &address_length) == 0 &&
       address.sun_family == AF_UNIX;
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrFormat("descriptor %d is not a listening Unix stream socket", fd));
  }
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  return std::unique_ptr<UnixListener>(new UnixListener(fd, std::string(address.sun_path), false));
}

UnixListener::UnixListener(int fd, std::string path, bool owns_path)
    : fd_(fd),
      wake_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
      path_(std::move(path)),
      owns_path_(owns_path) {}

UnixListener::~UnixListener() { Stop(); }

void UnixListener::Start(grpc::Server* server) {
  thread_ = std::thread([this, server] { AcceptLoop(server); });
}

void UnixListener::AcceptLoop(grpc::Server* server) {
  pollfd fds[2] = {{fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
  while (!stopping_.load()) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      SLUICE_LOG(kError) << "poll on " << path_ << ": " << std::strerror(errno);
      return;
    }
    if (stopping_.load() || (fds[1].revents & POLLIN)) return;
    int connection = accept4(fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (connection < 0) {
      if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED) continue;
      // Out of descriptors or memory: back off instead of spinning; the caller waits.
      SLUICE_LOG(kWarning) << "accept on " << path_ << ": " << std::strerror(errno);
      poll(&fds[1], 1, 100);
      continue;
    }
    grpc::AddInsecureChannelFromFd(server, connection);
  }
}

void UnixListener::Stop() {
  if (fd_ < 0) return;
  stopping_.store(true);
  uint64_t one = 1;
  if (write(wake_fd_, &one, sizeof(one)) < 0) {
    // The eventfd cannot be full after one write: nothing to do.
  }
  if (thread_.joinable()) thread_.join();
  close(fd_);
  close(wake_fd_);
  fd_ = -1;
  if (owns_path_) unlink(path_.c_str());
}

}  // namespace sluice::ipc
