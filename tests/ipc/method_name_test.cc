#include "ipc/method_name.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace sluice::ipc {
namespace {

using ::testing::HasSubstr;

TEST(MethodNameTest, MappingRuleBothWays) {
  EXPECT_EQ(*SnakeToCamel("add_route4"), "AddRoute4");
  EXPECT_EQ(*SnakeToCamel("fea_ifmgr"), "FeaIfmgr");
  EXPECT_EQ(*SnakeToCamel("bgp4_mp"), "Bgp4Mp");
  EXPECT_EQ(*CamelToSnake("AddRoute4"), "add_route4");
  EXPECT_EQ(*CamelToSnake("Bgp4Mp"), "bgp4_mp");
  EXPECT_EQ(*CamelToSnake("GetIPv4"), "get_i_pv4");
  EXPECT_EQ(*SnakeToCamel("get_i_pv4"), "GetIPv4");
  for (const char* bad : {"", "_a", "a_", "a__b", "A", "a_1b", "a-b"}) {
    EXPECT_FALSE(SnakeToCamel(bad).ok()) << bad;
  }
  for (const char* bad : {"", "add", "Add_Route", "Add-Route"}) {
    EXPECT_FALSE(CamelToSnake(bad).ok()) << bad;
  }
  EXPECT_EQ(*InterfaceToService("fea_ifmgr", "1.0"), "sluice.fea_ifmgr.v1.FeaIfmgr");
  EXPECT_EQ(*InterfaceToService("rib", "2.3"), "sluice.rib.v2_3.Rib");
  auto back = ServiceToInterface("sluice.rib.v2_3.Rib");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->interface, "rib");
  EXPECT_EQ(back->version, "2.3");
  EXPECT_FALSE(ServiceToInterface("sluice.rib.v1.RibService").ok());
  EXPECT_FALSE(ServiceToInterface("grpc.health.v1.Health").ok());
  EXPECT_FALSE(ServiceToInterface("sluice.rib.v1_0.Rib").ok());
  EXPECT_FALSE(InterfaceToService("rib", "01.0").ok());
}

TEST(MethodNameTest, ThreeFormsNameOneMethod) {
  for (const char* text : {"fea_ifmgr/1.0/add_route4", "sluice.fea_ifmgr.v1.FeaIfmgr.AddRoute4",
                           "/sluice.fea_ifmgr.v1.FeaIfmgr/AddRoute4"}) {
    auto m = MethodName::Parse(text);
    ASSERT_TRUE(m.ok()) << text << ": " << m.status();
    EXPECT_EQ(m->service(), "sluice.fea_ifmgr.v1.FeaIfmgr");
    EXPECT_EQ(m->rpc(), "AddRoute4");
    EXPECT_EQ(m->path(), "/sluice.fea_ifmgr.v1.FeaIfmgr/AddRoute4");
    EXPECT_EQ(m->xrl(), "fea_ifmgr/1.0/add_route4");
    EXPECT_EQ(m->full_name(), "sluice.fea_ifmgr.v1.FeaIfmgr.AddRoute4");
  }
}

TEST(MethodNameTest, NonXrlServicesStillHaveAPath) {
  auto m = MethodName::Parse("/grpc.health.v1.Health/Check");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->xrl(), "");
  EXPECT_EQ(m->service(), "grpc.health.v1.Health");
}

TEST(MethodNameTest, BadNamesAreRejected) {
  EXPECT_THAT(std::string(MethodName::Parse("rib/1.0").status().message()),
              HasSubstr("want INTERFACE/VERSION/METHOD"));
  EXPECT_FALSE(MethodName::Parse("AddRoute").ok());
  EXPECT_FALSE(MethodName::Parse("/sluice.rib.v1.Rib").ok());
  EXPECT_FALSE(MethodName::Parse("rib/1.0/AddRoute").ok());
}

}  // namespace
}  // namespace sluice::ipc
