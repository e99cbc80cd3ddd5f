#include "tests/interop/free_port.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <mutex>
#include <random>
#include <set>

namespace sluice::testing {
namespace {
// Whether nothing holds TCP port `port` on any address of `family` now: a bind to the wildcard
// address conflicts with every socket bound to that port, listening or connected, on any address
// (127.0.0.4 included). The socket is closed without listening, and no child started meanwhile
// inherits it. True where the family is missing.
bool FreeOnEveryAddressOf(int family, int port) {
  const int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return true;
  int bound;
  if (family == AF_INET6) {
    const int v6only = 1;
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof(v6only));
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_addr = in6addr_any;
    a.sin6_port = htons(static_cast<uint16_t>(port));
    bound = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  } else {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    a.sin_port = htons(static_cast<uint16_t>(port));
    bound = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  }
  const bool free = bound == 0 || errno != EADDRINUSE;
  close(fd);
  return free;
}

// The low end of the range the kernel picks connect() source ports from (32768 by default).
int EphemeralLow() {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  int low = 32768;
  in >> low;
  return low;
}
}  // namespace

bool FreeOnEveryAddress(int port) {
  return FreeOnEveryAddressOf(AF_INET, port) && FreeOnEveryAddressOf(AF_INET6, port);
}

int FreeTcpPortIn(int low, int high) {
  static std::mutex mu;
  static std::set<int> handed_out;
  static std::mt19937 random(std::random_device{}());
  if (high < low) return -1;
  const int window = high - low + 1;
  std::lock_guard<std::mutex> lock(mu);
  const int start = std::uniform_int_distribution<int>(0, window - 1)(random);
  for (int i = 0; i < window; ++i) {
    const int port = low + (start + i) % window;
    if (handed_out.count(port) != 0) continue;
    if (!FreeOnEveryAddress(port)) continue;
    handed_out.insert(port);
    return port;
  }
  return -1;
}

// Below the ephemeral range no connect() on any loopback address can take the port between the
// check and the daemon's bind; 20000 and up is above the fixed ports of the example configs.
int FreeTcpPort() { return FreeTcpPortIn(20000, std::max(EphemeralLow(), 21000) - 1); }

}  // namespace sluice::testing
