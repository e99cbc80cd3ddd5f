// AsPath: wire forms, RFC 4271 §9.1.2.2 length, prepend, loop check, text form, RFC 6793
// reconciliation.
#include "bgp/wire/as_path.h"

#include <gtest/gtest.h>

#include <vector>

#include "bgp/wire/constants.h"

namespace sluice::bgp {
namespace {

AsPath Path(std::vector<std::pair<SegmentType, std::vector<uint32_t>>> segments) {
  AsPath p;
  for (auto& [t, asns] : segments) p.AppendSegment(t, asns);
  return p;
}

std::vector<uint8_t> Encode(const AsPath& p, int as_size) {
  std::vector<uint8_t> out;
  ByteWriter w(&out);
  p.Encode(as_size, w);
  EXPECT_EQ(out.size(), p.EncodedSize(as_size));
  return out;
}

TEST(AsPathTest, DecodesFourOctetSegments) {
  const std::vector<uint8_t> wire = {2, 2, 0, 0, 0x0b, 0x62, 0, 3, 0x0d, 0x40,  // SEQ 2914 200000
                                     1, 1, 0, 0, 0,    7};                      // SET {7}
  AsPath p;
  ASSERT_TRUE(AsPath::Decode(wire, 4, &p).ok());
  EXPECT_EQ(p.ToString(), "2914 200000 {7}");
  EXPECT_EQ(p.PathLength(), 3);
  EXPECT_EQ(p.FirstAs(), 2914u);
  EXPECT_EQ(p.OriginAs(), 0u);  // ends in a set
  EXPECT_EQ(Encode(p, 4), wire);
}

TEST(AsPathTest, TwoOctetEncodingUsesAsTrans) {
  AsPath p = AsPath::Sequence({65000, 200000});
  EXPECT_EQ(Encode(p, 2), (std::vector<uint8_t>{2, 2, 0xfd, 0xe8, 0x5b, 0xa0}));  // 23456
  EXPECT_TRUE(p.HasFourOctetAs());
  AsPath back;
  ASSERT_TRUE(AsPath::Decode(Encode(p, 2), 2, &back).ok());
  EXPECT_EQ(back.ToString(), "65000 23456");
}

TEST(AsPathTest, MalformedSegmentsAreRejected) {
  AsPath p;
  EXPECT_FALSE(AsPath::Decode(std::vector<uint8_t>{5, 1, 0, 0, 0, 1}, 4, &p).ok());  // type 5
  EXPECT_FALSE(AsPath::Decode(std::vector<uint8_t>{2, 0}, 4, &p).ok());              // length 0
  EXPECT_FALSE(AsPath::Decode(std::vector<uint8_t>{2, 2, 0, 0, 0, 1}, 4, &p).ok());  // overrun
  EXPECT_FALSE(AsPath::Decode(std::vector<uint8_t>{2, 1, 0, 1, 2}, 2, &p).ok());     // 1 left
  EXPECT_TRUE(AsPath::Decode(std::vector<uint8_t>{}, 4, &p).ok());                   // empty
  EXPECT_TRUE(p.empty());
}

TEST(AsPathTest, LengthCountsSetsOnceAndConfederationsNever) {
  AsPath p = Path({{SegmentType::kConfedSequence, {65001, 65002}},
                   {SegmentType::kSequence, {1, 2, 3}},
                   {SegmentType::kSet, {4, 5, 6}},
                   {SegmentType::kConfedSet, {65003}}});
  EXPECT_EQ(p.PathLength(), 4);
  EXPECT_EQ(p.ToString(), "(65001 65002) 1 2 3 {4,5,6} [65003]");
  EXPECT_EQ(p.FirstAs(), 0u);  // starts with a confederation segment
  EXPECT_EQ(p.WithoutConfedSegments().ToString(), "1 2 3 {4,5,6}");
  EXPECT_TRUE(p.Contains(5));
  EXPECT_TRUE(p.Contains(65003));
  EXPECT_FALSE(p.Contains(7));
}

TEST(AsPathTest, PrependJoinsLeadingSequenceOrStartsOne) {
  EXPECT_EQ(AsPath().Prepended(65000).ToString(), "65000");
  EXPECT_EQ(AsPath::Sequence({1, 2}).Prepended(65000, 2).ToString(), "65000 65000 1 2");
  EXPECT_EQ(AsPath::Sequence({1, 2}).Prepended(65000).segment_count(), 1u);
  AsPath set = Path({{SegmentType::kSet, {1, 2}}});
  AsPath p = set.Prepended(65000);
  EXPECT_EQ(p.ToString(), "65000 {1,2}");
  EXPECT_EQ(p.segment_count(), 2u);
  EXPECT_EQ(p.PathLength(), 2);
  EXPECT_EQ(p.FirstAs(), 65000u);
  // A full leading sequence (255 ASes) gets a new segment in front.
  std::vector<uint32_t> many(255, 7);
  AsPath full;
  full.AppendSegment(SegmentType::kSequence, many);
  AsPath more = full.Prepended(65000);
  EXPECT_EQ(more.segment_count(), 2u);
  EXPECT_EQ(more.PathLength(), 256);
  EXPECT_EQ(more.FirstAs(), 65000u);
}

TEST(AsPathTest, LongSequencesSplitIntoSegmentsOf255OnTheWire) {
  std::vector<uint32_t> many(300);
  for (size_t i = 0; i < many.size(); ++i) many[i] = uint32_t(i + 1);
  AsPath p;
  p.AppendSegment(SegmentType::kSequence, many);
  std::vector<uint8_t> wire = Encode(p, 4);
  EXPECT_EQ(wire.size(), 2 + 255 * 4 + 2 + 45 * 4u);
  AsPath back;
  ASSERT_TRUE(AsPath::Decode(wire, 4, &back).ok());
  EXPECT_EQ(back.PathLength(), 300);
  EXPECT_EQ(back.ToString(), p.ToString());
}

TEST(AsPathTest, ReconcileTakesAs4PathWhenItCoversThePath) {
  AsPath as_path = AsPath::Sequence({701, kAsTrans, kAsTrans});
  AsPath as4 = AsPath::Sequence({701, 200000, 300000});
  EXPECT_EQ(AsPath::Reconcile(as_path, as4).ToString(), "701 200000 300000");
}

TEST(AsPathTest, ReconcilePrependsWhatOldSpeakersAdded) {
  // Two 2-octet speakers prepended 100 and 200 after the AS4_PATH was made.
  AsPath as_path = AsPath::Sequence({100, 200, kAsTrans, 5});
  AsPath as4 = AsPath::Sequence({200000, 5});
  AsPath r = AsPath::Reconcile(as_path, as4);
  EXPECT_EQ(r.ToString(), "100 200 200000 5");
  EXPECT_EQ(r.segment_count(), 1u);  // the sequences are joined
}

TEST(AsPathTest, ReconcileIgnoresALongerAs4Path) {
  AsPath as_path = AsPath::Sequence({100, kAsTrans});
  AsPath as4 = AsPath::Sequence({1, 2, 3});
  EXPECT_EQ(AsPath::Reconcile(as_path, as4).ToString(), "100 23456");
}

TEST(AsPathTest, ReconcileKeepsLeadingConfederationSegments) {
  AsPath as_path =
      Path({{SegmentType::kConfedSequence, {65001}}, {SegmentType::kSequence, {100, kAsTrans}}});
  AsPath as4 = AsPath::Sequence({200000});
  EXPECT_EQ(AsPath::Reconcile(as_path, as4).ToString(), "(65001) 100 200000");
}

}  // namespace
}  // namespace sluice::bgp
