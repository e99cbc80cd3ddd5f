// OPEN with capabilities, negotiation, NOTIFICATION/KEEPALIVE/ROUTE-REFRESH, and the message
// framer's header checks (RFC 4271 §6.1, §6.2).
#include "bgp/wire/open_message.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "bgp/wire/message_framer.h"

namespace sluice::bgp {
namespace {

net::IPv4Address V4(const char* t) { return *net::IPv4Address::Parse(t); }

OpenMessage LocalOpen() {
  Capabilities c;
  c.multiprotocol = {kIPv4Unicast, kIPv6Unicast};
  c.route_refresh = true;
  c.extended_message = true;
  c.add_path = {AddPathFamily{kIPv4Unicast, kAddPathReceive | kAddPathSend}};
  c.graceful_restart = GracefulRestart{false, false, 120, {{kIPv4Unicast, true}}};
  return OpenMessage::Make(4200000000u, 90, V4("10.0.0.1"), c);
}

TEST(OpenMessageTest, RoundTripWithCapabilities) {
  OpenMessage open = LocalOpen();
  EXPECT_EQ(open.my_as, kAsTrans);
  std::vector<uint8_t> wire;
  ASSERT_TRUE(AppendOpen(open, &wire).ok());
  OpenMessage back;
  Notification error;
  ASSERT_TRUE(DecodeOpen(wire, &back, &error).ok());
  EXPECT_EQ(back, open);
  EXPECT_EQ(back.AsNumber(), 4200000000u);
  EXPECT_NE(back.ToString().find("add-path:ipv4-unicast/3"), std::string::npos);
}

TEST(OpenMessageTest, NegotiationKeepsWhatBothSupport) {
  Capabilities peer;
  peer.multiprotocol = {kIPv4Unicast};
  peer.add_path = {AddPathFamily{kIPv4Unicast, kAddPathSend}};
  peer.route_refresh = true;
  OpenMessage remote = OpenMessage::Make(65002, 30, V4("10.0.0.2"), peer);
  Negotiated n = Negotiate(LocalOpen(), remote, true);
  EXPECT_TRUE(n.params.families.Has(kIPv4Unicast));
  EXPECT_FALSE(n.params.families.Has(kIPv6Unicast));
  EXPECT_TRUE(n.params.four_octet_as);
  EXPECT_FALSE(n.params.extended_message);  // only we offered it
  EXPECT_TRUE(n.params.add_path_receive.Has(kIPv4Unicast));
  EXPECT_FALSE(n.params.add_path_send.Has(kIPv4Unicast));  // peer does not receive
  EXPECT_EQ(n.hold_time, 30);
  EXPECT_EQ(n.keepalive_time, 10);
  EXPECT_EQ(n.peer_as, 65002u);
  EXPECT_TRUE(n.route_refresh);
  EXPECT_TRUE(n.params.external);

  // A peer without any capability: IPv4 unicast only, 2-octet AS.
  OpenMessage bare;
  bare.my_as = 65003;
  bare.hold_time = 90;
  bare.bgp_identifier = V4("10.0.0.3");
  Negotiated old = Negotiate(LocalOpen(), bare, true);
  EXPECT_TRUE(old.params.families.Has(kIPv4Unicast));
  EXPECT_FALSE(old.params.four_octet_as);
  EXPECT_EQ(old.peer_as, 65003u);
}

std::vector<uint8_t> RawOpen(uint8_t version, uint16_t as, uint16_t hold, uint32_t id,
                             std::vector<uint8_t> params) {
  std::vector<uint8_t> m(16, 0xff);
  const size_t len = 29 + params.size();
  m.insert(m.end(), {uint8_t(len >> 8), uint8_t(len), 1, version, uint8_t(as >> 8), uint8_t(as),
                     uint8_t(hold >> 8), uint8_t(hold), uint8_t(id >> 24), uint8_t(id >> 16),
                     uint8_t(id >> 8), uint8_t(id), uint8_t(params.size())});
  m.insert(m.end(), params.begin(), params.end());
  return m;
}

TEST(OpenMessageTest, ErrorsGetTheirNotification) {
  struct Case {
    std::vector<uint8_t> wire;
    uint8_t code, subcode;
    std::vector<uint8_t> data;
  };
  const std::vector<Case> cases = {
      {RawOpen(3, 65001, 90, 1, {}), 2, open_error::kUnsupportedVersion, {0, 4}},
      {RawOpen(4, 65001, 2, 1, {}), 2, open_error::kUnacceptableHoldTime, {}},
      {RawOpen(4, 65001, 90, 0, {}), 2, open_error::kBadBgpIdentifier, {}},
      {RawOpen(4, 0, 90, 1, {}), 2, open_error::kBadPeerAs, {}},
      {RawOpen(4, 65001, 90, 1, {1, 2, 0, 0}), 2, open_error::kUnsupportedOptionalParameter, {}},
      {RawOpen(4, 65001, 90, 1, {2, 6, 65, 4, 0, 0}), 2, open_error::kUnspecific, {}},
      {RawOpen(4, 65001, 90, 1, {2, 3, 65, 1, 0}), 2, open_error::kUnspecific, {}},
  };
  for (const Case& c : cases) {
    OpenMessage open;
    Notification error;
    EXPECT_FALSE(DecodeOpen(c.wire, &open, &error).ok());
    EXPECT_EQ(error.code, c.code);
    EXPECT_EQ(error.subcode, c.subcode) << error.ToString();
    EXPECT_EQ(error.data, c.data);
  }
  OpenMessage open;
  Notification error;
  EXPECT_TRUE(DecodeOpen(RawOpen(4, 65001, 0, 1, {}), &open, &error).ok());  // hold 0 is fine
}

TEST(OpenMessageTest, ExtendedOptionalParametersAreRead) {
  // RFC 9072: length 255, then type 255 and a 2-octet length; parameters with 2-octet lengths.
  std::vector<uint8_t> params = {255, 0, 9, 2, 0, 6, 65, 4, 0, 0, 0xfd, 0xe9};
  std::vector<uint8_t> wire = RawOpen(4, kAsTrans, 90, 1, {});
  wire.pop_back();
  wire.push_back(255);
  wire.insert(wire.end(), params.begin(), params.end());
  StoreU16(wire.data() + 16, uint16_t(wire.size()));
  OpenMessage open;
  Notification error;
  ASSERT_TRUE(DecodeOpen(wire, &open, &error).ok()) << error.ToString();
  EXPECT_EQ(open.AsNumber(), 65001u);
}

// A Capabilities parameter holding one graceful restart capability with `value`.
std::vector<uint8_t> GrParam(std::vector<uint8_t> value) {
  std::vector<uint8_t> p = {2, uint8_t(value.size() + 2), 64, uint8_t(value.size())};
  p.insert(p.end(), value.begin(), value.end());
  return p;
}

TEST(GracefulRestartTest, WireLayoutOfFlagsTimeAndFamilies) {
  Capabilities c;
  c.graceful_restart =
      GracefulRestart{true, true, 4095, {{kIPv4Unicast, true}, {kIPv6Unicast, false}}};
  std::vector<uint8_t> wire;
  ASSERT_TRUE(AppendOpen(OpenMessage::Make(65001, 90, V4("10.0.0.1"), c), &wire).ok());
  const std::vector<uint8_t> expected = {64, 10, 0xcf, 0xff, 0, 1, 1, 0x80, 0, 2, 1, 0};
  EXPECT_NE(std::search(wire.begin(), wire.end(), expected.begin(), expected.end()), wire.end());
  OpenMessage back;
  Notification error;
  ASSERT_TRUE(DecodeOpen(wire, &back, &error).ok()) << error.ToString();
  ASSERT_TRUE(back.capabilities.graceful_restart);
  EXPECT_EQ(*back.capabilities.graceful_restart, *c.graceful_restart);
  EXPECT_TRUE(back.capabilities.graceful_restart->Find(kIPv4Unicast)->forwarding_preserved);
  EXPECT_FALSE(back.capabilities.graceful_restart->Find(kIPv6Unicast)->forwarding_preserved);
  EXPECT_EQ((GracefulRestart{false, false, 1, {{kIPv4Unicast, true}}}).Find(kIPv6Unicast), nullptr);
  EXPECT_NE(
      back.ToString().find("graceful-restart(restart-time 4095 R N ipv4-unicast/F ipv6-unicast)"),
      std::string::npos)
      << back.ToString();
}

TEST(GracefulRestartTest, EachFlagDecodesAlone) {
  struct Case {
    uint8_t hi;
    bool r, n;
    uint16_t time;
  };
  // Bits 0x2 and 0x1 of the flags are reserved: ignored, not part of the time.
  for (const Case& c : {Case{0x80, true, false, 0}, Case{0x40, false, true, 0},
                        Case{0x30, false, false, 0}, Case{0x00, false, false, 0},
                        Case{0x01, false, false, 256}, Case{0x8f, true, false, 0xf00}}) {
    OpenMessage open;
    Notification error;
    ASSERT_TRUE(DecodeOpen(RawOpen(4, 65001, 90, 1, GrParam({c.hi, 0})), &open, &error).ok());
    const GracefulRestart& gr = *open.capabilities.graceful_restart;
    EXPECT_EQ(gr.restart_state, c.r) << int(c.hi);
    EXPECT_EQ(gr.notification, c.n) << int(c.hi);
    EXPECT_EQ(gr.restart_time, c.time) << int(c.hi);
    EXPECT_TRUE(gr.families.empty());  // a helper-only speaker
  }
  // The F bit alone, and other bits of the family flags ignored.
  OpenMessage open;
  Notification error;
  ASSERT_TRUE(DecodeOpen(RawOpen(4, 65001, 90, 1, GrParam({0, 120, 0, 1, 1, 0x7f, 0, 2, 1, 0x80})),
                         &open, &error)
                  .ok());
  const GracefulRestart& gr = *open.capabilities.graceful_restart;
  EXPECT_EQ(gr.restart_time, 120);
  ASSERT_EQ(gr.families.size(), 2u);
  EXPECT_FALSE(gr.families[0].forwarding_preserved);
  EXPECT_TRUE(gr.families[1].forwarding_preserved);
}

TEST(GracefulRestartTest, RestartTimeMustFitTwelveBits) {
  Capabilities c;
  c.graceful_restart = GracefulRestart{false, false, 4096, {}};
  std::vector<uint8_t> wire;
  EXPECT_FALSE(AppendOpen(OpenMessage::Make(65001, 90, V4("10.0.0.1"), c), &wire).ok());
  c.graceful_restart->restart_time = 0;
  wire.clear();
  ASSERT_TRUE(AppendOpen(OpenMessage::Make(65001, 90, V4("10.0.0.1"), c), &wire).ok());
  OpenMessage back;
  Notification error;
  ASSERT_TRUE(DecodeOpen(wire, &back, &error).ok());
  EXPECT_EQ(back.capabilities.graceful_restart->restart_time, 0);
}

TEST(GracefulRestartTest, WrongLengthIsAMalformedOpen) {
  for (const std::vector<uint8_t>& value :
       {std::vector<uint8_t>{}, {0}, {0, 120, 0}, {0, 120, 0, 1, 1}, {0, 120, 0, 1, 1, 0, 0}}) {
    OpenMessage open;
    Notification error;
    EXPECT_FALSE(DecodeOpen(RawOpen(4, 65001, 90, 1, GrParam(value)), &open, &error).ok())
        << value.size() << " octets";
    EXPECT_EQ(error.code, 2);
    EXPECT_EQ(error.subcode, open_error::kUnspecific);
  }
  // A capability that claims more than its parameter holds.
  OpenMessage open;
  Notification error;
  EXPECT_FALSE(DecodeOpen(RawOpen(4, 65001, 90, 1, {2, 4, 64, 6, 0, 120}), &open, &error).ok());
  EXPECT_EQ(error.code, 2);
}

TEST(GracefulRestartTest, LastInstanceCountsAndUnknownFamiliesAreDropped) {
  std::vector<uint8_t> params = GrParam({0x80, 10});
  // AFI 25 (L2VPN) is not a supported family.
  const std::vector<uint8_t> second = GrParam({0x00, 30, 0, 25, 65, 0x80, 0, 1, 1, 0});
  params.insert(params.end(), second.begin(), second.end());
  OpenMessage open;
  Notification error;
  ASSERT_TRUE(DecodeOpen(RawOpen(4, 65001, 90, 1, params), &open, &error).ok());
  const GracefulRestart& gr = *open.capabilities.graceful_restart;
  EXPECT_FALSE(gr.restart_state);
  EXPECT_EQ(gr.restart_time, 30);
  ASSERT_EQ(gr.families.size(), 1u);
  EXPECT_EQ(gr.families[0].family, kIPv4Unicast);
}

TEST(GracefulRestartTest, NegotiationReportsThePeersCapability) {
  Capabilities peer;
  peer.graceful_restart = GracefulRestart{true, false, 90, {{kIPv4Unicast, true}}};
  Negotiated n = Negotiate(LocalOpen(), OpenMessage::Make(65002, 90, V4("10.0.0.2"), peer), true);
  ASSERT_TRUE(n.peer_graceful_restart);
  EXPECT_TRUE(n.peer_graceful_restart->restart_state);
  Negotiated none = Negotiate(LocalOpen(), OpenMessage::Make(65002, 90, V4("10.0.0.2"), {}), true);
  EXPECT_FALSE(none.peer_graceful_restart);
}

TEST(NotificationTest, RoundTrip) {
  std::vector<uint8_t> wire;
  AppendNotification(Notification{6, cease::kAdministrativeShutdown, {1, 2}}, &wire);
  Notification n;
  ASSERT_TRUE(DecodeNotification(wire, &n).ok());
  EXPECT_EQ(n, (Notification{6, 2, {1, 2}}));
  EXPECT_EQ(n.ToString(), "Cease / Administrative Shutdown (6/2), data 2 octets");
  EXPECT_EQ((Notification{6, cease::kHardReset, {}}).ToString(),
            "Cease / Hard Reset (6/9), data 0 octets");
  EXPECT_EQ((Notification{uint8_t(ErrorCode::kSendHoldTimerExpired), 0, {}}).ToString(),
            "Send Hold Timer Expired /  (8/0), data 0 octets");
  std::vector<uint8_t> rr;
  AppendRouteRefresh(kIPv6Unicast, &rr);
  RouteRefresh r;
  ASSERT_TRUE(DecodeRouteRefresh(rr, &r).ok());
  EXPECT_EQ(r.afi, 2);
  EXPECT_EQ(r.safi, 1);
}

TEST(MessageFramerTest, CutsAStreamIntoMessages) {
  std::vector<uint8_t> stream;
  AppendKeepalive(&stream);
  ASSERT_TRUE(AppendOpen(LocalOpen(), &stream).ok());
  AppendKeepalive(&stream);
  MessageFramer framer;
  Bytes message;
  Notification error;
  std::vector<int> types;
  // Feed one octet at a time: messages come out whole.
  for (uint8_t b : stream) {
    framer.Append(Bytes(&b, 1));
    while (framer.Next(&message, &error) == MessageFramer::Result::kMessage) {
      types.push_back(message[18]);
    }
  }
  EXPECT_EQ(types, (std::vector<int>{4, 1, 4}));
  EXPECT_EQ(framer.buffered(), 0u);
}

// Between reads the framer holds only the partial message it has: a stream read in large
// pieces, shrunk after each, still comes out whole and in order.
TEST(MessageFramerTest, ShrinkingBetweenReadsKeepsThePartialMessage) {
  std::vector<uint8_t> stream;
  for (int i = 0; i < 3000; ++i) {
    if (i % 100 == 0) {
      ASSERT_TRUE(AppendOpen(LocalOpen(), &stream).ok());
    } else {
      AppendKeepalive(&stream);
    }
  }
  MessageFramer framer;
  Bytes message;
  Notification error;
  size_t opens = 0, keepalives = 0;
  constexpr size_t kRead = 4000;  // not a multiple of any message's length
  for (size_t at = 0; at < stream.size(); at += kRead) {
    const size_t n = std::min(kRead, stream.size() - at);
    std::span<uint8_t> room = framer.Prepare(kRead);
    std::memcpy(room.data(), stream.data() + at, n);
    framer.Commit(n);
    while (framer.Next(&message, &error) == MessageFramer::Result::kMessage) {
      (message[18] == 1 ? opens : keepalives)++;
    }
    framer.ShrinkToBuffered();
    EXPECT_LT(framer.buffered(), 64u);  // at most one message, and these are short
    EXPECT_EQ(framer.capacity(), framer.buffered());
  }
  EXPECT_EQ(opens, 30u);
  EXPECT_EQ(keepalives, 2970u);
  EXPECT_EQ(framer.buffered(), 0u);
  EXPECT_EQ(framer.capacity(), 0u);
}

TEST(MessageFramerTest, HeaderErrors) {
  struct Case {
    std::vector<uint8_t> header;
    uint8_t subcode;
    std::vector<uint8_t> data;
  };
  auto header = [](uint16_t len, uint8_t type) {
    std::vector<uint8_t> h(16, 0xff);
    h.insert(h.end(), {uint8_t(len >> 8), uint8_t(len), type});
    return h;
  };
  std::vector<uint8_t> bad_marker = header(19, 4);
  bad_marker[3] = 0;
  const std::vector<Case> cases = {
      {bad_marker, header_error::kConnectionNotSynchronized, {}},
      {header(18, 4), header_error::kBadMessageLength, {0, 18}},
      {header(20, 4), header_error::kBadMessageLength, {0, 20}},         // KEEPALIVE is 19
      {header(4097, 2), header_error::kBadMessageLength, {0x10, 0x01}},  // over 4096
      {header(22, 2), header_error::kBadMessageLength, {0, 22}},         // UPDATE < 23
      {header(28, 1), header_error::kBadMessageLength, {0, 28}},         // OPEN < 29
      {header(19, 9), header_error::kBadMessageType, {9}},
  };
  for (const Case& c : cases) {
    MessageFramer framer;
    framer.Append(c.header);
    Bytes message;
    Notification error;
    ASSERT_EQ(framer.Next(&message, &error), MessageFramer::Result::kError);
    EXPECT_EQ(error.code, 1);
    EXPECT_EQ(error.subcode, c.subcode);
    EXPECT_EQ(error.data, c.data);
  }
  // With extended messages a 5000-octet UPDATE is fine, an OPEN is not.
  MessageFramer framer(kMaxExtendedMessageSize);
  framer.Append(header(5000, 1));
  Bytes message;
  Notification error;
  EXPECT_EQ(framer.Next(&message, &error), MessageFramer::Result::kError);
  MessageFramer ok(kMaxExtendedMessageSize);
  ok.Append(header(5000, 2));
  EXPECT_EQ(ok.Next(&message, &error), MessageFramer::Result::kNeedMore);
}

}  // namespace
}  // namespace sluice::bgp
