// BMP message encoders (RFC 7854 §4, RFC 9069 §4): every message checked octet by octet.
#include "bgp/bmp/bmp_message.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sluice::bgp::bmp {
namespace {

using V = std::vector<uint8_t>;

net::IPAddress A(const char* t) { return *net::IPAddress::Parse(t); }

PeerHeader Peer4() {
  PeerHeader h;
  h.address = A("192.0.2.1");
  h.as = 4200000001u;  // fa 56 ea 01
  h.bgp_id = 0x0a000001;
  h.seconds = 0x01020304;
  h.microseconds = 0x00000005;
  return h;
}

V PerPeer4(uint8_t type, uint8_t flags) {
  return V{type, flags, 0,    0,    0,  0, 0, 0, 0, 0,                      // distinguisher
           0,    0,     0,    0,    0,  0, 0, 0, 0, 0, 0, 0, 192, 0, 2, 1,  // address
           0xfa, 0x56,  0xea, 0x01, 10, 0, 0, 1,                            // AS, BGP ID
           1,    2,     3,    4,    0,  0, 0, 5};                           // timestamp
}

V Cat(std::initializer_list<V> parts) {
  V out;
  for (const V& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

TEST(BmpMessageTest, PerPeerHeaderIPv4AndFlags) {
  V out;
  PeerHeader h = Peer4();
  h.flags = kFlagL | kFlagA;
  AppendPerPeerHeader(h, &out);
  EXPECT_EQ(out, PerPeer4(0, 0x60));
  EXPECT_EQ(out.size(), kPerPeerHeaderSize);
}

TEST(BmpMessageTest, PerPeerHeaderIPv6SetsV) {
  V out;
  PeerHeader h = Peer4();
  h.address = A("2001:db8::1");
  AppendPerPeerHeader(h, &out);
  ASSERT_EQ(out.size(), kPerPeerHeaderSize);
  EXPECT_EQ(out[1], kFlagV);
  V addr(out.begin() + 10, out.begin() + 26);
  EXPECT_EQ(addr, (V{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));
}

TEST(BmpMessageTest, LocRibPeerHeader) {
  V out;
  PeerHeader h = Peer4();
  h.type = PeerType::kLocRib;
  h.address = A("0.0.0.0");
  h.flags = kFlagF;
  AppendPerPeerHeader(h, &out);
  EXPECT_EQ(out[0], 3);
  EXPECT_EQ(out[1], 0x80);  // F, not V: the Loc-RIB's address says nothing
}

TEST(BmpMessageTest, Initiation) {
  V out;
  AppendInitiation("r1", "Sluice", &out);
  EXPECT_EQ(out, (V{3, 0, 0, 0, 22,  4,                        // common header, 22 octets
                    0, 1, 0, 6, 'S', 'l', 'u', 'i', 'c', 'e',  // sysDescr
                    0, 2, 0, 2, 'r', '1'}));                   // sysName
}

TEST(BmpMessageTest, Termination) {
  V out;
  AppendTermination(TerminationReason::kPermanentlyClosed, &out);
  EXPECT_EQ(out, (V{3, 0, 0, 0, 12, 5, 0, 1, 0, 2, 0, 4}));
}

TEST(BmpMessageTest, RouteMonitoringCarriesTheUpdate) {
  V update(23, 0);  // no withdrawn routes, no attributes
  for (int i = 0; i < 16; ++i) update[i] = 0xff;
  update[17] = 23;
  update[18] = 2;
  V out;
  AppendRouteMonitoring(Peer4(), update, &out);
  uint32_t len = 6 + 42 + 23;
  EXPECT_EQ(out, Cat({V{3, 0, 0, 0, uint8_t(len), 0}, PerPeer4(0, 0), update}));
}

// The per-peer header encoded once serves a batch: each message after the one before it.
TEST(BmpMessageTest, RouteMonitoringOfABatchSharesOneEncodedPeerHeader) {
  V update(23, 0);
  for (int i = 0; i < 16; ++i) update[i] = 0xff;
  update[17] = 23;
  update[18] = 2;
  const EncodedPeerHeader encoded = EncodePerPeerHeader(Peer4());
  EXPECT_EQ(V(encoded.begin(), encoded.end()), PerPeer4(0, 0));
  V out{9, 9};  // what the buffer already holds stays
  AppendRouteMonitoring(encoded, update, &out);
  AppendRouteMonitoring(encoded, update, &out);
  const V one = Cat({V{3, 0, 0, 0, 6 + 42 + 23, 0}, PerPeer4(0, 0), update});
  EXPECT_EQ(out, Cat({V{9, 9}, one, one}));
}

TEST(BmpMessageTest, PeerUp) {
  V sent{1, 2, 3}, received{4, 5};  // stand-ins for the OPENs
  V out;
  AppendPeerUp(Peer4(), A("192.0.2.2"), 179, 50000, sent, received, "", &out);
  V local{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 192, 0, 2, 2, 0, 179, 0xc3, 0x50};
  uint32_t len = 6 + 42 + 20 + 5;
  EXPECT_EQ(out, Cat({V{3, 0, 0, 0, uint8_t(len), 3}, PerPeer4(0, 0), local, sent, received}));
}

TEST(BmpMessageTest, PeerUpWithTableName) {
  V out;
  AppendPeerUp(Peer4(), A("0.0.0.0"), 0, 0, {}, {}, "global", &out);
  V tail(out.end() - 10, out.end());
  EXPECT_EQ(tail, (V{0, 3, 0, 6, 'g', 'l', 'o', 'b', 'a', 'l'}));
  EXPECT_EQ(out[4], 6 + 42 + 20 + 10);
}

TEST(BmpMessageTest, PeerDownReasons) {
  V notification{9, 9, 9};
  V out;
  AppendPeerDown(Peer4(), DownReason::kRemoteNotification, notification, 0, &out);
  EXPECT_EQ(out, Cat({V{3, 0, 0, 0, 6 + 42 + 4, 2}, PerPeer4(0, 0), V{3, 9, 9, 9}}));
  out.clear();
  AppendPeerDown(Peer4(), DownReason::kLocalNoNotification, {}, 0x0102, &out);
  EXPECT_EQ(out, Cat({V{3, 0, 0, 0, 6 + 42 + 3, 2}, PerPeer4(0, 0), V{2, 1, 2}}));
  out.clear();
  AppendPeerDown(Peer4(), DownReason::kRemoteNoData, notification, 0, &out);
  EXPECT_EQ(out, Cat({V{3, 0, 0, 0, 6 + 42 + 1, 2}, PerPeer4(0, 0), V{4}}));
}

TEST(BmpMessageTest, StatisticsReport) {
  Statistic stats[] = {{kStatAdjRibInRoutes, 0x0102030405ull}, {kStatLocRibRoutes, 7}};
  V out;
  AppendStatisticsReport(Peer4(), stats, &out);
  EXPECT_EQ(out,
            Cat({V{3, 0, 0, 0, 6 + 42 + 4 + 24, 1}, PerPeer4(0, 0), V{0, 0, 0, 2},
                 V{0, 7, 0, 8, 0, 0, 0, 1, 2, 3, 4, 5}, V{0, 8, 0, 8, 0, 0, 0, 0, 0, 0, 0, 7}}));
}

}  // namespace
}  // namespace sluice::bgp::bmp
