// `protocols { bgp { bmp { station ... } } }`: stations are read as written (with the Route
// Monitoring each selects), printed back the same, their errors name file, line and column, and
// changing what a station monitors replaces that station and touches no session.
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "rtrmgr/config/config_delta.h"
#include "rtrmgr/config/config_loader.h"
#include "rtrmgr/config/config_printer.h"

namespace sluice::rtrmgr {
namespace {

std::string Text(const std::string& station_body) {
  return absl::StrCat(
      "fea { backend dummy; }\nprotocols {\n    bgp {\n        local-as 65000;\n"
      "        bgp-id 192.0.2.1;\n        bmp { station 127.0.0.1 { ",
      station_body, " } }\n        peer 127.0.0.2 { as 65001; local-ip 127.0.0.1; }\n    }\n}\n");
}

const BmpStation& OnlyStation(const Config& c) { return c.bgp.bmp_stations.begin()->second; }

TEST(ConfigBmp, RouteMonitoringIsReadAndPrintedBack) {
  auto all = ParseConfig(Text("port 11019;"), "t.conf");
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_TRUE(OnlyStation(*all).pre_policy && OnlyStation(*all).post_policy &&
              OnlyStation(*all).loc_rib);
  EXPECT_EQ(PrintConfig(*all).find("route-monitoring"), std::string::npos);

  auto post = ParseConfig(
      Text("port 11019; buffer-size 8; route-monitoring [ post-policy loc-rib ];"), "t.conf");
  ASSERT_TRUE(post.ok()) << post.status();
  const BmpStation& s = OnlyStation(*post);
  EXPECT_FALSE(s.pre_policy);
  EXPECT_TRUE(s.post_policy);
  EXPECT_TRUE(s.loc_rib);
  EXPECT_EQ(s.buffer_mib, 8u);
  const std::string printed = PrintConfig(*post);
  EXPECT_NE(printed.find("route-monitoring [ post-policy loc-rib ];"), std::string::npos)
      << printed;
  auto again = ParseConfig(printed, "printed.conf");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->bgp.bmp_stations, post->bgp.bmp_stations);
  // One word needs no brackets.
  auto one = ParseConfig(Text("port 11019; route-monitoring pre-policy;"), "t.conf");
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_TRUE(OnlyStation(*one).pre_policy && !OnlyStation(*one).post_policy &&
              !OnlyStation(*one).loc_rib);
}

TEST(ConfigBmp, ErrorsNameWhereAndWhat) {
  const struct {
    const char* body;
    const char* error;
  } cases[] = {
      {"port 11019; route-monitoring [ post-policy adj-rib-out ];",
       "t.conf:6:78: expected 'pre-policy', 'post-policy' or 'loc-rib', found 'adj-rib-out'"},
      {"port 11019; route-monitoring [ loc-rib loc-rib ];",
       "route-monitoring loc-rib is listed twice"},
      {"port 11019; route-monitoring [ ];", "route-monitoring needs at least one of"},
      {"route-monitoring [ loc-rib ];", "station 127.0.0.1 needs 'port N;'"},
  };
  for (const auto& c : cases) {
    auto r = ParseConfig(Text(c.body), "t.conf");
    ASSERT_FALSE(r.ok()) << c.body;
    EXPECT_NE(r.status().message().find(c.error), std::string::npos) << c.body << "\n"
                                                                     << r.status().message();
  }
}

TEST(ConfigBmp, ChangingWhatAStationMonitorsReplacesOnlyThatStation) {
  auto all = ParseConfig(Text("port 11019;"), "t.conf");
  auto post = ParseConfig(Text("port 11019; route-monitoring post-policy;"), "t.conf");
  ASSERT_TRUE(all.ok() && post.ok());
  const ConfigDelta d = ComputeDelta(*all, *post);
  ASSERT_EQ(d.bgp.bmp_added.size(), 1u) << d.ToString();
  ASSERT_EQ(d.bgp.bmp_removed.size(), 1u) << d.ToString();
  EXPECT_FALSE(d.bgp.bmp_added[0].pre_policy);
  EXPECT_TRUE(d.bgp.peers.empty()) << d.ToString();
  EXPECT_FALSE(d.bgp.identity_changed);
}

}  // namespace
}  // namespace sluice::rtrmgr
