// `protocols { bgp { mrt { ... } } }`: the block as the issue writes it is read, printed back the
// same, and its errors name what is wrong; changing or removing it is a delta of its own that
// touches no session.
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "rtrmgr/config/config_delta.h"
#include "rtrmgr/config/config_loader.h"
#include "rtrmgr/config/config_printer.h"

namespace sluice::rtrmgr {
namespace {

const char kMrt[] =
    "mrt { table-dump \"/var/lib/sluice/rib.%Y%m%d.%H%M\" { interval 2h; } "
    "updates \"/var/lib/sluice/updates.%Y%m%d.%H%M\" { rotate 15m; } }";

std::string Text(const std::string& mrt) {
  return absl::StrCat(
      "fea { backend dummy; }\nprotocols {\n    bgp {\n        local-as 65000;\n"
      "        bgp-id 192.0.2.1;\n        ",
      mrt, "\n        peer 127.0.0.2 { as 65001; local-ip 127.0.0.1; }\n    }\n}\n");
}

TEST(ConfigMrt, ReadAsWrittenAndPrintedBack) {
  auto c = ParseConfig(Text(kMrt), "t.conf");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->bgp.mrt.table_dump, "/var/lib/sluice/rib.%Y%m%d.%H%M");
  EXPECT_EQ(c->bgp.mrt.table_dump_interval_s, 7200u);
  EXPECT_EQ(c->bgp.mrt.updates, "/var/lib/sluice/updates.%Y%m%d.%H%M");
  EXPECT_EQ(c->bgp.mrt.updates_rotate_s, 900u);
  const std::string printed = PrintConfig(*c);
  EXPECT_NE(printed.find("table-dump \"/var/lib/sluice/rib.%Y%m%d.%H%M\" {\n"), std::string::npos)
      << printed;
  EXPECT_NE(printed.find("rotate 15m;"), std::string::npos) << printed;
  auto again = ParseConfig(printed, "printed.conf");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->bgp.mrt, c->bgp.mrt);
  // Blocks are optional: the defaults are 2h and 15m.
  auto bare = ParseConfig(Text("mrt { updates \"/tmp/u.%H%M\"; }"), "t.conf");
  ASSERT_TRUE(bare.ok()) << bare.status();
  EXPECT_TRUE(bare->bgp.mrt.table_dump.empty());
  EXPECT_EQ(bare->bgp.mrt.updates_rotate_s, 900u);
}

TEST(ConfigMrt, ErrorsNameWhatIsWrong) {
  const struct {
    const char* mrt;
    const char* error;
  } cases[] = {
      {"mrt { table-dump \"rib.%Y\"; }", "table-dump: \"rib.%Y\" is not an absolute path"},
      {"mrt { table-dump \"/r\" { interval 10s; } }", "interval 10s is out of range 1m..168h"},
      {"mrt { updates \"/u\" { rotate 2d; } }", "expected rotate (a duration such as 90s"},
      {"mrt { updates \"/u\" { interval 1h; } }",
       "unknown keyword 'interval' in updates (expected one of: rotate)"},
      {"mrt { dump \"/u\"; }",
       "unknown keyword 'dump' in mrt (expected one of: table-dump, updates)"},
  };
  for (const auto& c : cases) {
    auto r = ParseConfig(Text(c.mrt), "t.conf");
    ASSERT_FALSE(r.ok()) << c.mrt;
    EXPECT_NE(r.status().message().find(c.error), std::string::npos) << c.mrt << "\n"
                                                                     << r.status().message();
  }
}

TEST(ConfigMrt, ChangesAreTheirOwnDelta) {
  auto none = ParseConfig(Text(""), "t.conf");
  auto both = ParseConfig(Text(kMrt), "t.conf");
  auto faster =
      ParseConfig(Text(absl::StrReplaceAll(kMrt, {{"rotate 15m", "rotate 5m"}})), "t.conf");
  ASSERT_TRUE(none.ok() && both.ok() && faster.ok());
  for (const auto& [from, to] :
       {std::pair{&*none, &*both}, std::pair{&*both, &*faster}, std::pair{&*both, &*none}}) {
    const ConfigDelta d = ComputeDelta(*from, *to);
    EXPECT_TRUE(d.bgp.mrt_changed);
    EXPECT_FALSE(d.bgp.identity_changed);
    EXPECT_TRUE(d.bgp.peers.empty()) << d.ToString();
    EXPECT_NE(d.ToString().find("bgp: mrt"), std::string::npos) << d.ToString();
  }
  EXPECT_TRUE(ComputeDelta(*both, *both).empty());
  EXPECT_NE(ComputeDelta(*both, *faster)
                .ToString()
                .find("updates \"/var/lib/sluice/updates.%Y%m%d.%H%M\" rotate 15m -> "),
            std::string::npos)
      << ComputeDelta(*both, *faster).ToString();
}

}  // namespace
}  // namespace sluice::rtrmgr
