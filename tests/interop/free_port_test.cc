// FreeTcpPort: the ports it hands out differ from each other, lie below the kernel's ephemeral
// range (where no outgoing connection can take them) and can be bound on every loopback address
// the interop tests give daemons.

#include "tests/interop/free_port.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace sluice::testing {
namespace {

// Whether `port` can be bound on IPv4 `address` now.
bool Bindable(const std::string& address, int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  inet_pton(AF_INET, address.c_str(), &a.sin_addr);
  a.sin_port = htons(static_cast<uint16_t>(port));
  const bool bound = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
  close(fd);
  return bound;
}

// Every port FreeTcpPort handed out in this test program (it never hands one out twice).
std::set<int>& HandedOut() {
  static std::set<int> ports;
  return ports;
}
int Pick() {
  const int port = FreeTcpPort();
  HandedOut().insert(port);
  return port;
}

TEST(FreeTcpPortTest, PortsAreDistinctBelowTheEphemeralRangeAndBindable) {
  int ephemeral_low = 0;
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> ephemeral_low;
  ASSERT_GT(ephemeral_low, 21000) << "the ephemeral range leaves no room below it";
  std::set<int> ports;
  for (int i = 0; i < 200; ++i) {
    const int port = Pick();
    ASSERT_GT(port, 0);
    EXPECT_LT(port, ephemeral_low);
    EXPECT_TRUE(ports.insert(port).second) << port << " handed out twice";
    // At once: tests running beside this one may take the port a moment later.
    for (const char* address : {"127.0.0.1", "127.0.0.4", "127.0.0.9"}) {
      EXPECT_TRUE(Bindable(address, port)) << address << " port " << port;
    }
  }
}

// An IPv4 socket bound to `address`:`port`, closed on destruction.
class HeldPort {
 public:
  HeldPort(const char* address, int port) : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    inet_pton(AF_INET, address, &a.sin_addr);
    a.sin_port = htons(static_cast<uint16_t>(port));
    bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  }
  ~HeldPort() { close(fd_); }

 private:
  int fd_;
};

TEST(FreeTcpPortTest, APortHeldOnAnyLoopbackAddressIsSkipped) {
  // A window of 64 ports, all but one held on 127.0.0.4 or 127.0.0.7 (or by another test): the
  // one left comes out. Tests running beside this one use ports of the same range, so a window
  // whose port left is not free, or was handed out before, is passed over for another.
  for (int attempt = 0; attempt < 20; ++attempt) {
    const int first = Pick();
    ASSERT_GT(first, 0);
    const int low = first - first % 64;
    const int left = low + (first % 64 + 32) % 64;
    if (HandedOut().count(left) != 0) continue;
    std::vector<std::unique_ptr<HeldPort>> held;
    for (int port = low; port < low + 64; ++port) {
      if (port == left) continue;
      held.push_back(std::make_unique<HeldPort>(port % 2 ? "127.0.0.4" : "127.0.0.7", port));
    }
    if (!FreeOnEveryAddress(left)) continue;
    EXPECT_EQ(FreeTcpPortIn(low, low + 63), left);
    EXPECT_EQ(FreeTcpPortIn(low, low + 63), -1) << "every port is held or handed out";
    return;
  }
  FAIL() << "no window of 64 ports had its port left free";
}

}  // namespace
}  // namespace sluice::testing
