// MessageTap on real sessions on loopback: what a monitoring exporter (BMP, MRT) is told — the
// state changes up to Established, both OPENs at Peer Up, every UPDATE as it crossed the wire, the
// NOTIFICATION of a Peer Down — and nothing once the tap is removed.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "bgp/session/message_tap.h"
#include "bgp/session/peer_manager.h"
#include "bgp/wire/notification.h"
#include "tests/bgp/session_test_util.h"

namespace sluice::bgp {
namespace {

namespace asio = boost::asio;
using testing::Addr;
using testing::RunUntil;

using Bytes8 = std::vector<uint8_t>;

struct RecordingTap : MessageTap {
  void OnStateChange(const TapPeer&, FsmState, FsmState new_state) override {
    states.push_back(new_state);
  }
  void OnMessageReceived(const TapPeer& peer, std::span<const uint8_t> message) override {
    received.emplace_back(message.begin(), message.end());
    last_peer = peer;
  }
  void OnPeerUp(const TapPeer& peer, const EstablishedInfo& info, std::span<const uint8_t> sent,
                std::span<const uint8_t> got) override {
    ++ups;
    up_peer = peer;
    up_info = info;
    sent_open.assign(sent.begin(), sent.end());
    received_open.assign(got.begin(), got.end());
  }
  void OnPeerDown(const TapPeer&, TapDownReason reason,
                  std::span<const uint8_t> notification) override {
    ++downs;
    down_reason = reason;
    down_notification.assign(notification.begin(), notification.end());
  }
  // The received messages of `type` (MessageType).
  std::vector<Bytes8> OfType(MessageType type) const {
    std::vector<Bytes8> out;
    for (const Bytes8& m : received) {
      if (m.size() > 18 && m[18] == uint8_t(type)) out.push_back(m);
    }
    return out;
  }

  std::vector<FsmState> states;
  std::vector<Bytes8> received;
  TapPeer last_peer, up_peer;
  EstablishedInfo up_info;
  Bytes8 sent_open, received_open, down_notification;
  int ups = 0, downs = 0;
  TapDownReason down_reason = TapDownReason::kLocalNoNotification;
};

struct Speaker {
  Speaker(asio::io_context& io, uint32_t local_as, const std::string& id, const std::string& listen)
      : manager(io), address(listen), as(local_as) {
    manager.set_routing_side(&routing);
    EXPECT_TRUE(manager.SetLocalAs(as).ok());
    EXPECT_TRUE(manager.SetBgpIdentifier(*net::IPv4Address::Parse(id)).ok());
    port = *manager.Listen(Addr(listen), 0);
  }
  PeerConfig To(const Speaker& other, const std::string& from_address) const {
    PeerConfig c;
    c.address = Addr(other.address);
    c.port = other.port;
    c.remote_as = other.as;
    c.local_address = Addr(from_address);
    c.hold_time_s = 9;
    c.connect_retry_s = 1;
    c.idle_hold_s = 0.5;
    c.graceful_restart = false;
    return c;
  }
  testing::TestRouting routing;
  PeerManager manager;
  std::string address;
  uint32_t as = 0;
  uint16_t port = 0;
};

TEST(SessionTapTest, SeesTheSessionAsItCrossesTheWire) {
  asio::io_context io;
  Speaker a(io, 4200000001u, "10.0.0.1", "127.0.0.1");
  Speaker b(io, 4200000002u, "10.0.0.2", "127.0.0.2");
  RecordingTap tap;
  b.manager.AddTap(&tap);
  PeerConfig to_b = a.To(b, "127.0.0.1");
  to_b.passive = false;
  PeerConfig to_a = b.To(a, "127.0.0.2");
  to_a.passive = true;  // one connection: A opens it
  ASSERT_TRUE(b.manager.AddPeer(to_a).ok());
  ASSERT_TRUE(a.manager.AddPeer(to_b).ok());
  ASSERT_TRUE(RunUntil(
      io, [&] { return tap.ups == 1 && a.routing.rib("127.0.0.2")->established; }, 10));

  // Peer Up: both OPENs, whole messages; who the peer is.
  ASSERT_GE(tap.sent_open.size(), 29u);
  ASSERT_GE(tap.received_open.size(), 29u);
  EXPECT_EQ(tap.sent_open[18], uint8_t(MessageType::kOpen));
  EXPECT_EQ(tap.received_open[18], uint8_t(MessageType::kOpen));
  // The BGP Identifier of each OPEN (octets 24-27): ours in the one we sent, A's in A's.
  EXPECT_EQ(Bytes8(tap.sent_open.begin() + 24, tap.sent_open.begin() + 28), (Bytes8{10, 0, 0, 2}));
  EXPECT_EQ(Bytes8(tap.received_open.begin() + 24, tap.received_open.begin() + 28),
            (Bytes8{10, 0, 0, 1}));
  EXPECT_EQ(tap.OfType(MessageType::kOpen).size(), 1u);
  EXPECT_EQ(tap.up_peer.remote_address, Addr("127.0.0.1"));
  EXPECT_EQ(tap.up_peer.local_address, Addr("127.0.0.2"));
  EXPECT_EQ(tap.up_peer.local_port, b.port);
  EXPECT_NE(tap.up_peer.remote_port, 0);
  EXPECT_EQ(tap.up_peer.remote_as, 4200000001u);
  EXPECT_EQ(tap.up_peer.remote_bgp_id.ToString(), "10.0.0.1");
  EXPECT_TRUE(tap.up_peer.four_octet_as);
  EXPECT_EQ(tap.up_info.remote_as, 4200000001u);
  // The states of a passive peer: Active, OpenSent, OpenConfirm, Established.
  ASSERT_FALSE(tap.states.empty());
  EXPECT_EQ(tap.states.back(), FsmState::kEstablished);
  EXPECT_NE(std::find(tap.states.begin(), tap.states.end(), FsmState::kOpenConfirm),
            tap.states.end());

  // An UPDATE arrives exactly as A sent it.
  SessionSender* sender = a.manager.sender(Addr("127.0.0.2"));
  const Bytes8 update = testing::Announce({"10.1.0.0/16", "10.2.0.0/16"}, a.as, "127.0.0.1",
                                          a.routing.rib("127.0.0.2")->info().params);
  ASSERT_TRUE(sender->SendMessages(update));
  ASSERT_TRUE(RunUntil(
      io, [&] { return !tap.OfType(MessageType::kUpdate).empty(); }, 5));
  ASSERT_EQ(tap.OfType(MessageType::kUpdate).size(), 1u);
  EXPECT_EQ(tap.OfType(MessageType::kUpdate)[0], update);

  // Peer Down: A disables the peer; B is told of the Cease it received.
  ASSERT_TRUE(a.manager.DisablePeer(Addr("127.0.0.2")).ok());
  ASSERT_TRUE(RunUntil(
      io, [&] { return tap.downs == 1; }, 5));
  EXPECT_EQ(tap.down_reason, TapDownReason::kRemoteNotification);
  Bytes8 cease;
  AppendNotification(Notification{6, 2, {}}, &cease);
  EXPECT_EQ(tap.down_notification, cease);
  EXPECT_NE(tap.states.back(), FsmState::kEstablished);

  // Removed: told nothing more.
  b.manager.RemoveTap(&tap);
  const size_t seen = tap.received.size() + tap.states.size();
  ASSERT_TRUE(a.manager.EnablePeer(Addr("127.0.0.2")).ok());
  ASSERT_TRUE(RunUntil(
      io, [&] { return a.routing.rib("127.0.0.2")->established; }, 10));
  EXPECT_EQ(tap.received.size() + tap.states.size(), seen);
  EXPECT_EQ(tap.ups, 1);
}

TEST(SessionTapTest, ADownWeCauseCarriesTheNotificationWeSent) {
  asio::io_context io;
  RecordingTap tap;  // outlives its registration: b's shutdown reports to it
  Speaker a(io, 65001, "10.0.0.1", "127.0.0.1");
  Speaker b(io, 65002, "10.0.0.2", "127.0.0.2");
  b.manager.AddTap(&tap);
  PeerConfig to_a = b.To(a, "127.0.0.2");
  to_a.passive = true;
  ASSERT_TRUE(b.manager.AddPeer(to_a).ok());
  ASSERT_TRUE(a.manager.AddPeer(a.To(b, "127.0.0.1")).ok());
  ASSERT_TRUE(RunUntil(
      io, [&] { return tap.ups == 1; }, 10));
  ASSERT_TRUE(b.manager.ResetPeer(Addr("127.0.0.1")).ok());
  ASSERT_TRUE(RunUntil(
      io, [&] { return tap.downs == 1; }, 5));
  EXPECT_EQ(tap.down_reason, TapDownReason::kLocalNotification);
  Bytes8 reset;
  AppendNotification(Notification{6, 4, {}}, &reset);
  EXPECT_EQ(tap.down_notification, reset);
}

}  // namespace
}  // namespace sluice::bgp
