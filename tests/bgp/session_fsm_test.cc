// The RFC 4271 §8 state machine without sockets: events in, actions out, on a fake clock.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bgp/session/fsm.h"
#include "bgp/session/log_limiter.h"
#include "bgp/session/peer_config.h"
#include "bgp/wire/constants.h"

namespace sluice::bgp {
namespace {

using Kind = FsmAction::Kind;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr uint32_t kLocalAs = 4200000001u;
constexpr uint32_t kPeerAs = 4200000002u;

FsmSettings Settings() {
  FsmSettings s;
  s.local_as = kLocalAs;
  s.local_id = net::IPv4Address(0x0a000001);  // 10.0.0.1
  s.peer_as = kPeerAs;
  s.hold_time_s = 9;
  s.connect_retry_s = 2;
  s.idle_hold_s = 1;
  s.idle_hold_max_s = 8;
  s.stable_s = 30;
  s.capabilities.multiprotocol = {kIPv4Unicast, kIPv6Unicast};
  s.capabilities.route_refresh = true;
  return s;
}

std::vector<uint8_t> Open(uint32_t as, uint16_t hold, uint32_t id, uint8_t version = 4) {
  Capabilities caps;
  caps.multiprotocol = {kIPv4Unicast};
  OpenMessage open = OpenMessage::Make(as, hold, net::IPv4Address(id), caps);
  open.version = version;
  std::vector<uint8_t> wire;
  EXPECT_TRUE(AppendOpen(open, &wire).ok());
  return wire;
}

std::vector<uint8_t> Keepalive() {
  std::vector<uint8_t> wire;
  AppendKeepalive(&wire);
  return wire;
}

// An UPDATE with nothing in it (End-of-RIB for IPv4 unicast).
std::vector<uint8_t> Update() {
  std::vector<uint8_t> wire(23, 0);
  std::fill(wire.begin(), wire.begin() + 16, 0xff);
  wire[17] = 23;
  wire[18] = uint8_t(MessageType::kUpdate);
  return wire;
}

// The action list in short: "connect send:OPEN close established".
std::string Summary(const FsmActions& actions) {
  std::string s;
  for (const FsmAction& a : actions) {
    if (!s.empty()) s += ' ';
    switch (a.kind) {
      case Kind::kConnect:
        s += "connect";
        break;
      case Kind::kAccept:
        s += "accept";
        break;
      case Kind::kSend: {
        static const char* kNames[] = {"?",         "OPEN",         "UPDATE", "NOTIFICATION",
                                       "KEEPALIVE", "ROUTE-REFRESH"};
        const uint8_t type = a.message.size() > 18 ? a.message[18] : 0;
        s += std::string("send:") + kNames[type <= 5 ? type : 0];
        break;
      }
      case Kind::kClose:
        s += "close";
        break;
      case Kind::kEstablished:
        s += "established";
        break;
      case Kind::kDown:
        s += "down";
        break;
    }
    if (a.side == Side::kIncoming && a.kind != Kind::kDown && a.kind != Kind::kEstablished) {
      s += "(in)";
    }
  }
  return s;
}

// The NOTIFICATION the actions send, if any.
std::optional<Notification> Sent(const FsmActions& actions) {
  for (const FsmAction& a : actions) {
    if (a.kind == Kind::kSend && a.message.size() > 18 &&
        a.message[18] == uint8_t(MessageType::kNotification)) {
      Notification n;
      EXPECT_TRUE(DecodeNotification(a.message, &n).ok());
      return n;
    }
  }
  return std::nullopt;
}

class FsmTest : public ::testing::Test {
 protected:
  FsmActions Do(const std::function<void(FsmActions*)>& event) {
    FsmActions out;
    event(&out);
    return out;
  }
  FsmActions Tick(SteadyClock::duration after) {
    now_ += after;
    return Do([&](FsmActions* o) { fsm_.Tick(now_, o); });
  }
  FsmActions Msg(Side side, const std::vector<uint8_t>& m) {
    return Do([&](FsmActions* o) { fsm_.Message(now_, side, m, o); });
  }
  // Start, connect, exchange OPENs and KEEPALIVEs on our connection.
  void Establish(uint16_t peer_hold = 9, uint32_t peer_id = 0x0a000002) {
    EXPECT_EQ(Summary(Do([&](FsmActions* o) { fsm_.Start(now_, o); })), "connect");
    EXPECT_EQ(fsm_.state(), FsmState::kConnect);
    EXPECT_EQ(Summary(Do([&](FsmActions* o) { fsm_.ConnectSucceeded(now_, o); })), "send:OPEN");
    EXPECT_EQ(fsm_.state(), FsmState::kOpenSent);
    EXPECT_EQ(Summary(Msg(Side::kOutgoing, Open(kPeerAs, peer_hold, peer_id))), "send:KEEPALIVE");
    EXPECT_EQ(fsm_.state(), FsmState::kOpenConfirm);
    EXPECT_EQ(Summary(Msg(Side::kOutgoing, Keepalive())), "established");
    EXPECT_EQ(fsm_.state(), FsmState::kEstablished);
  }

  SteadyTime now_ = SteadyTime() + seconds(1000);
  Fsm fsm_{Settings()};
};

TEST_F(FsmTest, ActiveOpenReachesEstablishedWithTheSmallerHoldTime) {
  Establish(/*peer_hold=*/6);
  EXPECT_EQ(fsm_.established_side(), Side::kOutgoing);
  EXPECT_EQ(fsm_.negotiated(Side::kOutgoing).hold_time, 6);
  EXPECT_EQ(fsm_.negotiated(Side::kOutgoing).keepalive_time, 2);
  EXPECT_EQ(fsm_.negotiated(Side::kOutgoing).peer_as, kPeerAs);
  EXPECT_TRUE(fsm_.negotiated(Side::kOutgoing).params.four_octet_as);
  // Our OPEN: 4-octet AS, AS_TRANS in My AS, our hold time.
  const OpenMessage mine = fsm_.LocalOpen();
  EXPECT_EQ(mine.my_as, kAsTrans);
  EXPECT_EQ(mine.AsNumber(), kLocalAs);
  EXPECT_EQ(mine.hold_time, 9);
}

TEST_F(FsmTest, KeepalivesEveryThirdOfTheHoldTimeAndHoldTimerExpiry) {
  Establish(9);
  EXPECT_EQ(Summary(Tick(milliseconds(2900))), "");
  EXPECT_EQ(Summary(Tick(milliseconds(100))), "send:KEEPALIVE");
  // Messages from the peer restart the hold timer: 8 s later, then an UPDATE, 8 s later again.
  Tick(seconds(5));
  EXPECT_EQ(Summary(Msg(Side::kOutgoing, Update())), "");
  Tick(seconds(8));
  EXPECT_EQ(fsm_.state(), FsmState::kEstablished);
  // Silence for the hold time: NOTIFICATION 4/0, down, Idle.
  const FsmActions a = Tick(seconds(1));
  EXPECT_EQ(Summary(a), "send:NOTIFICATION close down");
  EXPECT_EQ(Sent(a), (Notification{4, 0, {}}));
  EXPECT_EQ(fsm_.state(), FsmState::kIdle);
  EXPECT_EQ(fsm_.last_error(), "hold timer expired");
}

TEST_F(FsmTest, UpdateIsHandedToTheTransportOnlyWhenEstablished) {
  Do([&](FsmActions* o) { fsm_.Start(now_, o); });
  Do([&](FsmActions* o) { fsm_.ConnectSucceeded(now_, o); });
  // RFC 6608: an UPDATE in OpenSent is FSM error 5/1 with the message type as data.
  FsmActions a;
  EXPECT_EQ(fsm_.Message(now_, Side::kOutgoing, Update(), &a), MessageVerdict::kHandled);
  EXPECT_EQ(Sent(a), (Notification{5, 1, {2}}));
  EXPECT_EQ(fsm_.state(), FsmState::kIdle);
}

TEST_F(FsmTest, UnexpectedOpenWhenEstablished) {
  Establish();
  FsmActions a;
  EXPECT_EQ(fsm_.Message(now_, Side::kOutgoing, Update(), &a), MessageVerdict::kUpdate);
  EXPECT_TRUE(a.empty());
  const FsmActions b = Msg(Side::kOutgoing, Open(kPeerAs, 9, 0x0a000002));
  EXPECT_EQ(Summary(b), "send:NOTIFICATION close down");
  EXPECT_EQ(Sent(b), (Notification{5, 3, {1}}));
}

struct BadOpenCase {
  const char* name;
  std::vector<uint8_t> open;
  Notification expected;
};

TEST_F(FsmTest, BadOpensGetTheRightNotificationAndIdleHoldBacksOff) {
  const std::vector<BadOpenCase> cases = {
      {"wrong AS", Open(65001, 9, 0x0a000002), Notification{2, 2, {0xfd, 0xe9}}},
      {"wrong 4-octet AS", Open(4200000009u, 9, 0x0a000002),
       Notification{2, 2, {0x5b, 0xa0}}},  // AS_TRANS in My AS
      {"hold time 1", Open(kPeerAs, 1, 0x0a000002), Notification{2, 6, {}}},
      {"hold time 2", Open(kPeerAs, 2, 0x0a000002), Notification{2, 6, {}}},
      {"version 3", Open(kPeerAs, 9, 0x0a000002, 3), Notification{2, 1, {0, 4}}},
  };
  double expected_idle = 1;
  for (const BadOpenCase& c : cases) {
    SCOPED_TRACE(c.name);
    if (!fsm_.started()) {
      EXPECT_EQ(Summary(Do([&](FsmActions* o) { fsm_.Start(now_, o); })), "connect");
    }
    EXPECT_EQ(Summary(Do([&](FsmActions* o) { fsm_.ConnectSucceeded(now_, o); })), "send:OPEN");
    const FsmActions a = Msg(Side::kOutgoing, c.open);
    EXPECT_EQ(Summary(a), "send:NOTIFICATION close");
    ASSERT_TRUE(Sent(a).has_value());
    EXPECT_EQ(Sent(a)->code, c.expected.code);
    EXPECT_EQ(Sent(a)->subcode, c.expected.subcode);
    if (!c.expected.data.empty()) {
      EXPECT_EQ(Sent(a)->data, c.expected.data);
    }
    EXPECT_EQ(fsm_.state(), FsmState::kIdle);
    // Idle hold: 1, 2, 4, 8, 8 s (capped).
    ASSERT_TRUE(fsm_.idle_until().has_value());
    EXPECT_EQ(*fsm_.idle_until() - now_, std::chrono::duration_cast<SteadyClock::duration>(
                                             std::chrono::duration<double>(expected_idle)));
    // Incoming connections are refused while Idle, with Cease / Connection Rejected.
    FsmActions r;
    const Fsm::Incoming refused = fsm_.IncomingConnection(now_, &r);
    EXPECT_FALSE(refused.accepted);
    EXPECT_EQ(refused.notification, (Notification{6, 5, {}}));
    EXPECT_TRUE(r.empty());
    EXPECT_EQ(Summary(Tick(std::chrono::duration_cast<SteadyClock::duration>(
                  std::chrono::duration<double>(expected_idle)))),
              "connect");
    expected_idle = std::min(expected_idle * 2, 8.0);
  }
}

TEST_F(FsmTest, MinimumHoldTimeIsConfigurable) {
  FsmSettings s = Settings();
  s.min_hold_time_s = 5;
  fsm_.set_settings(s);
  Do([&](FsmActions* o) { fsm_.Start(now_, o); });
  Do([&](FsmActions* o) { fsm_.ConnectSucceeded(now_, o); });
  const FsmActions a = Msg(Side::kOutgoing, Open(kPeerAs, 4, 0x0a000002));
  EXPECT_EQ(Sent(a), (Notification{2, 6, {0, 4}}));
}

TEST_F(FsmTest, IbgpPeerWithOurIdentifierIsRefused) {
  FsmSettings s = Settings();
  s.peer_as = kLocalAs;
  fsm_.set_settings(s);
  Do([&](FsmActions* o) { fsm_.Start(now_, o); });
  Do([&](FsmActions* o) { fsm_.ConnectSucceeded(now_, o); });
  const FsmActions a = Msg(Side::kOutgoing, Open(kLocalAs, 9, 0x0a000001));
  EXPECT_EQ(Sent(a), (Notification{2, 3, {10, 0, 0, 1}}));
}

TEST_F(FsmTest, PeersNotificationClosesWithoutReplyAndBacksOff) {
  Establish();
  std::vector<uint8_t> wire;
  AppendNotification(Notification{6, 2, {}}, &wire);
  const FsmActions a = Msg(Side::kOutgoing, wire);
  EXPECT_EQ(Summary(a), "close down");
  EXPECT_EQ(fsm_.last_notification_received(), (Notification{6, 2, {}}));
  EXPECT_EQ(fsm_.state(), FsmState::kIdle);
  EXPECT_EQ(Summary(Tick(seconds(1))), "connect");
}

// The end of an Established session says which NOTIFICATION ended it, and whose: what RFC 8538
// §4 decides graceful restart from.
TEST_F(FsmTest, DownSaysWhichNotificationEndedTheSession) {
  auto down = [](const FsmActions& actions) {
    for (const FsmAction& a : actions) {
      if (a.kind == Kind::kDown) return a;
    }
    ADD_FAILURE() << "no down in " << Summary(actions);
    FsmAction none;
    none.kind = Kind::kDown;
    return none;
  };
  Establish();
  std::vector<uint8_t> wire;
  AppendNotification(Notification{6, 9, {6, 2}}, &wire);
  FsmAction d = down(Msg(Side::kOutgoing, wire));
  EXPECT_EQ(d.notification, (Notification{6, 9, {6, 2}}));
  EXPECT_TRUE(d.notification_received);

  Tick(seconds(30));  // past the idle hold: connects again by itself
  Do([&](FsmActions* o) { fsm_.Stop(now_, Notification{6, 2, {}}, o); });
  Establish();
  d = down(Tick(seconds(9)));  // hold timer: we send 4/0
  EXPECT_EQ(d.notification, (Notification{4, 0, {}}));
  EXPECT_FALSE(d.notification_received);

  Do([&](FsmActions* o) { fsm_.Stop(now_, Notification{6, 2, {}}, o); });
  Establish();
  d = down(Do([&](FsmActions* o) {
    fsm_.ConnectionClosed(now_, Side::kOutgoing, "the peer closed the connection", o);
  }));
  EXPECT_FALSE(d.notification.has_value());  // TCP lost: no NOTIFICATION at all
}

TEST_F(FsmTest, ConnectionRejectedByThePeerIsNoFailure) {
  Do([&](FsmActions* o) { fsm_.Start(now_, o); });
  Do([&](FsmActions* o) { fsm_.ConnectSucceeded(now_, o); });
  std::vector<uint8_t> wire;
  AppendNotification(Notification{6, 5, {}}, &wire);
  EXPECT_EQ(Summary(Msg(Side::kOutgoing, wire)), "close");
  EXPECT_EQ(fsm_.state(), FsmState::kActive);  // not Idle: no idle hold, ConnectRetry instead
  EXPECT_EQ(fsm_.consecutive_failures(), 0);
  EXPECT_EQ(Summary(Tick(seconds(2))), "connect");
}

TEST_F(FsmTest, StableSessionForgetsEarlierFailures) {
  Establish();
  Tick(seconds(2));
  Msg(Side::kOutgoing, Keepalive());
  Do([&](FsmActions* o) { fsm_.ConnectionClosed(now_, Side::kOutgoing, "reset", o); });
  EXPECT_EQ(fsm_.consecutive_failures(), 1);
  Tick(seconds(1));  // connect again
  Do([&](FsmActions* o) { fsm_.ConnectSucceeded(now_, o); });
  Msg(Side::kOutgoing, Open(kPeerAs, 9, 0x0a000002));
  Msg(Side::kOutgoing, Keepalive());
  ASSERT_EQ(fsm_.state(), FsmState::kEstablished);
  for (int i = 0; i < 12; ++i) {  // 36 s up, over stable_s = 30
    Tick(seconds(3));
    Msg(Side::kOutgoing, Keepalive());
  }
  Do([&](FsmActions* o) { fsm_.ConnectionClosed(now_, Side::kOutgoing, "reset", o); });
  EXPECT_EQ(fsm_.consecutive_failures(), 1);
  EXPECT_EQ(*fsm_.idle_until() - now_, seconds(1));
}

TEST_F(FsmTest, ConnectFailureGoesActiveAndRetries) {
  Do([&](FsmActions* o) { fsm_.Start(now_, o); });
  EXPECT_EQ(Summary(Do([&](FsmActions* o) { fsm_.ConnectFailed(now_, "refused", o); })), "close");
  EXPECT_EQ(fsm_.state(), FsmState::kActive);
  EXPECT_EQ(Summary(Tick(milliseconds(1999))), "");
  EXPECT_EQ(Summary(Tick(milliseconds(1))), "connect");
  // A connection attempt that hangs is abandoned and restarted at the next ConnectRetry expiry.
  EXPECT_EQ(Summary(Tick(seconds(2))), "close connect");
}

TEST_F(FsmTest, ConnectionLostBeforeTheOpenGoesActiveNotIdle) {
  Do([&](FsmActions* o) { fsm_.Start(now_, o); });
  Do([&](FsmActions* o) { fsm_.ConnectSucceeded(now_, o); });
  EXPECT_EQ(
      Summary(Do([&](FsmActions* o) { fsm_.ConnectionClosed(now_, Side::kOutgoing, "eof", o); })),
      "close");
  EXPECT_EQ(fsm_.state(), FsmState::kActive);
  EXPECT_EQ(Summary(Tick(seconds(2))), "connect");
}

TEST_F(FsmTest, PassivePeerWaitsAndAcceptsTheIncomingConnection) {
  FsmSettings s = Settings();
  s.passive = true;
  fsm_.set_settings(s);
  FsmActions a;
  EXPECT_FALSE(fsm_.IncomingConnection(now_, &a).accepted);  // Idle: refused
  EXPECT_EQ(Summary(Do([&](FsmActions* o) { fsm_.Start(now_, o); })), "");
  EXPECT_EQ(fsm_.state(), FsmState::kActive);
  EXPECT_EQ(Summary(Tick(seconds(600))), "");  // never connects
  a.clear();
  EXPECT_TRUE(fsm_.IncomingConnection(now_, &a).accepted);
  EXPECT_EQ(Summary(a), "accept(in) send:OPEN(in)");
  Msg(Side::kIncoming, Open(kPeerAs, 9, 0x0a000002));
  EXPECT_EQ(Summary(Msg(Side::kIncoming, Keepalive())), "established");
  // Another connection while Established: Cease / Connection Collision Resolution.
  a.clear();
  const Fsm::Incoming r = fsm_.IncomingConnection(now_, &a);
  EXPECT_FALSE(r.accepted);
  EXPECT_EQ(r.notification, (Notification{6, 7, {}}));
}

// §6.8: with both connections up, the one opened by the higher BGP Identifier stays.
TEST_F(FsmTest, CollisionKeepsTheConnectionOfTheHigherIdentifier) {
  for (const bool peer_higher : {false, true}) {
    SCOPED_TRACE(peer_higher ? "peer's identifier higher" : "ours higher");
    Fsm fsm(Settings());
    const uint32_t peer_id = peer_higher ? 0x0b000000 : 0x09000000;
    FsmActions a;
    fsm.Start(now_, &a);
    fsm.ConnectSucceeded(now_, &a);
    fsm.Message(now_, Side::kOutgoing, Open(kPeerAs, 9, peer_id), &a);  // outgoing: OpenConfirm
    a.clear();
    ASSERT_TRUE(fsm.IncomingConnection(now_, &a).accepted);
    EXPECT_EQ(fsm.state(), FsmState::kOpenConfirm);
    a.clear();
    fsm.Message(now_, Side::kIncoming, Open(kPeerAs, 9, peer_id), &a);
    EXPECT_EQ(Sent(a), (Notification{6, 7, {}}));
    if (peer_higher) {
      EXPECT_EQ(Summary(a), "send:NOTIFICATION close send:KEEPALIVE(in)");
      fsm.Message(now_, Side::kIncoming, Keepalive(), &a);
      EXPECT_EQ(fsm.established_side(), Side::kIncoming);
    } else {
      EXPECT_EQ(Summary(a), "send:NOTIFICATION(in) close(in)");
      fsm.Message(now_, Side::kOutgoing, Keepalive(), &a);
      EXPECT_EQ(fsm.established_side(), Side::kOutgoing);
    }
    EXPECT_EQ(fsm.state(), FsmState::kEstablished);
    EXPECT_EQ(fsm.consecutive_failures(), 0);
    EXPECT_EQ(fsm.collisions(), 1u);
  }
}

TEST_F(FsmTest, CollisionWithEqualIdentifiersKeepsTheLargerAsConnection) {
  // Same identifier as ours (allowed between ASes, RFC 6286 §2.3); the peer's AS is larger.
  FsmActions a;
  fsm_.Start(now_, &a);
  fsm_.ConnectSucceeded(now_, &a);
  fsm_.Message(now_, Side::kOutgoing, Open(kPeerAs, 9, 0x0a000001), &a);
  ASSERT_TRUE(fsm_.IncomingConnection(now_, &a).accepted);
  a.clear();
  fsm_.Message(now_, Side::kIncoming, Open(kPeerAs, 9, 0x0a000001), &a);
  EXPECT_EQ(Summary(a), "send:NOTIFICATION close send:KEEPALIVE(in)");
}

TEST_F(FsmTest, EstablishedClosesTheOtherConnection) {
  FsmActions a;
  fsm_.Start(now_, &a);
  fsm_.ConnectSucceeded(now_, &a);
  ASSERT_TRUE(fsm_.IncomingConnection(now_, &a).accepted);  // both in OpenSent
  fsm_.Message(now_, Side::kOutgoing, Open(kPeerAs, 9, 0x0a000002), &a);
  a.clear();
  fsm_.Message(now_, Side::kOutgoing, Keepalive(), &a);
  EXPECT_EQ(Summary(a), "send:NOTIFICATION(in) close(in) established");
}

TEST_F(FsmTest, StopSendsAdministrativeShutdownAndStaysIdle) {
  Establish();
  FsmActions a;
  fsm_.Stop(now_, Notification{6, 2, {}}, &a);
  EXPECT_EQ(Summary(a), "send:NOTIFICATION close down");
  EXPECT_EQ(Sent(a), (Notification{6, 2, {}}));
  EXPECT_EQ(fsm_.state(), FsmState::kIdle);
  EXPECT_EQ(Summary(Tick(seconds(3600))), "");
  EXPECT_FALSE(fsm_.NextDeadline().has_value());
}

TEST_F(FsmTest, MaxPrefixTeardownIdlesForTheConfiguredTime) {
  Establish();
  FsmActions a;
  fsm_.LimitExceeded(now_, Notification{6, 1, {}}, "maximum number of prefixes reached", 5, &a);
  EXPECT_EQ(Summary(a), "send:NOTIFICATION close down");
  EXPECT_EQ(fsm_.state(), FsmState::kIdle);
  EXPECT_EQ(Summary(Tick(milliseconds(4999))), "");
  EXPECT_EQ(Summary(Tick(milliseconds(1))), "connect");
  // With restart 0: down until started again.
  Do([&](FsmActions* o) { fsm_.ConnectSucceeded(now_, o); });
  Msg(Side::kOutgoing, Open(kPeerAs, 9, 0x0a000002));
  Msg(Side::kOutgoing, Keepalive());
  a.clear();
  fsm_.LimitExceeded(now_, Notification{6, 1, {}}, "maximum number of prefixes reached", 0, &a);
  EXPECT_EQ(Summary(Tick(seconds(3600))), "");
  EXPECT_EQ(Summary(Do([&](FsmActions* o) { fsm_.Start(now_, o); })), "connect");
}

TEST_F(FsmTest, AdjRibInCeilingTearsDownWithTheIdleHoldOfAnError) {
  Establish();
  FsmActions a;
  fsm_.LimitExceeded(now_, Notification{6, 1, {}}, "Adj-RIB-In ceiling reached", std::nullopt, &a);
  EXPECT_EQ(Summary(a), "send:NOTIFICATION close down");
  EXPECT_EQ(Sent(a), (Notification{6, 1, {}}));
  EXPECT_EQ(fsm_.last_error(), "Adj-RIB-In ceiling reached");
  EXPECT_EQ(fsm_.consecutive_failures(), 1);
  // Idle for idle_hold_s (1 s), then it starts again by itself.
  EXPECT_EQ(Summary(Tick(milliseconds(999))), "");
  EXPECT_EQ(Summary(Tick(milliseconds(1))), "connect");
}

TEST_F(FsmTest, LocalFaultEndsEveryConnectionAndBacksOff) {
  Establish();
  // A fault while Established ends the session like an error of the peer's would.
  FsmActions a;
  fsm_.LocalFault(now_, Notification{6, 8, {}}, "internal error: std::bad_alloc", &a);
  EXPECT_EQ(Summary(a), "send:NOTIFICATION close down");
  EXPECT_EQ(Sent(a), (Notification{6, 8, {}}));
  EXPECT_EQ(fsm_.state(), FsmState::kIdle);
  EXPECT_EQ(fsm_.last_error(), "internal error: std::bad_alloc");
  EXPECT_EQ(Summary(Tick(seconds(1))), "connect");
  // In OpenSent: the connection goes the same way, without a down (nothing was Established).
  Do([&](FsmActions* o) { fsm_.ConnectSucceeded(now_, o); });
  a = Do([&](FsmActions* o) { fsm_.LocalFault(now_, Notification{6, 0, {}}, "fault", o); });
  EXPECT_EQ(Summary(a), "send:NOTIFICATION close");
  EXPECT_EQ(fsm_.consecutive_failures(), 2);
}

TEST(LogLimiterTest, OneLinePerIntervalSayingHowManyWereHeldBack) {
  LogLimiter limiter(seconds(10));
  const auto t0 = LogLimiter::Clock::time_point() + seconds(100);
  uint64_t held = 99;
  EXPECT_TRUE(limiter.Allow(t0, &held));
  EXPECT_EQ(held, 0u);
  for (int i = 1; i <= 1000; ++i) EXPECT_FALSE(limiter.Allow(t0 + milliseconds(i), &held));
  EXPECT_FALSE(limiter.Allow(t0 + milliseconds(9999), &held));
  EXPECT_TRUE(limiter.Allow(t0 + seconds(10), &held));
  EXPECT_EQ(held, 1001u);
  EXPECT_TRUE(limiter.Allow(t0 + seconds(60), &held));
  EXPECT_EQ(held, 0u);
}

TEST_F(FsmTest, HeaderErrorSendsTheFramersNotification) {
  Establish();
  FsmActions a;
  fsm_.HeaderError(now_, Side::kOutgoing, Notification{1, 1, {}}, &a);
  EXPECT_EQ(Summary(a), "send:NOTIFICATION close down");
  EXPECT_EQ(Sent(a), (Notification{1, 1, {}}));
}

TEST_F(FsmTest, HoldTimeZeroMeansNoKeepalivesAndNoHoldTimer) {
  Establish(/*peer_hold=*/0);
  EXPECT_EQ(fsm_.negotiated(Side::kOutgoing).hold_time, 0);
  EXPECT_FALSE(fsm_.NextDeadline().has_value());
  EXPECT_EQ(Summary(Tick(seconds(3600))), "");
  EXPECT_EQ(fsm_.state(), FsmState::kEstablished);
}

}  // namespace
}  // namespace sluice::bgp

namespace sluice::bgp {
namespace {

// RFC 4271 §4.4: a configured KeepaliveTime is used, but never above a third of the negotiated
// hold time (a peer offering a smaller hold time lowers it).
TEST_F(FsmTest, ConfiguredKeepaliveIsUsedUpToAThirdOfTheHoldTime) {
  FsmSettings s = Settings();
  s.hold_time_s = 30;
  s.keepalive_time_s = 4;
  fsm_.set_settings(s);
  Establish(/*peer_hold=*/60);
  EXPECT_EQ(fsm_.negotiated(Side::kOutgoing).hold_time, 30);
  EXPECT_EQ(fsm_.negotiated(Side::kOutgoing).keepalive_time, 4);
  EXPECT_EQ(Summary(Tick(milliseconds(3900))), "");
  EXPECT_EQ(Summary(Tick(milliseconds(100))), "send:KEEPALIVE");
}

TEST_F(FsmTest, ConfiguredKeepaliveAboveAThirdOfTheNegotiatedHoldTimeIsLowered) {
  FsmSettings s = Settings();
  s.hold_time_s = 90;
  s.keepalive_time_s = 60;
  fsm_.set_settings(s);
  Establish(/*peer_hold=*/9);
  EXPECT_EQ(fsm_.negotiated(Side::kOutgoing).keepalive_time, 3);
}

TEST(PeerConfigTest, KeepaliveAndMultihopAreChecked) {
  PeerConfig c;
  c.address = *net::IPAddress::Parse("127.0.0.2");
  c.remote_as = 65001;
  c.keepalive_s = 30;
  EXPECT_TRUE(c.Validate().ok());
  c.keepalive_s = 90;  // not below the hold time
  EXPECT_FALSE(c.Validate().ok());
  c.keepalive_s = 0;  // 0 only with hold time 0
  EXPECT_FALSE(c.Validate().ok());
  c.hold_time_s = 0;
  EXPECT_TRUE(c.Validate().ok());
  c.keepalive_s = 3;
  EXPECT_FALSE(c.Validate().ok());
  c.keepalive_s.reset();
  c.multihop_ttl = 2;
  EXPECT_TRUE(c.Validate().ok());
  c.gtsm_hops = 1;  // both set the TTL
  EXPECT_FALSE(c.Validate().ok());
  c.gtsm_hops = 0;
  c.multihop_ttl = 256;
  EXPECT_FALSE(c.Validate().ok());
}

}  // namespace
}  // namespace sluice::bgp
