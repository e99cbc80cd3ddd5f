#include "policy/as_path.h"

#include "gtest/gtest.h"

namespace sluice::policy {
namespace {

TEST(AsPath, ParsesAndPrintsEverySegmentType) {
  auto p = AsPath::Parse("3856 1299 {64512,64513} (65001 65002) [65003 65004]");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->ToString(), "3856 1299 {64512,64513} (65001 65002) [65003,65004]");
  std::vector<AsSegmentType> types;
  p->view().ForEachSegment([&](const AsSegment& s) { types.push_back(s.type); });
  EXPECT_EQ(types, (std::vector<AsSegmentType>{AsSegmentType::kSequence, AsSegmentType::kSet,
                                               AsSegmentType::kConfedSequence,
                                               AsSegmentType::kConfedSet}));
}

TEST(AsPath, LengthCountsSetsOnceAndConfederationsNot) {
  EXPECT_EQ(AsPath::Parse("1 2 3")->view().Length(), 3);
  EXPECT_EQ(AsPath::Parse("1 2 {3 4 5}")->view().Length(), 3);
  EXPECT_EQ(AsPath::Parse("(1 2) 3")->view().Length(), 1);
  EXPECT_EQ(AsPath::Parse("")->view().Length(), 0);
}

TEST(AsPath, FourOctetAsns) {
  auto p = AsPath::Parse("4294967295 23456");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->view().FirstAs(), 4294967295u);
  EXPECT_FALSE(AsPath::Parse("4294967296").ok());
}

TEST(AsPath, RefusesBadText) {
  EXPECT_FALSE(AsPath::Parse("1 {2 3").ok());
  EXPECT_FALSE(AsPath::Parse("1 2}").ok());
  EXPECT_FALSE(AsPath::Parse("{1 {2}}").ok());
  EXPECT_FALSE(AsPath::Parse("1 x").ok());
  EXPECT_FALSE(AsPath::Parse("1 -2").ok());
}

TEST(AsPath, LongSequencesSplitAt255) {
  std::string text;
  for (int i = 0; i < 300; ++i) text += "7 ";
  auto p = AsPath::Parse(text);
  ASSERT_TRUE(p.ok());
  int segments = 0;
  p->view().ForEachSegment([&](const AsSegment&) { ++segments; });
  EXPECT_EQ(segments, 2);
  EXPECT_EQ(p->view().Length(), 300);
}

TEST(AsPath, PrependIntoLeadingSequence) {
  std::vector<uint32_t> out;
  PrependAs(AsPath::Parse("1 2")->view(), 9, 2, &out);
  EXPECT_EQ(AsPathView(out).ToString(), "9 9 1 2");
  PrependAs(AsPath::Parse("{1 2}")->view(), 9, 1, &out);
  EXPECT_EQ(AsPathView(out).ToString(), "9 {1,2}");
  PrependAs(AsPathView(), 9, 1, &out);
  EXPECT_EQ(AsPathView(out).ToString(), "9");
}

TEST(AsPath, PrependOverflowsIntoNewSegment) {
  std::string text;
  for (int i = 0; i < 254; ++i) text += "7 ";
  std::vector<uint32_t> out;
  PrependAs(AsPath::Parse(text)->view(), 9, 3, &out);
  AsPathView v(out);
  EXPECT_EQ(v.Length(), 257);
  std::vector<size_t> sizes;
  v.ForEachSegment([&](const AsSegment& s) { sizes.push_back(s.asns.size()); });
  EXPECT_EQ(sizes, (std::vector<size_t>{2, 255}));
  std::vector<uint32_t> symbols;
  v.Symbols(&symbols);
  EXPECT_EQ(symbols[0], 9u);
  EXPECT_EQ(symbols[2], 9u);
  EXPECT_EQ(symbols[3], 7u);
}

TEST(AsPath, TruncatedViewIsReadSafely) {
  const uint32_t words[] = {AsSegmentHeader(AsSegmentType::kSequence, 10), 1, 2};
  AsPathView v(words);
  EXPECT_EQ(v.Length(), 2);
  EXPECT_EQ(v.ToString(), "1 2");
}

}  // namespace
}  // namespace sluice::policy
