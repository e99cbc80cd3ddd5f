// RFC 6811 route origin validation: the corner cases of §2 and RFC 6483 §4.

#include <gtest/gtest.h>

#include <vector>

#include "bgp/rpki/route_origin.h"

namespace sluice::bgp::rpki {
namespace {

net::Prefix P(const char* text) { return *net::Prefix::Parse(text); }

AsPath Path(std::vector<std::pair<SegmentType, std::vector<uint32_t>>> segments) {
  AsPath path;
  for (const auto& [type, asns] : segments) path.AppendSegment(type, asns);
  return path;
}

TEST(RouteOriginAsTest, RightmostOfAFinalSequence) {
  EXPECT_EQ(RouteOriginAs(Path({{SegmentType::kSequence, {65001, 65002, 65003}}}), 64512), 65003u);
  EXPECT_EQ(
      RouteOriginAs(Path({{SegmentType::kSet, {65009}}, {SegmentType::kSequence, {65001, 65002}}}),
                    64512),
      65002u);
}

TEST(RouteOriginAsTest, FinalSetIsNone) {
  EXPECT_EQ(
      RouteOriginAs(Path({{SegmentType::kSequence, {65001}}, {SegmentType::kSet, {65002}}}), 64512),
      std::nullopt);
}

TEST(RouteOriginAsTest, EmptyOrConfederationIsTheLocalAs) {
  EXPECT_EQ(RouteOriginAs(AsPath(), 64512), 64512u);
  EXPECT_EQ(RouteOriginAs(Path({{SegmentType::kConfedSequence, {65100}}}), 64512), 64512u);
}

TEST(VrpTableTest, NotFoundWithoutACoveringVrp) {
  VrpTable t;
  ASSERT_TRUE(t.Add({P("10.0.0.0/8"), 8, 65001}));
  EXPECT_EQ(t.Validate(P("11.0.0.0/8"), 65001), RpkiState::kNotFound);
  EXPECT_EQ(t.Validate(P("0.0.0.0/0"), 65001), RpkiState::kNotFound);  // less specific
  EXPECT_EQ(t.Validate(P("2001:db8::/32"), 65001), RpkiState::kNotFound);
}

TEST(VrpTableTest, ExactMatchAndWrongOrigin) {
  VrpTable t;
  ASSERT_TRUE(t.Add({P("10.0.0.0/8"), 8, 65001}));
  EXPECT_EQ(t.Validate(P("10.0.0.0/8"), 65001), RpkiState::kValid);
  EXPECT_EQ(t.Validate(P("10.0.0.0/8"), 65002), RpkiState::kInvalid);
  EXPECT_EQ(t.Validate(P("10.0.0.0/8"), std::nullopt), RpkiState::kInvalid);  // AS_SET origin
}

TEST(VrpTableTest, MaxLengthBoundsMoreSpecifics) {
  VrpTable t;
  ASSERT_TRUE(t.Add({P("10.0.0.0/8"), 16, 65001}));
  EXPECT_EQ(t.Validate(P("10.1.0.0/16"), 65001), RpkiState::kValid);
  EXPECT_EQ(t.Validate(P("10.1.1.0/24"), 65001), RpkiState::kInvalid);  // longer than maxLength
}

TEST(VrpTableTest, AnyOfSeveralCoveringVrpsValidates) {
  VrpTable t;
  ASSERT_TRUE(t.Add({P("10.0.0.0/8"), 8, 65001}));    // covers, too short
  ASSERT_TRUE(t.Add({P("10.1.0.0/16"), 24, 65002}));  // covers, other origin
  ASSERT_TRUE(t.Add({P("10.1.0.0/16"), 24, 65003}));  // same prefix, the origin
  EXPECT_EQ(t.Validate(P("10.1.2.0/24"), 65003), RpkiState::kValid);
  EXPECT_EQ(t.Validate(P("10.1.2.0/24"), 65002), RpkiState::kValid);
  EXPECT_EQ(t.Validate(P("10.1.2.0/24"), 65001), RpkiState::kInvalid);
  EXPECT_EQ(t.Validate(P("10.2.0.0/16"), 65001), RpkiState::kInvalid);  // only the /8 covers
}

TEST(VrpTableTest, As0CoversButNeverMatches) {
  VrpTable t;
  ASSERT_TRUE(t.Add({P("192.0.2.0/24"), 32, 0}));
  EXPECT_EQ(t.Validate(P("192.0.2.0/24"), 0), RpkiState::kInvalid);
  EXPECT_EQ(t.Validate(P("192.0.2.128/25"), 65001), RpkiState::kInvalid);
  ASSERT_TRUE(t.Add({P("192.0.2.0/24"), 24, 65001}));  // an AS 0 VRP beside a real one
  EXPECT_EQ(t.Validate(P("192.0.2.0/24"), 65001), RpkiState::kValid);
}

TEST(VrpTableTest, Ipv6) {
  VrpTable t;
  ASSERT_TRUE(t.Add({P("2001:db8::/32"), 48, 65001}));
  EXPECT_EQ(t.Validate(P("2001:db8:1::/48"), 65001), RpkiState::kValid);
  EXPECT_EQ(t.Validate(P("2001:db8:1:1::/64"), 65001), RpkiState::kInvalid);
  EXPECT_EQ(t.size_v6(), 1u);
  EXPECT_EQ(t.size_v4(), 0u);
}

TEST(VrpTableTest, AddAndRemoveKeepCounts) {
  VrpTable t;
  const Vrp a{P("10.0.0.0/8"), 8, 65001};
  const Vrp b{P("10.0.0.0/8"), 16, 65001};
  EXPECT_TRUE(t.Add(a));
  EXPECT_FALSE(t.Add(a));  // duplicate announce
  EXPECT_TRUE(t.Add(b));
  EXPECT_EQ(t.size(), 2u);
  EXPECT_TRUE(t.Remove(a));
  EXPECT_FALSE(t.Remove(a));
  EXPECT_EQ(t.Validate(P("10.1.0.0/16"), 65001), RpkiState::kValid);  // b stays
  EXPECT_TRUE(t.Remove(b));
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.Validate(P("10.0.0.0/8"), 65001), RpkiState::kNotFound);
}

TEST(VrpTableTest, MalformedMaxLengthIsRefused) {
  VrpTable t;
  EXPECT_FALSE(t.Add({P("10.0.0.0/16"), 8, 65001}));   // shorter than the prefix
  EXPECT_FALSE(t.Add({P("10.0.0.0/16"), 33, 65001}));  // past 32 bits
  EXPECT_FALSE(t.Add({P("2001:db8::/32"), 129, 65001}));
  EXPECT_EQ(t.size(), 0u);
}

}  // namespace
}  // namespace sluice::bgp::rpki
