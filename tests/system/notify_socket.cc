#include "tests/system/notify_socket.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <sstream>

namespace sluice::testing {

NotifySocket::NotifySocket(std::string path) : path_(std::move(path)) {
  sockaddr_un address{};
  if (path_.size() >= sizeof(address.sun_path)) return;
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path_.c_str(), path_.size());
  fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return;
  unlink(path_.c_str());
  if (bind(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd_);
    fd_ = -1;
  }
}

NotifySocket::~NotifySocket() {
  if (fd_ < 0) return;
  close(fd_);
  unlink(path_.c_str());
}

bool NotifySocket::Seen(const std::string& line) const {
  std::istringstream lines(received_);
  std::string l;
  while (std::getline(lines, l)) {
    if (l == line) return true;
  }
  return false;
}

bool NotifySocket::WaitFor(const std::string& line, int ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (fd_ >= 0 && !Seen(line)) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char buffer[4096];
    const ssize_t n = recv(fd_, buffer, sizeof(buffer), 0);
    if (n <= 0) continue;
    if (!received_.empty()) received_ += "|\n";
    received_.append(buffer, static_cast<size_t>(n));
    received_ += "\n";
  }
  return fd_ >= 0;
}

}  // namespace sluice::testing
