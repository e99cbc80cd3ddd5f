// UPDATE encoding and decoding: canonical layout, packing into maximum-size messages,
// IPv6/MP_REACH_NLRI, ADD-PATH, End-of-RIB, 2-octet AS peers (AS4_PATH), unknown attributes.
#include <gtest/gtest.h>

#include <vector>

#include "bgp/wire/update_decoder.h"
#include "bgp/wire/update_encoder.h"

namespace sluice::bgp {
namespace {

net::Prefix P(const char* text) { return *net::Prefix::Parse(text); }
net::IPv4Address V4(const char* text) { return *net::IPv4Address::Parse(text); }
net::IPv6Address V6(const char* text) { return *net::IPv6Address::Parse(text); }

PathAttributes BasicAttrs() {
  PathAttributes a;
  a.origin = Origin::kIgp;
  a.as_path = AsPath::Sequence({65001, 3356, 15169});
  a.next_hop = V4("192.0.2.1");
  a.med = 10;
  a.communities = {0xfde90001, kCommunityNoExport};
  a.mutable_rare().large_communities = {LargeCommunity{65001, 1, 2}};
  return a;
}

// Splits concatenated messages.
std::vector<std::vector<uint8_t>> Split(const std::vector<uint8_t>& wire) {
  std::vector<std::vector<uint8_t>> out;
  size_t at = 0;
  while (at + kHeaderSize <= wire.size()) {
    const size_t len = LoadU16(wire.data() + at + 16);
    out.emplace_back(wire.begin() + at, wire.begin() + at + len);
    at += len;
  }
  EXPECT_EQ(at, wire.size());
  return out;
}

std::vector<Nlri> Slash24s(int n, uint32_t base = 0x0a000000) {
  std::vector<Nlri> v;
  for (int i = 0; i < n; ++i)
    v.push_back(Nlri{net::Prefix(net::IPv4Address(base + (uint32_t(i) << 8)), 24)});
  return v;
}

class UpdateCodecTest : public ::testing::Test {
 protected:
  AttributeStore store_;
  SessionParams params_;
};

TEST_F(UpdateCodecTest, GoldenIPv4Update) {
  PathAttributes a;
  a.origin = Origin::kIgp;
  a.as_path = AsPath::Sequence({65001});
  a.next_hop = V4("192.0.2.1");
  std::vector<Nlri> nlri = {Nlri{P("10.1.0.0/16")}};
  std::vector<uint8_t> wire;
  ASSERT_EQ(*UpdateEncoder(params_).Announce(a, nlri, &wire), 1);
  const std::vector<uint8_t> expected = {
      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0,    46,   2,     // length 46, UPDATE
      0,    0,                                               // no withdrawn routes
      0,    20,                                              // 20 octets of attributes
      0x40, 1,    1,    0,                                   // ORIGIN IGP
      0x40, 2,    6,    2,    1,    0,    0,    0xfd, 0xe9,  // AS_PATH SEQ 65001
      0x40, 3,    4,    192,  0,    2,    1,                 // NEXT_HOP
      16,   10,   1};                                        // 10.1.0.0/16
  EXPECT_EQ(wire, expected);
}

TEST_F(UpdateCodecTest, DecodeThenEncodeIsExact) {
  std::vector<Nlri> nlri = Slash24s(20);
  std::vector<uint8_t> wire;
  ASSERT_EQ(*UpdateEncoder(params_).Announce(BasicAttrs(), nlri, &wire), 1);
  UpdateDecoder decoder(params_, &store_);
  UpdateMessage m;
  decoder.Decode(wire, &m);
  ASSERT_TRUE(m.errors.ok()) << m.errors.reason;
  EXPECT_EQ(m.wire_notes, 0u) << WireNotesToString(m.wire_notes);
  EXPECT_EQ(m.announced, nlri);
  EXPECT_TRUE(m.withdrawn.empty());
  ASSERT_TRUE(m.attributes);
  EXPECT_EQ(*m.attributes, BasicAttrs());
  std::vector<uint8_t> again;
  ASSERT_TRUE(UpdateEncoder(params_, false).EncodeOne(m, &again).ok());
  EXPECT_EQ(again, wire);
}

TEST_F(UpdateCodecTest, PackingFillsMessagesToTheMaximumSize) {
  const std::vector<Nlri> nlri = Slash24s(3000);
  std::vector<uint8_t> wire;
  const int n = *UpdateEncoder(params_).Announce(BasicAttrs(), nlri, &wire);
  const auto messages = Split(wire);
  ASSERT_EQ(int(messages.size()), n);
  // Each /24 takes 4 octets; the rest of a message is header and attributes.
  std::vector<uint8_t> one;
  ASSERT_EQ(*UpdateEncoder(params_).Announce(BasicAttrs(), std::vector<Nlri>{nlri[0]}, &one), 1);
  const size_t fixed = one.size() - 4;
  const size_t per_message = (kMaxMessageSize - fixed) / 4;
  EXPECT_EQ(size_t(n), (nlri.size() + per_message - 1) / per_message);
  UpdateDecoder decoder(params_, &store_);
  std::vector<Nlri> all;
  AttrRef first;
  for (const auto& msg : messages) {
    EXPECT_LE(msg.size(), size_t(kMaxMessageSize));
    UpdateMessage m;
    decoder.Decode(msg, &m);
    ASSERT_TRUE(m.errors.ok());
    if (!first) first = m.attributes;
    EXPECT_EQ(m.attributes, first);  // one interned set for all messages
    all.insert(all.end(), m.announced.begin(), m.announced.end());
  }
  EXPECT_EQ(all, nlri);
  EXPECT_EQ(messages.front().size(), fixed + per_message * 4);

  SessionParams extended = params_;
  extended.extended_message = true;
  std::vector<uint8_t> big;
  EXPECT_EQ(*UpdateEncoder(extended).Announce(BasicAttrs(), nlri, &big), 1);
}

TEST_F(UpdateCodecTest, MessageGapLeavesRoomBeforeEachMessageAndNothingElseChanges) {
  const std::vector<Nlri> announce = Slash24s(3000);
  const std::vector<Nlri> withdraw = Slash24s(10, 0x0b000000);
  const PathAttributes a = BasicAttrs();
  std::vector<uint8_t> plain;
  const int n = *UpdateEncoder(params_).Pack(&a, announce, withdraw, &plain);
  ASSERT_GT(n, 1);
  UpdateEncoder gapped(params_);
  gapped.set_message_gap(48);
  EXPECT_FALSE(gapped.EncodesLike(UpdateEncoder(params_)));
  std::vector<uint8_t> wire = {7};  // what was there stays
  EXPECT_EQ(*gapped.Pack(&a, announce, withdraw, &wire), n);
  gapped.EndOfRib(kIPv4Unicast, &wire);
  UpdateEncoder(params_).EndOfRib(kIPv4Unicast, &plain);
  // Without the gaps, the same octets.
  std::vector<uint8_t> joined;
  size_t at = 1;
  int messages = 0;
  while (at < wire.size()) {
    ASSERT_GE(wire.size() - at, 48u + kHeaderSize);
    EXPECT_EQ(std::vector<uint8_t>(wire.begin() + at, wire.begin() + at + 48),
              std::vector<uint8_t>(48, 0));
    const size_t len = LoadU16(wire.data() + at + 48 + 16);
    ASSERT_LE(at + 48 + len, wire.size());
    joined.insert(joined.end(), wire.begin() + at + 48, wire.begin() + at + 48 + len);
    at += 48 + len;
    ++messages;
  }
  EXPECT_EQ(wire.front(), 7);
  EXPECT_EQ(messages, n + 1);
  EXPECT_EQ(joined, plain);
}

TEST_F(UpdateCodecTest, WithdrawalsShareTheLastMessageWithAnnouncements) {
  const std::vector<Nlri> withdraw = Slash24s(10, 0x0b000000);
  const std::vector<Nlri> announce = Slash24s(10);
  std::vector<uint8_t> wire;
  PathAttributes a = BasicAttrs();
  EXPECT_EQ(*UpdateEncoder(params_).Pack(&a, announce, withdraw, &wire), 1);
  UpdateMessage m;
  UpdateDecoder(params_, &store_).Decode(wire, &m);
  EXPECT_EQ(m.withdrawn, withdraw);
  EXPECT_EQ(m.announced, announce);
}

TEST_F(UpdateCodecTest, IPv6InMpReachWithLinkLocalNexthopAndAddPath) {
  SessionParams p = params_;
  p.families.Add(kIPv6Unicast);
  p.add_path_send.Add(kIPv6Unicast);
  p.add_path_receive.Add(kIPv6Unicast);
  PathAttributes a;
  a.origin = Origin::kIncomplete;
  a.as_path = AsPath::Sequence({65001});
  a.mp_next_hop = MpNextHop{net::IPAddress(V6("2001:db8::1")), V6("fe80::1")};
  std::vector<Nlri> nlri = {Nlri{P("2001:db8:1::/48"), 1}, Nlri{P("2001:db8:1::/48"), 2},
                            Nlri{P("2001:db8:2::/47"), 7}};
  std::vector<uint8_t> wire;
  ASSERT_EQ(*UpdateEncoder(p).Announce(a, nlri, &wire), 1);
  UpdateMessage m;
  UpdateDecoder(p, &store_).Decode(wire, &m);
  ASSERT_TRUE(m.errors.ok()) << m.errors.reason;
  EXPECT_EQ(m.announced, nlri);
  EXPECT_EQ(m.classic_announced, 0u);
  EXPECT_EQ(*m.attributes, a);
  EXPECT_EQ(m.attributes->NextHopFor(net::Family::kIPv6)->ToString(), "2001:db8::1");
  EXPECT_FALSE(m.attributes->NextHopFor(net::Family::kIPv4));

  // Without ADD-PATH negotiated for receiving, the path ids read as prefix data.
  SessionParams no_addpath = p;
  no_addpath.add_path_receive = AfiSafiSet();
  UpdateDecoder(no_addpath, &store_).Decode(wire, &m);
  EXPECT_NE(m.announced, nlri);
}

TEST_F(UpdateCodecTest, IPv6WithoutNexthopIsRefused) {
  PathAttributes a = BasicAttrs();  // has NEXT_HOP but no MP nexthop
  std::vector<uint8_t> wire;
  auto r = UpdateEncoder(params_).Announce(a, std::vector<Nlri>{Nlri{P("2001:db8::/32")}}, &wire);
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(wire.empty());
}

TEST_F(UpdateCodecTest, MixedWithdrawalsUseClassicAndMpUnreach) {
  SessionParams p = params_;
  p.families.Add(kIPv6Unicast);
  std::vector<Nlri> withdraw = {Nlri{P("10.0.0.0/8")}, Nlri{P("2001:db8::/32")}};
  std::vector<uint8_t> wire;
  EXPECT_EQ(*UpdateEncoder(p).Withdraw(withdraw, &wire), 1);
  UpdateMessage m;
  UpdateDecoder(p, &store_).Decode(wire, &m);
  ASSERT_TRUE(m.errors.ok());
  EXPECT_EQ(m.withdrawn, withdraw);
  EXPECT_EQ(m.classic_withdrawn, 1u);
  EXPECT_FALSE(m.attributes);
}

TEST_F(UpdateCodecTest, EndOfRibMarkers) {
  SessionParams p = params_;
  p.families.Add(kIPv6Unicast);
  std::vector<uint8_t> v4, v6;
  UpdateEncoder(p).EndOfRib(kIPv4Unicast, &v4);
  UpdateEncoder(p).EndOfRib(kIPv6Unicast, &v6);
  EXPECT_EQ(v4.size(), 23u);
  EXPECT_EQ(v6.size(), 23u + 6);
  UpdateMessage m;
  UpdateDecoder d(p, &store_);
  d.Decode(v4, &m);
  EXPECT_EQ(m.end_of_rib, kIPv4Unicast);
  d.Decode(v6, &m);
  EXPECT_EQ(m.end_of_rib, kIPv6Unicast);
  EXPECT_TRUE(m.withdrawn.empty());

  // An empty MP_UNREACH_NLRI next to another attribute is not an End-of-RIB.
  std::vector<uint8_t> with_origin = v6;
  with_origin.insert(with_origin.end(), {0x40, 1, 1, 0});  // ORIGIN IGP
  StoreU16(with_origin.data() + 16, uint16_t(with_origin.size()));
  StoreU16(with_origin.data() + 21, 10);
  d.Decode(with_origin, &m);
  EXPECT_FALSE(m.end_of_rib);
  // Nor is an UPDATE that withdraws something.
  std::vector<uint8_t> withdraw;
  ASSERT_TRUE(UpdateEncoder(p).Withdraw(Slash24s(1), &withdraw).ok());
  d.Decode(withdraw, &m);
  EXPECT_FALSE(m.end_of_rib);
  EXPECT_EQ(m.withdrawn.size(), 1u);
}

TEST_F(UpdateCodecTest, TwoOctetPeerGetsAs4PathAndReconcilesIt) {
  SessionParams old = params_;
  old.four_octet_as = false;
  PathAttributes a = BasicAttrs();
  a.as_path = AsPath::Sequence({65001, 200000, 15169});
  a.aggregator = Aggregator{300000, V4("10.0.0.1")};
  std::vector<uint8_t> wire;
  ASSERT_EQ(*UpdateEncoder(old).Announce(a, Slash24s(1), &wire), 1);
  // AS_PATH with AS_TRANS, AGGREGATOR with AS_TRANS, plus AS4_PATH and AS4_AGGREGATOR.
  UpdateMessage m;
  UpdateDecoder(old, &store_).Decode(wire, &m);
  ASSERT_TRUE(m.errors.ok()) << m.errors.reason;
  EXPECT_EQ(m.attributes->as_path->ToString(), "65001 200000 15169");
  EXPECT_EQ(m.attributes->aggregator->as, 300000u);
  EXPECT_EQ(*m.attributes, a);
  // The 4-octet encoding of the same set has no AS_TRANS and no AS4_* attributes.
  std::vector<uint8_t> wire4;
  ASSERT_EQ(*UpdateEncoder(params_).Announce(a, Slash24s(1), &wire4), 1);
  EXPECT_NE(wire, wire4);
  std::vector<uint8_t> again;
  ASSERT_TRUE(UpdateEncoder(old, false).EncodeOne(m, &again).ok());
  EXPECT_EQ(again, wire);
}

TEST_F(UpdateCodecTest, UnknownTransitiveAttributeGetsPartialWhenPassedOn) {
  PathAttributes a = BasicAttrs();
  a.mutable_rare().unknown.push_back(RawAttribute{kFlagOptional | kFlagTransitive, 99, {1, 2, 3}});
  std::vector<uint8_t> exact, passed;
  ASSERT_EQ(*UpdateEncoder(params_, /*readvertise=*/false).Announce(a, Slash24s(1), &exact), 1);
  ASSERT_EQ(*UpdateEncoder(params_, /*readvertise=*/true).Announce(a, Slash24s(1), &passed), 1);
  UpdateMessage m;
  UpdateDecoder d(params_, &store_);
  d.Decode(exact, &m);
  ASSERT_EQ(m.attributes->rare().unknown.size(), 1u);
  EXPECT_EQ(m.attributes->rare().unknown[0].flags, kFlagOptional | kFlagTransitive);
  d.Decode(passed, &m);
  ASSERT_EQ(m.attributes->rare().unknown.size(), 1u);
  EXPECT_EQ(m.attributes->rare().unknown[0].flags, kFlagOptional | kFlagTransitive | kFlagPartial);
  EXPECT_EQ(m.attributes->rare().unknown[0].value, (std::vector<uint8_t>{1, 2, 3}));
}

TEST_F(UpdateCodecTest, UnknownNonTransitiveAttributeIsDropped) {
  PathAttributes a = BasicAttrs();
  a.mutable_rare().unknown.push_back(RawAttribute{kFlagOptional, 99, {1}});
  std::vector<uint8_t> wire;
  ASSERT_EQ(*UpdateEncoder(params_, false).Announce(a, Slash24s(1), &wire), 1);
  UpdateMessage m;
  UpdateDecoder(params_, &store_).Decode(wire, &m);
  ASSERT_TRUE(m.errors.ok());
  EXPECT_TRUE(m.attributes->rare().unknown.empty());
  EXPECT_TRUE(m.wire_notes & kNoteDroppedAttribute);
}

TEST_F(UpdateCodecTest, ExtendedLengthOnlyWhenNeeded) {
  PathAttributes a = BasicAttrs();
  a.communities.assign(100, 0x00010002);  // 400 octets
  std::vector<uint8_t> wire;
  ASSERT_EQ(*UpdateEncoder(params_).Announce(a, Slash24s(1), &wire), 1);
  UpdateMessage m;
  UpdateDecoder(params_, &store_).Decode(wire, &m);
  ASSERT_TRUE(m.errors.ok());
  EXPECT_EQ(m.wire_notes, 0u) << WireNotesToString(m.wire_notes);
  EXPECT_EQ(m.attributes->communities.size(), 100u);
}

}  // namespace
}  // namespace sluice::bgp
