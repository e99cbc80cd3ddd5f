// Bad input from a fake peer: a test-made TCP server that our session
// connects to sends garbage, a wrong BGP version, an unacceptable hold time, the wrong AS, a bad
// header, an UPDATE before Established, a malformed UPDATE — and each time gets the right
// NOTIFICATION (code, subcode and data read off the wire), and the session comes back with a
// growing idle hold (RFC 4271 §8.1.1 DampPeerOscillations). A peer that goes silent is torn down
// with NOTIFICATION 4/0 when the hold time expires.
//
// The fake peer runs on its own thread with blocking sockets; the session's event loop runs on the
// test's thread.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <future>
#include <string>
#include <vector>

#include "bgp/session/peer_manager.h"
#include "bgp/wire/open_message.h"
#include "tests/bgp/fake_peer.h"
#include "tests/bgp/session_test_util.h"

namespace sluice::bgp {
namespace {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;
using testing::Addr;
using testing::RunUntil;

constexpr uint32_t kOurAs = 4200000001u;
constexpr uint32_t kPeerAs = 4200000002u;

// A blocking TCP server on `address`, one connection at a time.
class FakeServer {
 public:
  explicit FakeServer(const std::string& address) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    inet_pton(AF_INET, address.c_str(), &a.sin_addr);
    socklen_t len = sizeof(a);
    if (bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 || listen(fd_, 8) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      ADD_FAILURE() << "cannot listen on " << address;
      return;
    }
    port_ = ntohs(a.sin_port);
  }
  ~FakeServer() { close(fd_); }
  uint16_t port() const { return port_; }

  // The next connection, or -1 after `seconds`.
  int Accept(double seconds) {
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, int(seconds * 1000)) != 1) return -1;
    return accept(fd_, nullptr, nullptr);
  }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

using testing::ReadMessage;

void Write(int fd, const std::vector<uint8_t>& bytes) { testing::WriteAll(fd, bytes); }

std::vector<uint8_t> Open(uint32_t as, uint16_t hold, uint8_t version = 4) {
  Capabilities caps;
  caps.multiprotocol = {kIPv4Unicast};
  OpenMessage open = OpenMessage::Make(as, hold, net::IPv4Address(0x0a0000fe), caps);
  open.version = version;
  std::vector<uint8_t> wire;
  EXPECT_TRUE(AppendOpen(open, &wire).ok());
  return wire;
}

std::vector<uint8_t> Header(uint16_t length, uint8_t type, size_t body = 0) {
  std::vector<uint8_t> m(19 + body, 0);
  std::fill(m.begin(), m.begin() + 16, 0xff);
  StoreU16(m.data() + 16, length);
  m[18] = type;
  return m;
}

std::vector<uint8_t> Concat(std::vector<uint8_t> a, const std::vector<uint8_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<uint8_t> Keepalive() { return Header(19, 4); }

struct BadInput {
  std::string name;
  std::vector<uint8_t> bytes;  // sent after reading our OPEN
  uint8_t code, subcode;
  std::optional<std::vector<uint8_t>> data;  // checked when given
};

std::vector<BadInput> Cases() {
  std::vector<uint8_t> garbage(64);
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = uint8_t(i * 37 + 11);
  // An UPDATE whose Withdrawn Routes Length (100) overruns the message: RFC 7606 §4 session reset.
  std::vector<uint8_t> overrun = Header(23, 2, 4);
  StoreU16(overrun.data() + 19, 100);
  const std::vector<uint8_t> established = Concat(Open(kPeerAs, 9), Keepalive());
  return {
      {"garbage", garbage, 1, 1, std::vector<uint8_t>{}},
      {"bad message length", Header(5000, 2), 1, 2, std::vector<uint8_t>{0x13, 0x88}},
      {"bad message type", Header(19, 9), 1, 3, std::vector<uint8_t>{9}},
      {"BGP version 3", Open(kPeerAs, 9, 3), 2, 1, std::vector<uint8_t>{0, 4}},
      {"hold time 1 s", Open(kPeerAs, 1), 2, 6, std::nullopt},
      {"hold time 2 s", Open(kPeerAs, 2), 2, 6, std::nullopt},
      {"wrong AS 65010", Open(65010, 9), 2, 2, std::vector<uint8_t>{0xfd, 0xf2}},
      {"UPDATE in OpenConfirm", Concat(Open(kPeerAs, 9), Header(23, 2, 4)), 5, 2,
       std::vector<uint8_t>{2}},
      {"malformed UPDATE when Established", Concat(established, overrun), 3, 1, std::nullopt},
  };
}

struct Observed {
  std::string name;
  bool connected = false;
  Clock::time_point connected_at;
  bool our_open = false;
  std::vector<uint8_t> notification;  // the whole message
};

PeerConfig Config(const std::string& address, uint16_t port) {
  PeerConfig c;
  c.address = Addr(address);
  c.port = port;
  c.remote_as = kPeerAs;
  c.local_address = Addr("127.0.0.1");
  c.hold_time_s = 9;
  c.connect_retry_s = 1;
  c.idle_hold_s = 0.25;
  c.idle_hold_max_s = 2;
  return c;
}

struct Fixture {
  Fixture() : manager(io) {
    manager.set_routing_side(&routing);
    EXPECT_TRUE(manager.SetLocalAs(kOurAs).ok());
    EXPECT_TRUE(manager.SetBgpIdentifier(net::IPv4Address(0x0a000001)).ok());
  }
  asio::io_context io;
  testing::TestRouting routing;
  PeerManager manager;
};

TEST(SessionFakePeerTest, BadInputGetsTheRightNotificationAndIsRetriedWithBackoff) {
  FakeServer server("127.0.0.21");
  Fixture f;
  const std::vector<BadInput> cases = Cases();
  std::atomic<bool> done{false};
  auto peer = std::async(std::launch::async, [&] {
    std::vector<Observed> seen;
    for (const BadInput& c : cases) {
      Observed o;
      o.name = c.name;
      const int fd = server.Accept(15);
      if (fd < 0) break;
      o.connected = true;
      o.connected_at = Clock::now();
      const std::vector<uint8_t> open = ReadMessage(fd, 5);
      o.our_open = open.size() > 19 && open[18] == 1;
      Write(fd, c.bytes);
      // Skip our KEEPALIVEs; the NOTIFICATION is the last thing before the close.
      for (std::vector<uint8_t> m; !(m = ReadMessage(fd, 5)).empty();) {
        if (m[18] == 3) o.notification = m;
      }
      close(fd);
      seen.push_back(o);
    }
    done = true;
    return seen;
  });
  ASSERT_TRUE(f.manager.AddPeer(Config("127.0.0.21", server.port())).ok());
  ASSERT_TRUE(RunUntil(
      f.io, [&] { return done.load(); }, 60));
  const std::vector<Observed> seen = peer.get();
  ASSERT_EQ(seen.size(), cases.size());

  double expected_gap = 0.25;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].name);
    EXPECT_TRUE(seen[i].our_open);
    ASSERT_GE(seen[i].notification.size(), 21u) << "no NOTIFICATION";
    Notification n;
    ASSERT_TRUE(DecodeNotification(seen[i].notification, &n).ok());
    std::printf("%-34s -> NOTIFICATION %s, data", cases[i].name.c_str(), n.ToString().c_str());
    for (uint8_t b : n.data) std::printf(" %02x", b);
    EXPECT_EQ(n.code, cases[i].code);
    EXPECT_EQ(n.subcode, cases[i].subcode);
    if (cases[i].data) {
      EXPECT_EQ(n.data, *cases[i].data);
    }
    if (i > 0) {
      // Retried after the idle hold: 0.25, 0.5, 1, 2, 2, ... s (timers never fire early).
      const double gap =
          std::chrono::duration<double>(seen[i].connected_at - seen[i - 1].connected_at).count();
      std::printf(", retried after %.2f s (idle hold %.2f s)", gap, expected_gap);
      EXPECT_GE(gap, expected_gap * 0.95);
      expected_gap = std::min(expected_gap * 2, 2.0);
    }
    std::printf("\n");
  }
  const PeerStatus s = *f.manager.GetPeer(Addr("127.0.0.21"));
  EXPECT_EQ(s.counters.notifications_out, cases.size());
  EXPECT_EQ(s.counters.established_transitions, 1u);  // the malformed-UPDATE case
  EXPECT_EQ(s.consecutive_failures, int(cases.size()));
  EXPECT_NE(s.last_error.find("bad UPDATE"), std::string::npos) << s.last_error;
  EXPECT_EQ(f.routing.rib("127.0.0.21")->downs, 1);
  // Still running, waiting to try again.
  EXPECT_TRUE(s.enabled);
}

TEST(SessionFakePeerTest, SilentPeerIsTornDownWhenItsHoldTimeExpires) {
  FakeServer server("127.0.0.22");
  Fixture f;
  std::atomic<bool> done{false};
  auto peer = std::async(std::launch::async, [&] {
    std::pair<double, std::vector<uint8_t>> result{-1, {}};
    const int fd = server.Accept(10);
    if (fd < 0) {
      done = true;
      return result;
    }
    ReadMessage(fd, 5);                                // our OPEN
    Write(fd, Concat(Open(kPeerAs, 3), Keepalive()));  // hold time 3 s
    const auto silent_since = Clock::now();
    // From now on only read: our KEEPALIVEs, then the NOTIFICATION.
    for (std::vector<uint8_t> m; !(m = ReadMessage(fd, 10)).empty();) {
      if (m[18] == 3) {
        result = {std::chrono::duration<double>(Clock::now() - silent_since).count(), m};
      }
    }
    close(fd);
    done = true;
    return result;
  });
  ASSERT_TRUE(f.manager.AddPeer(Config("127.0.0.22", server.port())).ok());
  testing::AdjRibIn* rib = f.routing.rib("127.0.0.22");
  ASSERT_TRUE(RunUntil(
      f.io, [&] { return rib->established; }, 10));
  EXPECT_EQ(rib->info().hold_time_s, 3);
  ASSERT_TRUE(RunUntil(
      f.io, [&] { return done.load(); }, 20));
  const auto [after, message] = peer.get();
  Notification n;
  ASSERT_TRUE(DecodeNotification(message, &n).ok());
  std::printf("silent peer: NOTIFICATION %s after %.2f s of silence (hold time 3 s)\n",
              n.ToString().c_str(), after);
  EXPECT_EQ(n.code, 4);
  EXPECT_EQ(n.subcode, 0);
  EXPECT_GE(after, 2.9);
  EXPECT_EQ(rib->downs, 1);
  EXPECT_EQ(rib->last_down_reason, "hold timer expired");
  const PeerStatus s = *f.manager.GetPeer(Addr("127.0.0.22"));
  EXPECT_EQ(s.last_error, "hold timer expired");
  EXPECT_GE(s.counters.keepalives_out, 1u);  // ours kept going meanwhile
}

}  // namespace
}  // namespace sluice::bgp
