#include "ipc/xrl.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace sluice::ipc {
namespace {

using ::testing::HasSubstr;

TEST(XrlTest, ParsesAndPrints) {
  auto xrl = Xrl::Parse(
      "finder://rib/rib/1.0/add_route4?protocol:txt=static&network:ipv4net=10.0.0.0/8"
      "&nexthop:ipv4=192.0.2.1");
  ASSERT_TRUE(xrl.ok()) << xrl.status();
  EXPECT_EQ(xrl->target, "rib");
  EXPECT_EQ(xrl->interface, "rib");
  EXPECT_EQ(xrl->version, "1.0");
  EXPECT_EQ(xrl->method, "add_route4");
  ASSERT_EQ(xrl->args.size(), 3u);
  EXPECT_EQ(xrl->args[2].value().ipv4().ToString(), "192.0.2.1");
  EXPECT_EQ(xrl->ToString(),
            "finder://rib/rib/1.0/add_route4?protocol:txt=static&network:ipv4net=10.0.0.0/8"
            "&nexthop:ipv4=192.0.2.1");
  auto method = xrl->method_name();
  ASSERT_TRUE(method.ok());
  EXPECT_EQ(method->path(), "/sluice.rib.v1.Rib/AddRoute4");
}

TEST(XrlTest, NoArgumentsAndWhiteSpace) {
  auto xrl = Xrl::Parse("  finder://bgp-2/common/1.0/get_status \n");
  ASSERT_TRUE(xrl.ok()) << xrl.status();
  EXPECT_EQ(xrl->target, "bgp-2");
  EXPECT_TRUE(xrl->args.empty());
  EXPECT_EQ(xrl->ToString(), "finder://bgp-2/common/1.0/get_status");
  EXPECT_TRUE(Xrl::Parse("finder://a/common/1.0/get_status?").ok());
}

TEST(XrlTest, MalformedXrlsNameThePosition) {
  auto error = [](std::string_view text) {
    auto xrl = Xrl::Parse(text);
    EXPECT_FALSE(xrl.ok()) << text;
    return xrl.ok() ? std::string() : std::string(xrl.status().message());
  };
  EXPECT_THAT(error("rib/rib/1.0/x"), HasSubstr("column 1: an XRL starts with finder://"));
  EXPECT_THAT(error("finder:///rib/1.0/x"), HasSubstr("column 10: bad target name"));
  EXPECT_THAT(error("finder://rib/Rib/1.0/x"), HasSubstr("column 14: bad interface name"));
  EXPECT_THAT(error("finder://rib/rib/1.0"), HasSubstr("bad version"));
  EXPECT_THAT(error("finder://rib/rib/one/x"), HasSubstr("column 18: bad version"));
  EXPECT_THAT(error("finder://rib/rib/1.0/"), HasSubstr("column 22: bad method name"));
  EXPECT_THAT(error("finder://rib/rib/1/x"), HasSubstr("bad XRL version \"1\""));
  EXPECT_THAT(error("finder://rib/rib/1.0/add?a:u32=1&b:ipv4=x"),
              HasSubstr("column 41: argument 2 \"b\": bad ipv4 value \"x\""));
}

}  // namespace
}  // namespace sluice::ipc
