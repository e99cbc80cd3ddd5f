#include "finder/access_list.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace sluice::finder {
namespace {

using ::testing::HasSubstr;

TEST(AccessListTest, EmptyAllowsEverything) {
  AccessList list;
  EXPECT_TRUE(list.Allows({"bgp", "bgp"}, {"rib", "rib"}, "sluice.rib.v1.Rib"));
}

TEST(AccessListTest, FirstMatchDecidesAndTheRestIsDenied) {
  auto list = AccessList::Parse(R"(
# the CLI may do anything
allow sluice * *
deny  bgp    fea  *              # BGP never talks to the FEA
allow bgp    rib  rib/1.0
allow *      *    sluice.common.v1.Common
)");
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_EQ(list->size(), 4u);
  EXPECT_TRUE(list->Allows({"sluice", "sluice-1"}, {"fea", "fea"}, "sluice.fea.v1.Fea"));
  EXPECT_TRUE(list->Allows({"bgp", "bgp"}, {"rib", "rib"}, "sluice.rib.v1.Rib"));
  EXPECT_FALSE(list->Allows({"bgp", "bgp"}, {"rib", "rib"}, "sluice.rib_other.v1.RibOther"));
  EXPECT_FALSE(list->Allows({"bgp", "bgp"}, {"fea", "fea"}, "sluice.common.v1.Common"));
  EXPECT_TRUE(list->Allows({"rib", "rib"}, {"fea", "fea"}, "sluice.common.v1.Common"));
  EXPECT_FALSE(list->Allows({"rib", "rib"}, {"fea", "fea"}, "sluice.fea.v1.Fea"));
  // Names match a class or an instance.
  EXPECT_TRUE(list->Allows({"x", "bgp"}, {"y", "rib"}, "sluice.rib.v1.Rib"));
}

TEST(AccessListTest, MalformedRulesNameTheLine) {
  EXPECT_THAT(std::string(AccessList::Parse("allow a b c\npermit a b c\n").status().message()),
              HasSubstr("line 2: the rule must start with allow or deny"));
  EXPECT_THAT(std::string(AccessList::Parse("allow a b\n").status().message()),
              HasSubstr("line 1: want: allow|deny CALLER TARGET INTERFACE"));
  EXPECT_THAT(std::string(AccessList::Parse("allow a b Rib/1.0\n").status().message()),
              HasSubstr("line 1: bad name"));
  AccessList list;
  EXPECT_THAT(std::string(list.AddRule("allow a").message()), HasSubstr("access rule:"));
  EXPECT_THAT(std::string(AccessList::Load("/nonexistent/acl").status().message()),
              HasSubstr("cannot read access list /nonexistent/acl"));
}

}  // namespace
}  // namespace sluice::finder
