// PBTS: with PeerManager::SetParseThreads, UPDATEs are decoded off the event loop and
// still reach the routing side in the order the peer sent them, a read's UPDATEs together. Two
// speakers on loopback; A sends thousands of UPDATEs that announce and withdraw the same prefixes
// over and over, so that any reordering would leave B with a different Adj-RIB-In than the one
// A's sequence implies. Then B's session is reset while UPDATEs are in flight: nothing decoded
// for the old session reaches the routing side after it went down. Runs under ThreadSanitizer
// too (label tsan).
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "bgp/session/peer_manager.h"
#include "tests/bgp/session_test_util.h"

namespace sluice::bgp {
namespace {

namespace asio = boost::asio;
using testing::Addr;
using testing::AdjRibIn;
using testing::RunUntil;

constexpr uint32_t kAsA = 4200000001u;
constexpr uint32_t kAsB = 4200000002u;

struct Speaker {
  Speaker(asio::io_context& io, uint32_t as, const std::string& id, const std::string& listen,
          int parse_threads)
      : manager(io), address(listen) {
    manager.SetParseThreads(parse_threads);
    manager.set_routing_side(&routing);
    EXPECT_TRUE(manager.SetLocalAs(as).ok());
    EXPECT_TRUE(manager.SetBgpIdentifier(*net::IPv4Address::Parse(id)).ok());
    auto p = manager.Listen(Addr(listen), 0);
    EXPECT_TRUE(p.ok()) << p.status();
    port = p.ok() ? *p : 0;
  }
  testing::TestRouting routing;
  PeerManager manager;
  std::string address;
  uint16_t port = 0;
};

PeerConfig Peer(const Speaker& to, uint32_t as, const std::string& local) {
  PeerConfig c;
  c.address = Addr(to.address);
  c.port = to.port;
  c.remote_as = as;
  c.local_address = Addr(local);
  c.hold_time_s = 30;
  c.connect_retry_s = 1;
  c.idle_hold_s = 0.2;
  c.idle_hold_max_s = 1;
  return c;
}

TEST(SessionParseThreads, UpdatesDecodedOffTheLoopArriveInOrder) {
  asio::io_context io;
  Speaker a(io, kAsA, "10.0.0.1", "127.0.0.1", 0);
  Speaker b(io, kAsB, "10.0.0.2", "127.0.0.2", 2);
  ASSERT_TRUE(a.manager.AddPeer(Peer(b, kAsB, "127.0.0.1")).ok());
  ASSERT_TRUE(b.manager.AddPeer(Peer(a, kAsA, "127.0.0.2")).ok());
  auto rib_b = [&] { return b.routing.rib("127.0.0.1"); };
  ASSERT_TRUE(RunUntil(
      io, [&] { return rib_b() != nullptr && rib_b()->established; }, 10));
  SessionSender* to_b = a.manager.sender(Addr("127.0.0.2"));
  ASSERT_NE(to_b, nullptr);
  const SessionParams params = rib_b()->info().params;

  // 4,000 UPDATEs over 64 prefixes; the model is what B must hold at the end.
  std::map<std::string, std::string> model;  // prefix -> next hop
  std::vector<uint8_t> bytes;
  int sent = 0;
  for (int i = 0; i < 4000; ++i) {
    const std::string prefix = absl::StrCat("10.", (i * 7) % 64, ".0.0/16");
    std::vector<uint8_t> m;
    if (i % 3 == 2) {
      m = testing::Withdraw({prefix}, params);
      model.erase(prefix);
    } else {
      const std::string nh = absl::StrCat("127.0.", i % 5, ".1");
      m = testing::Announce({prefix}, kAsA, nh, params);
      model[prefix] = nh;
    }
    bytes.insert(bytes.end(), m.begin(), m.end());
    ++sent;
    if (bytes.size() > 16000) {
      ASSERT_TRUE(to_b->SendMessages(std::move(bytes)));
      bytes.clear();
    }
  }
  ASSERT_TRUE(to_b->SendMessages(std::move(bytes)));
  ASSERT_TRUE(RunUntil(
      io, [&] { return rib_b()->updates == sent; }, 30))
      << rib_b()->updates << " of " << sent;
  ASSERT_EQ(rib_b()->routes.size(), model.size());
  for (const auto& [prefix, nh] : model) {
    const PathAttributes* attrs = rib_b()->Attributes(prefix);
    ASSERT_NE(attrs, nullptr) << prefix;
    EXPECT_EQ(attrs->next_hop->ToString(), nh) << prefix;
  }
  // A read's UPDATEs are handed over together (BeginUpdates .. EndUpdates), so that the routing
  // side pushes them downstream once, as when the loop decodes them.
  EXPECT_EQ(rib_b()->updates_unbracketed, 0);
  EXPECT_FALSE(rib_b()->in_read);
  EXPECT_LT(rib_b()->reads, sent / 4) << "reads of about one UPDATE each";
  auto status = b.manager.GetPeer(Addr("127.0.0.1"));
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->counters.nlri_announced_in + status->counters.nlri_withdrawn_in, 4000u);

  // A reset with UPDATEs in flight: after B's session went down, its listener hears no UPDATE
  // until the next session is up.
  int late = 0;
  bool down_seen = false;
  std::vector<uint8_t> burst;
  for (int i = 0; i < 2000; ++i) {
    auto m =
        testing::Announce({absl::StrCat("11.", i % 200, ".0.0/16")}, kAsA, "127.0.0.1", params);
    burst.insert(burst.end(), m.begin(), m.end());
  }
  ASSERT_TRUE(to_b->SendMessages(std::move(burst)));
  const int updates_before = rib_b()->updates;
  io.poll();
  ASSERT_TRUE(b.manager.ResetPeer(Addr("127.0.0.1")).ok());
  down_seen = !rib_b()->established;
  const int at_down = rib_b()->updates;
  io.restart();
  io.run_for(std::chrono::milliseconds(300));
  if (!rib_b()->established) late = rib_b()->updates - at_down;
  EXPECT_TRUE(down_seen);
  EXPECT_EQ(late, 0) << "UPDATEs of a session that went down reached the routing side";
  EXPECT_GE(at_down, updates_before);
  ASSERT_TRUE(RunUntil(
      io, [&] { return rib_b()->established; }, 15));
}

}  // namespace
}  // namespace sluice::bgp
