// Sessions on loopback between two PeerManagers in one event loop (and a few raw TCP clients):
// establishment both ways over IPv4 and IPv6 with 4-octet ASes, routes in and out of the
// Adj-RIB-In, the peer list's counters, enable/disable/remove with their Cease subcodes, TCP MD5,
// GTSM, max-prefix, route refresh and flow control.
#include <gtest/gtest.h>
#include <netinet/in.h>

#include <algorithm>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "bgp/session/connection.h"
#include "bgp/session/peer_manager.h"
#include "tests/bgp/session_test_util.h"

namespace sluice::bgp {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using testing::Addr;
using testing::AdjRibIn;
using testing::RunFor;
using testing::RunUntil;

constexpr uint32_t kAsA = 4200000001u;
constexpr uint32_t kAsB = 4200000002u;
constexpr uint32_t kAsC = 4200000003u;

// One BGP speaker: a PeerManager whose peers each get an AdjRibIn.
struct Speaker {
  Speaker(asio::io_context& io, uint32_t as, const std::string& id, const std::string& listen)
      : manager(io), address(listen) {
    manager.set_routing_side(&routing);
    EXPECT_TRUE(manager.SetLocalAs(as).ok());
    EXPECT_TRUE(manager.SetBgpIdentifier(*net::IPv4Address::Parse(id)).ok());
    auto p = manager.Listen(Addr(listen), 0);
    EXPECT_TRUE(p.ok()) << p.status();
    port = p.ok() ? *p : 0;
  }
  PeerStatus Status(const std::string& peer) {
    auto s = manager.GetPeer(Addr(peer));
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? *s : PeerStatus();
  }

  testing::TestRouting routing;  // outlives the manager
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
  c.hold_time_s = 9;
  c.connect_retry_s = 1;
  c.idle_hold_s = 0.5;
  c.idle_hold_max_s = 4;
  return c;
}

class SessionTransportTest : public ::testing::Test {
 protected:
  // A and B, each configured with the other, both opening connections (collisions happen).
  void Pair(const std::string& a_addr, const std::string& b_addr,
            const std::function<void(PeerConfig&, PeerConfig&)>& tweak = nullptr) {
    a_ = std::make_unique<Speaker>(io_, kAsA, "10.0.0.1", a_addr);
    b_ = std::make_unique<Speaker>(io_, kAsB, "10.0.0.2", b_addr);
    PeerConfig to_b = Peer(*b_, kAsB, a_addr), to_a = Peer(*a_, kAsA, b_addr);
    if (tweak) tweak(to_b, to_a);
    ASSERT_TRUE(a_->manager.AddPeer(to_b).ok());
    ASSERT_TRUE(b_->manager.AddPeer(to_a).ok());
  }
  AdjRibIn* RibA() { return a_->routing.rib(b_->address); }  // what A learned from B
  AdjRibIn* RibB() { return b_->routing.rib(a_->address); }  // what B learned from A
  bool BothUp() { return RibA()->established && RibB()->established; }
  SessionSender* SenderA() { return a_->manager.sender(Addr(b_->address)); }

  asio::io_context io_;
  std::unique_ptr<Speaker> a_, b_;
};

TEST_F(SessionTransportTest, EstablishesOverIPv4AndCarriesRoutesBothFamilies) {
  Pair("127.0.0.1", "127.0.0.2");
  ASSERT_TRUE(RunUntil(
      io_, [&] { return BothUp(); }, 10))
      << a_->Status("127.0.0.2").ToString() << " / " << b_->Status("127.0.0.1").ToString();
  const SessionParams params = RibA()->info().params;
  EXPECT_TRUE(params.four_octet_as);
  EXPECT_TRUE(params.families.Has(kIPv6Unicast));
  EXPECT_EQ(RibB()->info().remote_as, kAsA);
  EXPECT_EQ(RibB()->info().hold_time_s, 9);

  ASSERT_TRUE(SenderA()->established());
  ASSERT_TRUE(SenderA()->SendMessages(
      testing::Announce({"10.1.0.0/16", "10.2.0.0/16"}, kAsA, "127.0.0.1", params)));
  ASSERT_TRUE(
      SenderA()->SendMessages(testing::Announce({"2001:db8:1::/48"}, kAsA, "2001:db8::1", params)));
  ASSERT_TRUE(RunUntil(
      io_, [&] { return RibB()->routes.size() == 3; }, 5));
  const PathAttributes* attrs = RibB()->Attributes("10.1.0.0/16");
  ASSERT_NE(attrs, nullptr);
  EXPECT_EQ(attrs->as_path->ToString(), "4200000001");
  EXPECT_EQ(attrs->next_hop->ToString(), "127.0.0.1");
  ASSERT_NE(RibB()->Attributes("2001:db8:1::/48"), nullptr);

  ASSERT_TRUE(SenderA()->SendMessages(testing::Withdraw({"10.2.0.0/16"}, params)));
  ASSERT_TRUE(RunUntil(
      io_, [&] { return RibB()->routes.size() == 2; }, 5));
  EXPECT_FALSE(RibB()->Has("10.2.0.0/16"));

  // The peer list: state, negotiated parameters and counters.
  const PeerStatus sb = b_->Status("127.0.0.1");
  EXPECT_EQ(sb.state, FsmState::kEstablished);
  EXPECT_EQ(sb.remote_as, kAsA);
  EXPECT_EQ(sb.remote_bgp_id.ToString(), "10.0.0.1");
  EXPECT_EQ(sb.hold_time_s, 9);
  EXPECT_EQ(sb.keepalive_time_s, 3);
  EXPECT_TRUE(sb.four_octet_as);
  EXPECT_GE(sb.counters.updates_in, 3u);
  EXPECT_EQ(sb.counters.nlri_announced_in, 3u);
  EXPECT_EQ(sb.counters.nlri_withdrawn_in, 1u);
  EXPECT_EQ(sb.counters.prefixes_accepted, 2u);
  EXPECT_EQ(sb.counters.established_transitions, 1u);
  EXPECT_GE(sb.counters.messages_in, sb.counters.updates_in + 2);  // + OPEN, KEEPALIVE
  const PeerStatus sa = a_->Status("127.0.0.2");
  EXPECT_GE(sa.counters.updates_out, 3u);
  EXPECT_EQ(sa.local_address, Addr("127.0.0.1"));

  // Keepalives hold the session up well past the hold time, without a flap.
  RunFor(io_, 10);
  EXPECT_TRUE(BothUp());
  EXPECT_EQ(RibA()->established_count, 1);
  EXPECT_EQ(RibB()->established_count, 1);
  EXPECT_GE(b_->Status("127.0.0.1").counters.keepalives_in, 3u);
  EXPECT_GT(b_->Status("127.0.0.1").uptime_s, 9.0);
}

TEST_F(SessionTransportTest, EstablishesOverIPv6) {
  Pair("::1", "::1");  // one address for both: the ports tell them apart
  ASSERT_TRUE(RunUntil(
      io_, [&] { return BothUp(); }, 10))
      << a_->Status("::1").ToString() << " / " << b_->Status("::1").ToString();
  ASSERT_TRUE(SenderA()->SendMessages(
      testing::Announce({"2001:db8:2::/48"}, kAsA, "::1", RibA()->info().params)));
  ASSERT_TRUE(RunUntil(
      io_, [&] { return RibB()->Has("2001:db8:2::/48"); }, 5));
  EXPECT_TRUE(RibB()->info().remote_address.is_v6());
}

// Without graceful restart (RFC 4486 subcodes as they are).
TEST_F(SessionTransportTest, DisableEnableResetAndRemoveSendTheirCeaseSubcodes) {
  Pair("127.0.0.1", "127.0.0.2", [](PeerConfig& to_b, PeerConfig&) {
    to_b.graceful_restart = false;  // A offers no graceful restart: no N bit either
  });
  ASSERT_TRUE(RunUntil(
      io_, [&] { return BothUp(); }, 10));
  ASSERT_TRUE(SenderA()->SendMessages(
      testing::Announce({"10.1.0.0/16"}, kAsA, "127.0.0.1", RibA()->info().params)));
  ASSERT_TRUE(RunUntil(
      io_, [&] { return RibB()->routes.size() == 1; }, 5));

  ASSERT_TRUE(a_->manager.DisablePeer(Addr("127.0.0.2")).ok());
  ASSERT_TRUE(RunUntil(
      io_, [&] { return !RibB()->established; }, 5));
  EXPECT_TRUE(RibB()->routes.empty());  // the peer's routes went with the session
  EXPECT_EQ(b_->Status("127.0.0.1").last_notification_received, (Notification{6, 2, {}}));
  // Disabled: B keeps trying, A refuses.
  RunFor(io_, 2);
  EXPECT_EQ(a_->Status("127.0.0.2").state, FsmState::kIdle);
  EXPECT_FALSE(a_->Status("127.0.0.2").enabled);

  ASSERT_TRUE(a_->manager.EnablePeer(Addr("127.0.0.2")).ok());
  ASSERT_TRUE(RunUntil(
      io_, [&] { return BothUp(); }, 10));

  // Reset: Administrative Reset, and the session comes back by itself.
  ASSERT_TRUE(a_->manager.ResetPeer(Addr("127.0.0.2")).ok());
  ASSERT_TRUE(RunUntil(
      io_, [&] { return RibB()->downs == 2; }, 5));
  EXPECT_EQ(b_->Status("127.0.0.1").last_notification_received, (Notification{6, 4, {}}));
  ASSERT_TRUE(RunUntil(
      io_, [&] { return BothUp(); }, 10));

  ASSERT_TRUE(a_->manager.RemovePeer(Addr("127.0.0.2")).ok());
  EXPECT_EQ(a_->routing.rib("127.0.0.2"), nullptr);
  EXPECT_FALSE(a_->manager.GetPeer(Addr("127.0.0.2")).ok());
  ASSERT_TRUE(RunUntil(
      io_, [&] { return !RibB()->established; }, 5));
  EXPECT_EQ(b_->Status("127.0.0.1").last_notification_received, (Notification{6, 3, {}}));
  EXPECT_EQ(a_->manager.RemovePeer(Addr("127.0.0.2")).code(), absl::StatusCode::kNotFound);
}

// RFC 4724 + RFC 8538 on both sides: the capability is exchanged; deliberate ends are Hard
// Resets (the peer flushes our routes), a lost connection lets the peer restart.
TEST_F(SessionTransportTest, GracefulRestartNegotiationHardResetAndConnectionLoss) {
  GracefulRestartConfig gr;
  gr.restart_time_s = 77;
  Pair("127.0.0.1", "127.0.0.2");
  a_->manager.SetGracefulRestart(gr);  // before the loop runs: before any OPEN
  ASSERT_TRUE(RunUntil(
      io_, [&] { return BothUp(); }, 10));
  const PeerStatus sb = b_->Status("127.0.0.1");
  ASSERT_TRUE(sb.graceful_restart_received.has_value());
  EXPECT_EQ(sb.graceful_restart_received->restart_time, 77);
  EXPECT_TRUE(sb.graceful_restart_received->notification);
  EXPECT_FALSE(sb.graceful_restart_received->restart_state);
  ASSERT_EQ(sb.graceful_restart_received->families.size(), 2u);
  EXPECT_TRUE(sb.graceful_restart_received->families[0].forwarding_preserved);
  ASSERT_TRUE(sb.graceful_restart_sent.has_value());
  EXPECT_EQ(sb.graceful_restart_sent->restart_time, 120);  // the default
  EXPECT_TRUE(sb.graceful_notification);
  ASSERT_TRUE(RibB()->info().graceful_restart.has_value());
  const int downs = RibB()->downs;

  // Disable: Hard Reset wrapping Administrative Shutdown; B flushes.
  ASSERT_TRUE(a_->manager.DisablePeer(Addr("127.0.0.2")).ok());
  ASSERT_TRUE(RunUntil(
      io_, [&] { return !RibB()->established; }, 5));
  EXPECT_EQ(b_->Status("127.0.0.1").last_notification_received, (Notification{6, 9, {6, 2}}));
  EXPECT_EQ(RibB()->graceful_downs, 0);
  EXPECT_EQ(RibA()->graceful_downs, 0);
  ASSERT_TRUE(a_->manager.EnablePeer(Addr("127.0.0.2")).ok());
  ASSERT_TRUE(RunUntil(
      io_, [&] { return BothUp(); }, 10));

  // A exits for a restart: the connection just closes; B keeps A's routes (graceful end).
  a_->manager.CloseForRestart();
  ASSERT_TRUE(RunUntil(
      io_, [&] { return !RibB()->established; }, 5));
  EXPECT_EQ(RibB()->graceful_downs, 1);
  EXPECT_EQ(RibB()->downs, downs + 2);
}

// `graceful-restart disable` on one side: no capability from it, so neither side helps.
TEST_F(SessionTransportTest, GracefulRestartDisabledOnOneSideIsNotNegotiated) {
  Pair("127.0.0.1", "127.0.0.2",
       [](PeerConfig& to_b, PeerConfig&) { to_b.graceful_restart = false; });
  ASSERT_TRUE(RunUntil(
      io_, [&] { return BothUp(); }, 10));
  EXPECT_FALSE(b_->Status("127.0.0.1").graceful_restart_received.has_value());
  EXPECT_FALSE(RibB()->info().graceful_restart.has_value());
  EXPECT_FALSE(RibA()->info().graceful_restart.has_value());  // A sent none: no help from B
  a_->manager.CloseForRestart();
  ASSERT_TRUE(RunUntil(
      io_, [&] { return !RibB()->established; }, 5));
  EXPECT_EQ(RibB()->graceful_downs, 0);
}

TEST_F(SessionTransportTest, AFaultInOneSessionResetsItAloneAndTheLoopGoesOn) {
  Pair("127.0.0.1", "127.0.0.2");
  // A third speaker, C, peers with B too: its session must not notice.
  Speaker c(io_, kAsC, "10.0.0.3", "127.0.0.3");
  ASSERT_TRUE(b_->manager.AddPeer(Peer(c, kAsC, "127.0.0.2")).ok());
  ASSERT_TRUE(c.manager.AddPeer(Peer(*b_, kAsB, "127.0.0.3")).ok());
  AdjRibIn* b_from_c = b_->routing.rib("127.0.0.3");
  ASSERT_TRUE(RunUntil(
      io_, [&] { return BothUp() && b_from_c->established; }, 10));

  // B's routing side fails on the next UPDATE from A as if memory ran out. The exception would
  // end io_.run_for() inside RunUntil (and the test) if it escaped a handler.
  bool thrown = false;
  RibB()->fault = [&thrown] {
    if (thrown) return;
    thrown = true;
    throw std::bad_alloc();
  };
  ASSERT_TRUE(SenderA()->SendMessages(
      testing::Announce({"10.1.0.0/16"}, kAsA, "127.0.0.1", RibA()->info().params)));
  ASSERT_TRUE(RunUntil(
      io_, [&] { return a_->Status("127.0.0.2").last_notification_received.has_value(); }, 5));
  // Cease / Out of Resources (RFC 4486) to A; B counts an internal error.
  EXPECT_EQ(a_->Status("127.0.0.2").last_notification_received, (Notification{6, 8, {}}));
  const PeerStatus sb = b_->Status("127.0.0.1");
  EXPECT_EQ(sb.counters.session_resets[int(ResetCause::kInternalError)], 1u);
  EXPECT_NE(sb.last_error.find("internal error"), std::string::npos) << sb.last_error;
  // The session comes back by itself (A re-sends its routes then); C's never went down.
  ASSERT_TRUE(RunUntil(
      io_, [&] { return BothUp() && RibB()->established_count == 2; }, 10));
  EXPECT_TRUE(b_from_c->established);
  EXPECT_EQ(b_from_c->downs, 0);
  EXPECT_EQ(b_->Status("127.0.0.3").counters.established_transitions, 1u);
}

TEST_F(SessionTransportTest, AConnectionWhoseEndpointsCannotBeReadFailsQuietly) {
  Pair("127.0.0.1", "127.0.0.2");
  ASSERT_TRUE(RunUntil(
      io_, [&] { return BothUp(); }, 10));
  // A socket that is not open: local_endpoint() and remote_endpoint() fail. Handed to the
  // Established session (refused: collision) and to the manager's listener path for an unknown
  // peer's connection, it costs nothing but itself.
  PeerSession* session = b_->manager.session(Addr("127.0.0.1"));
  ASSERT_NE(session, nullptr);
  EXPECT_NO_THROW(session->Accept(tcp::socket(io_)));
  auto dead = Connection::Accepted(io_, nullptr, tcp::socket(io_), ConnectionOptions());
  dead->Close();
  RunFor(io_, 1);
  EXPECT_TRUE(BothUp());
  EXPECT_EQ(RibB()->established_count, 1);
  EXPECT_EQ(b_->Status("127.0.0.1").counters.session_resets[int(ResetCause::kInternalError)], 0u);
}

TEST_F(SessionTransportTest, LocalAsChangeRestartsSessionsWithOtherConfigurationChange) {
  Pair("127.0.0.1", "127.0.0.2");
  ASSERT_TRUE(RunUntil(
      io_, [&] { return BothUp(); }, 10));
  ASSERT_TRUE(a_->manager.SetLocalAs(4200000009u).ok());
  ASSERT_TRUE(RunUntil(
      io_,
      [&] {
        // RFC 8538 §3: both sides set the N bit, so the Cease travels inside a Hard Reset.
        return b_->Status("127.0.0.1").last_notification_received == Notification{6, 9, {6, 6}};
      },
      5));
  // B expects AS 4200000001: the new OPEN is refused with Bad Peer AS.
  ASSERT_TRUE(RunUntil(
      io_,
      [&] {
        const auto n = b_->Status("127.0.0.1").last_notification_sent;
        return n && n->code == 2 && n->subcode == 2;
      },
      10));
}

TEST_F(SessionTransportTest, Md5SignedSessionEstablishesAndMismatchDoesNot) {
  Pair("127.0.0.1", "127.0.0.2", [](PeerConfig& to_b, PeerConfig& to_a) {
    to_b.md5_password = "sluice-md5";
    to_a.md5_password = "sluice-md5";
  });
  ASSERT_TRUE(RunUntil(
      io_, [&] { return BothUp(); }, 10))
      << a_->Status("127.0.0.2").ToString() << " / " << b_->Status("127.0.0.1").ToString();

  asio::io_context io2;
  Speaker c(io2, kAsA, "10.0.0.3", "127.0.0.3");
  Speaker d(io2, kAsB, "10.0.0.4", "127.0.0.4");
  PeerConfig to_d = Peer(d, kAsB, "127.0.0.3"), to_c = Peer(c, kAsA, "127.0.0.4");
  to_d.md5_password = "right";
  to_c.md5_password = "wrong";
  ASSERT_TRUE(c.manager.AddPeer(to_d).ok());
  ASSERT_TRUE(d.manager.AddPeer(to_c).ok());
  RunFor(io2, 3);
  EXPECT_EQ(c.Status("127.0.0.4").counters.messages_in, 0u);
  EXPECT_EQ(d.Status("127.0.0.3").counters.messages_in, 0u);
  EXPECT_FALSE(c.routing.rib("127.0.0.4")->established);
}

// A raw TCP client from `from` that waits for the speaker's OPEN, then sends its own (valid) OPEN
// with the given TTL.
class RawClient {
 public:
  RawClient(asio::io_context& io, const std::string& from, const Speaker& to, int ttl)
      : socket_(io) {
    socket_.open(tcp::v4());
    socket_.bind(tcp::endpoint(asio::ip::make_address(from), 0));
    socket_.set_option(asio::ip::unicast::hops(ttl));
    socket_.connect(tcp::endpoint(asio::ip::make_address(to.address), to.port));
    uint8_t header[19];
    asio::read(socket_, asio::buffer(header));  // the speaker's OPEN has started to arrive
    std::vector<uint8_t> open;
    EXPECT_TRUE(
        AppendOpen(OpenMessage::Make(kAsB, 9, net::IPv4Address(0x0a000009), {}), &open).ok());
    asio::write(socket_, asio::buffer(open));
  }

 private:
  tcp::socket socket_;
};

TEST_F(SessionTransportTest, GtsmDropsPacketsSentWithALowTtl) {
  a_ = std::make_unique<Speaker>(io_, kAsA, "10.0.0.1", "127.0.0.1");
  PeerConfig c;
  c.address = Addr("127.0.0.5");
  c.remote_as = kAsB;
  c.passive = true;
  c.gtsm_hops = 1;
  ASSERT_TRUE(a_->manager.AddPeer(c).ok());
  // The client runs on its own thread (blocking reads); A's loop runs here.
  auto client = [&](int ttl) {
    return std::async(std::launch::async, [this, ttl] {
      asio::io_context io;
      RawClient raw(io, "127.0.0.5", *a_, ttl);
      std::this_thread::sleep_for(std::chrono::seconds(2));
    });
  };
  {
    auto done = client(64);
    RunFor(io_, 1.5);
    EXPECT_EQ(a_->Status("127.0.0.5").counters.opens_in, 0u);  // dropped: TTL 64 < 255
    RunUntil(
        io_, [&] { return done.wait_for(std::chrono::seconds(0)) == std::future_status::ready; },
        5);
  }
  {
    auto done = client(255);
    EXPECT_TRUE(RunUntil(
        io_, [&] { return a_->Status("127.0.0.5").counters.opens_in == 1; }, 5));
    EXPECT_EQ(a_->Status("127.0.0.5").state, FsmState::kOpenConfirm);
    RunUntil(
        io_, [&] { return done.wait_for(std::chrono::seconds(0)) == std::future_status::ready; },
        5);
  }
}

TEST_F(SessionTransportTest, MaxPrefixWarnsOrTearsDownAndRestarts) {
  Pair("127.0.0.1", "127.0.0.2", [](PeerConfig&, PeerConfig& to_a) {
    to_a.max_prefix.limit = 2;
    to_a.max_prefix.action = MaxPrefixAction::kTeardown;
    to_a.max_prefix.restart_after_s = 1;
  });
  ASSERT_TRUE(RunUntil(
      io_, [&] { return BothUp(); }, 10));
  ASSERT_TRUE(SenderA()->SendMessages(testing::Announce(
      {"10.1.0.0/16", "10.2.0.0/16", "10.3.0.0/16"}, kAsA, "127.0.0.1", RibA()->info().params)));
  ASSERT_TRUE(RunUntil(
      io_, [&] { return RibA()->downs == 1; }, 5));
  const PeerStatus sa = a_->Status("127.0.0.2");
  ASSERT_TRUE(sa.last_notification_received.has_value());
  // Hard Reset (RFC 8538 §3, both sides set the N bit) wrapping Maximum Number of Prefixes
  // Reached; its data (RFC 4486 §4: AFI, SAFI, limit) only with one family, here two.
  EXPECT_EQ(sa.last_notification_received->code, 6);
  EXPECT_EQ(sa.last_notification_received->subcode, 9);
  EXPECT_EQ(sa.last_notification_received->data, (std::vector<uint8_t>{6, 1}));
  EXPECT_EQ(RibA()->graceful_downs, 0);  // B's routes were flushed, not kept stale
  // B comes back by itself after the restart time.
  ASSERT_TRUE(RunUntil(
      io_, [&] { return BothUp(); }, 10));
  EXPECT_EQ(RibB()->established_count, 2);

  // Warn only: the session stays and the status says so.
  asio::io_context io2;
  Speaker c(io2, kAsA, "10.0.0.3", "127.0.0.3");
  Speaker d(io2, kAsB, "10.0.0.4", "127.0.0.4");
  PeerConfig to_d = Peer(d, kAsB, "127.0.0.3"), to_c = Peer(c, kAsA, "127.0.0.4");
  to_c.max_prefix.limit = 1;
  to_c.max_prefix.action = MaxPrefixAction::kWarn;
  ASSERT_TRUE(c.manager.AddPeer(to_d).ok());
  ASSERT_TRUE(d.manager.AddPeer(to_c).ok());
  AdjRibIn* c_rib = c.routing.rib("127.0.0.4");
  AdjRibIn* d_rib = d.routing.rib("127.0.0.3");
  ASSERT_TRUE(RunUntil(
      io2, [&] { return c_rib->established && d_rib->established; }, 10));
  ASSERT_TRUE(c.manager.sender(Addr("127.0.0.4"))
                  ->SendMessages(testing::Announce({"10.1.0.0/16", "10.2.0.0/16"}, kAsA,
                                                   "127.0.0.3", c_rib->info().params)));
  ASSERT_TRUE(RunUntil(
      io2, [&] { return d_rib->routes.size() == 2; }, 5));
  RunFor(io2, 0.5);
  EXPECT_TRUE(d_rib->established);
  EXPECT_TRUE(d.Status("127.0.0.3").max_prefix_exceeded);
}

TEST_F(SessionTransportTest, RouteRefreshAndFlowControl) {
  Pair("127.0.0.1", "127.0.0.2");
  ASSERT_TRUE(RunUntil(
      io_, [&] { return BothUp(); }, 10));
  SenderA()->SendRouteRefresh(kIPv4Unicast);
  ASSERT_TRUE(RunUntil(
      io_, [&] { return RibB()->route_refreshes == 1; }, 5));

  // 40,000 prefixes in one go: the backlog is reported, drains, and OnWritable is called.
  std::vector<std::string> prefixes;
  for (int i = 0; i < 40000; ++i) {
    prefixes.push_back(absl::StrCat(10 + i / 65536, ".", (i / 256) % 256, ".", i % 256, ".0/24"));
  }
  ASSERT_TRUE(SenderA()->SendMessages(
      testing::Announce(prefixes, kAsA, "127.0.0.1", RibA()->info().params)));
  EXPECT_GT(SenderA()->send_backlog(), 0u);
  ASSERT_TRUE(RunUntil(
      io_, [&] { return RibB()->routes.size() == 40000; }, 20));
  EXPECT_EQ(SenderA()->send_backlog(), 0u);
  EXPECT_GT(RibA()->writables, 0);
}

TEST_F(SessionTransportTest, ConnectionsFromUnknownAddressesAreRejected) {
  a_ = std::make_unique<Speaker>(io_, kAsA, "10.0.0.1", "127.0.0.1");
  auto result = std::async(std::launch::async, [this] {
    asio::io_context io;
    tcp::socket s(io);
    s.open(tcp::v4());
    s.bind(tcp::endpoint(asio::ip::make_address("127.0.0.9"), 0));
    s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), a_->port));
    // NOTIFICATION Cease / Connection Rejected (21 octets), then the end of the stream.
    std::vector<uint8_t> got(64);
    size_t n = 0;
    boost::system::error_code ec;
    while (!ec) n += s.read_some(asio::buffer(got.data() + n, got.size() - n), ec);
    got.resize(n);
    Notification notification;
    return ec == asio::error::eof && DecodeNotification(got, &notification).ok() &&
           notification == Notification{6, 5, {}};
  });
  RunUntil(
      io_, [&] { return result.wait_for(std::chrono::seconds(0)) == std::future_status::ready; },
      5);
  EXPECT_TRUE(result.get());
}

// `count` messages of 4,096 octets with a BGP header of type UPDATE (the body is zeros), back to
// back: what a Connection's framer cuts and hands on, without any BGP meaning.
std::vector<uint8_t> UpdateShapedMessages(size_t count) {
  std::vector<uint8_t> out;
  out.reserve(count * 4096);
  for (size_t i = 0; i < count; ++i) {
    std::vector<uint8_t> m(4096, 0);
    std::fill(m.begin(), m.begin() + 16, 0xff);
    StoreU16(m.data() + 16, 4096);
    m[18] = uint8_t(MessageType::kUpdate);
    out.insert(out.end(), m.begin(), m.end());
  }
  return out;
}

// Connection: a KEEPALIVE queued behind 1 MiB of UPDATEs goes out after at most one write chunk
// (64 KiB), not after the backlog; and the reading side hands messages over in slices.
TEST(ConnectionTest, ControlMessagesGoAheadOfQueuedUpdates) {
  struct Owner : ConnectionOwner {
    void OnConnected(Connection*) override {}
    void OnConnectFailed(Connection*, const std::string&) override {}
    void OnMessage(Connection*, Bytes m) override { types.push_back(m[18]); }
    void OnHeaderError(Connection*, const Notification&) override {}
    void OnClosed(Connection*, const std::string&) override { closed = true; }
    void OnWritable(Connection*) override { ++writable; }
    std::vector<uint8_t> types;
    bool closed = false;
    int writable = 0;
  };
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  tcp::socket client(io);
  client.connect(acceptor.local_endpoint());
  Owner writer_owner, reader_owner;
  auto writer = Connection::Accepted(io, &writer_owner, acceptor.accept(), ConnectionOptions());
  // 1 MiB of 4,096-octet UPDATE-shaped messages, then a KEEPALIVE.
  const std::vector<uint8_t> updates = UpdateShapedMessages(256);
  writer->SendBulk(updates);
  std::vector<uint8_t> keepalive;
  AppendKeepalive(&keepalive);
  writer->SendUrgent(keepalive);
  EXPECT_EQ(writer->backlog(), updates.size());
  auto reader = Connection::Accepted(io, &reader_owner, std::move(client), ConnectionOptions());
  ASSERT_TRUE(RunUntil(
      io, [&] { return reader_owner.types.size() == 257; }, 10));
  const auto at = std::find(reader_owner.types.begin(), reader_owner.types.end(),
                            uint8_t(MessageType::kKeepalive)) -
                  reader_owner.types.begin();
  EXPECT_LE(at, int(Connection::kWriteChunk / 4096)) << "the KEEPALIVE waited for the backlog";
  EXPECT_EQ(writer->backlog(), 0u);
  EXPECT_GT(writer_owner.writable, 0);
  writer->Close();
  ASSERT_TRUE(RunUntil(
      io, [&] { return reader_owner.closed; }, 5));
  reader->Close();
}

// Connection: paused, the owner gets no message past the one it paused in and nothing more is
// read, so TCP holds the writer back; the paused side still writes; resumed, everything arrives.
TEST(ConnectionTest, PausedReadingHoldsThePeerBackAndResumes) {
  struct Owner : ConnectionOwner {
    void OnConnected(Connection*) override {}
    void OnConnectFailed(Connection*, const std::string&) override {}
    void OnMessage(Connection* c, Bytes m) override {
      types.push_back(m[18]);
      if (types.size() == pause_at) c->PauseReading(true);
    }
    void OnHeaderError(Connection*, const Notification&) override {}
    void OnClosed(Connection*, const std::string&) override { closed = true; }
    void OnWritable(Connection*) override {}
    std::vector<uint8_t> types;
    size_t pause_at = 0;
    bool closed = false;
  };
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  tcp::socket client(io);
  client.connect(acceptor.local_endpoint());
  Owner writer_owner, reader_owner;
  reader_owner.pause_at = 10;
  auto writer = Connection::Accepted(io, &writer_owner, acceptor.accept(), ConnectionOptions());
  // 16 MiB of 4,096-octet UPDATE-shaped messages: more than loopback's socket buffers hold.
  constexpr size_t kMessages = 4096;
  const std::vector<uint8_t> updates = UpdateShapedMessages(kMessages);
  writer->SendBulk(updates);
  auto reader = Connection::Accepted(io, &reader_owner, std::move(client), ConnectionOptions());
  ASSERT_TRUE(RunUntil(
      io, [&] { return reader_owner.types.size() >= 10; }, 10));
  EXPECT_TRUE(reader->reading_paused());
  RunUntil(
      io, [] { return false; }, 0.5);
  EXPECT_EQ(reader_owner.types.size(), 10u) << "messages handed on while paused";
  EXPECT_GT(writer->backlog(), 0u) << "the paused side kept reading";
  std::vector<uint8_t> keepalive;
  AppendKeepalive(&keepalive);
  reader->SendUrgent(keepalive);
  ASSERT_TRUE(RunUntil(
      io, [&] { return !writer_owner.types.empty(); }, 5))
      << "the paused side did not write";
  EXPECT_EQ(writer_owner.types[0], uint8_t(MessageType::kKeepalive));
  reader->PauseReading(false);
  ASSERT_TRUE(RunUntil(
      io, [&] { return reader_owner.types.size() == kMessages; }, 20));
  EXPECT_EQ(writer->backlog(), 0u);
  writer->Close();
  ASSERT_TRUE(RunUntil(
      io, [&] { return reader_owner.closed; }, 5));
  reader->Close();
}

TEST(PeerManagerTest, ConfigurationErrors) {
  asio::io_context io;
  PeerManager m(io);
  PeerConfig c;
  c.address = Addr("127.0.0.2");
  c.remote_as = 65001;
  EXPECT_EQ(m.AddPeer(c).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(m.SetLocalAs(0).code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(m.SetLocalAs(65000).ok());
  ASSERT_TRUE(m.SetBgpIdentifier(net::IPv4Address(1)).ok());
  c.hold_time_s = 2;
  EXPECT_EQ(m.AddPeer(c).code(), absl::StatusCode::kInvalidArgument);
  c.hold_time_s = 3;
  c.md5_password = std::string(81, 'x');
  EXPECT_EQ(m.AddPeer(c).code(), absl::StatusCode::kInvalidArgument);
  c.md5_password.clear();
  c.local_address = Addr("::1");
  EXPECT_EQ(m.AddPeer(c).code(), absl::StatusCode::kInvalidArgument);
  c.local_address.reset();
  c.enabled = false;
  ASSERT_TRUE(m.AddPeer(c).ok());
  EXPECT_EQ(m.AddPeer(c).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(m.EnablePeer(Addr("127.0.0.3")).code(), absl::StatusCode::kNotFound);
  const auto list = m.ListPeers();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].state, FsmState::kIdle);
  EXPECT_FALSE(list[0].enabled);
  auto port = m.Listen(Addr("127.0.0.1"), 0);
  ASSERT_TRUE(port.ok());
  EXPECT_EQ(m.Listen(Addr("127.0.0.1"), *port).status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(m.StopListening(Addr("127.0.0.1"), *port).ok());
}

}  // namespace
}  // namespace sluice::bgp
