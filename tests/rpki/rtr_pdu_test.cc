// RFC 8210 PDUs as a cache sends them, whole, cut short and malformed.

#include "rpki/rtr_pdu.h"

#include <gtest/gtest.h>

#include <boost/endian/conversion.hpp>

#include "tests/rpki/cache_pdus.h"

namespace sluice::rpki::rtr {
namespace {

using boost::endian::store_big_u32;
using namespace sluice::rpki::testing;  // NOLINT: the PDU builders

TEST(RtrPduTest, Ipv4PrefixAnnounceAndWithdraw) {
  const auto bytes = Ipv4Prefix(1, true, 0xC0000200, 24, 26, 64496);
  Decoded d = Decode(bytes, 1);
  ASSERT_EQ(d.kind, Decoded::kPdu) << d.what;
  EXPECT_EQ(d.consumed, 20u);
  const auto& p = std::get<PrefixPdu>(d.pdu);
  EXPECT_TRUE(p.announce);
  EXPECT_EQ(p.vrp.prefix.ToString(), "192.0.2.0/24");
  EXPECT_EQ(p.vrp.max_length, 26);
  EXPECT_EQ(p.vrp.asn, 64496u);
  d = Decode(Ipv4Prefix(1, false, 0xC0000200, 24, 24, 64496), 1);
  ASSERT_EQ(d.kind, Decoded::kPdu);
  EXPECT_FALSE(std::get<PrefixPdu>(d.pdu).announce);
}

TEST(RtrPduTest, Ipv6Prefix) {
  const auto bytes = RawPdu(1, 6, 0,
                            Cat({{1, 32, 48, 0},
                                 {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
                                 U32(65001)}));
  Decoded d = Decode(bytes, 1);
  ASSERT_EQ(d.kind, Decoded::kPdu) << d.what;
  const auto& p = std::get<PrefixPdu>(d.pdu);
  EXPECT_EQ(p.vrp.prefix.ToString(), "2001:db8::/32");
  EXPECT_EQ(p.vrp.max_length, 48);
  EXPECT_EQ(p.vrp.asn, 65001u);
}

TEST(RtrPduTest, NeedsTheWholePdu) {
  const auto bytes = Ipv4Prefix(1, true, 0x0A000000, 8, 8, 1);
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_EQ(Decode(std::span(bytes).first(n), 1).kind, Decoded::kNeedMore) << n;
  }
}

TEST(RtrPduTest, EndOfDataByVersion) {
  Decoded d = Decode(RawPdu(1, 7, 42, Cat({U32(7), U32(3600), U32(600), U32(7200)})), 1);
  ASSERT_EQ(d.kind, Decoded::kPdu) << d.what;
  const auto& e = std::get<EndOfData>(d.pdu);
  EXPECT_EQ(e.session_id, 42);
  EXPECT_EQ(e.serial, 7u);
  ASSERT_TRUE(e.intervals.has_value());
  EXPECT_EQ(e.intervals->expire, 7200u);
  d = Decode(RawPdu(0, 7, 42, U32(7)), 0);
  ASSERT_EQ(d.kind, Decoded::kPdu) << d.what;
  EXPECT_FALSE(std::get<EndOfData>(d.pdu).intervals.has_value());
  // A version 0 End of Data in a version 1 session.
  EXPECT_EQ(Decode(RawPdu(0, 7, 42, U32(7)), 1).error, ErrorCode::kUnexpectedProtocolVersion);
}

TEST(RtrPduTest, ErrorReportOfAnOlderVersionNegotiates) {
  const auto bytes = RawPdu(0, 10, 4,
                            Cat({U32(8),
                                 EncodeResetQuery(1),
                                 U32(11),
                                 {'o', 'n', 'l', 'y', ' ', 'v', 'e', 'r', 's', 'i', 'o'}}));
  Decoded d = Decode(bytes, 1);
  ASSERT_EQ(d.kind, Decoded::kPdu) << d.what;
  EXPECT_EQ(d.version, 0);
  const auto& e = std::get<ErrorReport>(d.pdu);
  EXPECT_EQ(e.code, ErrorCode::kUnsupportedProtocolVersion);
  EXPECT_EQ(e.text, "only versio");
}

TEST(RtrPduTest, MalformedPdusAreErrorsWithTheRightCode) {
  EXPECT_EQ(Decode(Ipv4Prefix(1, true, 0, 33, 33, 1), 1).error, ErrorCode::kCorruptData);
  EXPECT_EQ(Decode(Ipv4Prefix(1, true, 0, 24, 16, 1), 1).error, ErrorCode::kCorruptData);
  EXPECT_EQ(Decode(RawPdu(1, 4, 0, {1, 8, 8, 0}), 1).error, ErrorCode::kCorruptData);  // short
  EXPECT_EQ(Decode(RawPdu(2, 4, 0, {}), 1).error, ErrorCode::kUnsupportedProtocolVersion);
  EXPECT_EQ(Decode(RawPdu(1, 5, 0, {}), 1).error, ErrorCode::kUnsupportedPduType);
  EXPECT_EQ(Decode(RawPdu(1, 2, 0, {}), 1).error, ErrorCode::kInvalidRequest);
  EXPECT_EQ(Decode(RawPdu(0, 9, 0, std::vector<uint8_t>(30)), 0).error,
            ErrorCode::kUnsupportedPduType);  // no Router Keys in version 0
  // Lengths: below the header, above the bound, an Error Report that does not add up.
  std::vector<uint8_t> tiny = RawPdu(1, 8, 0, {});
  store_big_u32(tiny.data() + 4, 4);
  EXPECT_EQ(Decode(tiny, 1).error, ErrorCode::kCorruptData);
  std::vector<uint8_t> huge = RawPdu(1, 8, 0, {});
  store_big_u32(huge.data() + 4, kMaxPduLength + 1);
  EXPECT_EQ(Decode(huge, 1).error, ErrorCode::kCorruptData);
  EXPECT_EQ(Decode(RawPdu(1, 10, 0, Cat({U32(100), U32(0)})), 1).error, ErrorCode::kCorruptData);
  EXPECT_EQ(Decode(RawPdu(1, 10, 0, Cat({U32(0), U32(5)})), 1).error, ErrorCode::kCorruptData);
}

TEST(RtrPduTest, QueriesAndErrorReportsWeSend) {
  const auto serial = EncodeSerialQuery(1, 42, 7);
  ASSERT_EQ(serial.size(), 12u);
  EXPECT_EQ(serial[0], 1);
  EXPECT_EQ(serial[1], 1);
  EXPECT_EQ(serial[3], 42);
  EXPECT_EQ(serial[11], 7);
  EXPECT_EQ(EncodeResetQuery(0), (std::vector<uint8_t>{0, 2, 0, 0, 0, 0, 0, 8}));
  // Our own Error Report decodes as one (same version).
  const auto report = EncodeErrorReport(1, ErrorCode::kCorruptData, EncodeResetQuery(1), "bad PDU");
  Decoded d = Decode(report, 1);
  ASSERT_EQ(d.kind, Decoded::kPdu) << d.what;
  EXPECT_EQ(std::get<ErrorReport>(d.pdu).text, "bad PDU");
}

TEST(RtrPduTest, IntervalBounds) {
  EXPECT_TRUE(IntervalsValid(Intervals{}));
  EXPECT_FALSE(IntervalsValid(Intervals{3600, 600, 599}));
  EXPECT_FALSE(IntervalsValid(Intervals{0, 600, 7200}));
  EXPECT_FALSE(IntervalsValid(Intervals{3600, 7201, 7200}));
  EXPECT_FALSE(IntervalsValid(Intervals{86400, 600, 7200}));  // expire not above refresh
}

}  // namespace
}  // namespace sluice::rpki::rtr
