#include "tests/bgp/fake_peer.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include "bgp/wire/byte_io.h"
#include "bgp/wire/open_message.h"

namespace sluice::bgp::testing {
namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point After(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

bool ReadExactly(int fd, uint8_t* out, size_t n, Clock::time_point end) {
  for (size_t got = 0; got < n;) {
    const int ms =
        int(std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()).count());
    pollfd p{fd, POLLIN, 0};
    if (ms <= 0 || poll(&p, 1, ms) != 1) return false;
    const ssize_t r = read(fd, out + got, n - got);
    if (r <= 0) return false;
    got += size_t(r);
  }
  return true;
}

}  // namespace

FakePeer::FakePeer(const std::string& local, const std::string& remote, uint16_t port) {
  fd_ = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  if (inet_pton(AF_INET, local.c_str(), &a.sin_addr) != 1 ||
      bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    return;
  }
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  if (inet_pton(AF_INET, remote.c_str(), &to.sin_addr) != 1) return;
  connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&to), sizeof(to)) == 0;
}

FakePeer::~FakePeer() { close(fd_); }

void FakePeer::Write(const std::vector<uint8_t>& bytes) { WriteAll(fd_, bytes); }

bool FakePeer::Handshake(uint32_t as, uint32_t bgp_id, double seconds) {
  Capabilities caps;
  caps.multiprotocol = {kIPv4Unicast, kIPv6Unicast};
  caps.route_refresh = true;
  std::vector<uint8_t> open;
  if (!AppendOpen(OpenMessage::Make(as, 90, net::IPv4Address(bgp_id), caps), &open).ok()) {
    return false;
  }
  Write(open);
  const Clock::time_point end = After(seconds);
  while (Clock::now() < end) {
    std::vector<uint8_t> m =
        ReadMessage(fd_, std::chrono::duration<double>(end - Clock::now()).count());
    if (m.empty()) return false;
    if (m[18] != uint8_t(MessageType::kOpen)) continue;
    std::vector<uint8_t> keepalive;
    AppendKeepalive(&keepalive);
    Write(keepalive);
    return true;
  }
  return false;
}

std::optional<Notification> FakePeer::AwaitNotification(double seconds) {
  const Clock::time_point end = After(seconds);
  while (Clock::now() < end) {
    std::vector<uint8_t> m =
        ReadMessage(fd_, std::chrono::duration<double>(end - Clock::now()).count());
    if (m.empty()) return std::nullopt;
    Notification n;
    if (m[18] == uint8_t(MessageType::kNotification) && DecodeNotification(m, &n).ok()) return n;
  }
  return std::nullopt;
}

std::vector<uint8_t> ReadMessage(int fd, double seconds) {
  const Clock::time_point end = After(seconds);
  std::vector<uint8_t> m(19);
  if (!ReadExactly(fd, m.data(), 19, end)) return {};
  const size_t length = LoadU16(m.data() + 16);
  if (length < 19) return {};
  m.resize(length);
  if (!ReadExactly(fd, m.data() + 19, length - 19, end)) return {};
  return m;
}

void WriteAll(int fd, const std::vector<uint8_t>& bytes) {
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t w = write(fd, bytes.data() + done, bytes.size() - done);
    if (w <= 0) return;
    done += size_t(w);
  }
}

std::vector<uint8_t> RawUpdate(const std::vector<uint8_t>& attributes) {
  std::vector<uint8_t> m(16, 0xff);
  const size_t length = 19 + 4 + attributes.size();
  m.push_back(uint8_t(length >> 8));
  m.push_back(uint8_t(length));
  m.push_back(uint8_t(MessageType::kUpdate));
  m.insert(m.end(), {0, 0, uint8_t(attributes.size() >> 8), uint8_t(attributes.size())});
  m.insert(m.end(), attributes.begin(), attributes.end());
  return m;
}

}  // namespace sluice::bgp::testing
