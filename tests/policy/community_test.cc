#include "policy/community.h"

#include "gtest/gtest.h"

namespace sluice::policy {
namespace {

TEST(Community, StandardAndWellKnown) {
  EXPECT_EQ(*ParseCommunity("65000:100"), (65000u << 16) | 100);
  EXPECT_EQ(*ParseCommunity("no-export"), 0xFFFFFF01u);
  EXPECT_EQ(*ParseCommunity("no-advertise"), 0xFFFFFF02u);
  EXPECT_EQ(*ParseCommunity("no-export-subconfed"), 0xFFFFFF03u);
  EXPECT_EQ(CommunityToString(0xFFFFFF01u), "no-export");
  EXPECT_EQ(CommunityToString((1u << 16) | 2), "1:2");
  EXPECT_FALSE(ParseCommunity("65536:1").ok());
  EXPECT_FALSE(ParseCommunity("1:2:3").ok());
  EXPECT_FALSE(ParseCommunity("a:b").ok());
  EXPECT_FALSE(ParseCommunity("").ok());
}

TEST(Community, ExtendedForms) {
  EXPECT_EQ(*ParseExtCommunity("target:65000:100"), 0x0002FDE800000064ull);
  EXPECT_EQ(*ParseExtCommunity("origin:65000:100"), 0x0003FDE800000064ull);
  EXPECT_EQ(*ParseExtCommunity("target:192.0.2.1:7"), 0x0102C00002010007ull);
  EXPECT_EQ(*ParseExtCommunity("target:4200000000:7"), 0x0202FA56EA000007ull);
  EXPECT_EQ(*ParseExtCommunity("0x0002fde800000064"), 0x0002FDE800000064ull);
  for (const char* text : {"target:65000:100", "origin:192.0.2.1:7", "target:4200000000:7"}) {
    EXPECT_EQ(ExtCommunityToString(*ParseExtCommunity(text)), text);
  }
  EXPECT_EQ(ExtCommunityToString(0x4300000000000001ull), "0x4300000000000001");
  EXPECT_FALSE(ParseExtCommunity("target:4200000000:70000").ok());
  EXPECT_FALSE(ParseExtCommunity("color:1:2").ok());
  EXPECT_FALSE(ParseExtCommunity("0x12").ok());
}

TEST(Community, Large) {
  auto c = ParseLargeCommunity("4200000000:1:2");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->global_admin, 4200000000u);
  EXPECT_EQ(LargeCommunityToString(*c), "4200000000:1:2");
  EXPECT_FALSE(ParseLargeCommunity("1:2").ok());
}

TEST(Community, Patterns) {
  auto p = ParseCommunityPattern("65000:100-199");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->Matches(*ParseCommunity("65000:150")));
  EXPECT_FALSE(p->Matches(*ParseCommunity("65000:200")));
  EXPECT_FALSE(p->IsExact());
  EXPECT_TRUE(ParseCommunityPattern("*:5")->Matches(*ParseCommunity("9:5")));
  EXPECT_FALSE(ParseCommunityPattern("5-3:1").ok());
  auto e = ParseExtCommunityPattern("target:65000:*");
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->Matches(*ParseExtCommunity("target:65000:9")));
  EXPECT_FALSE(e->Matches(*ParseExtCommunity("origin:65000:9")));
  auto any_target = ParseExtCommunityPattern("target:*:*");
  EXPECT_TRUE(any_target->Matches(*ParseExtCommunity("target:192.0.2.1:9")));
  EXPECT_TRUE(any_target->Matches(*ParseExtCommunity("target:4200000000:9")));
  EXPECT_FALSE(any_target->Matches(*ParseExtCommunity("origin:1:9")));
  auto l = ParseLargeCommunityPattern("1:*:3");
  EXPECT_TRUE(l->Matches(*ParseLargeCommunity("1:77:3")));
  EXPECT_FALSE(l->Matches(*ParseLargeCommunity("1:77:4")));
}

}  // namespace
}  // namespace sluice::policy
