// The log block: at the top level and inside process blocks, printed back, errors, the delta.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rtrmgr/config/config_delta.h"
#include "rtrmgr/config/config_loader.h"
#include "rtrmgr/config/config_printer.h"

namespace sluice::rtrmgr {
namespace {

using ::testing::HasSubstr;

constexpr char kText[] = R"(
fea { backend dummy; log { level debug; } }
protocols {
    static { log { destination journal; } }
}
finder { log { level error; } }
log { level warning; destination syslog; syslog-socket "/run/test.sock"; }
)";

TEST(ConfigLog, ProcessBlocksOverrideTheTopLevel) {
  auto c = ParseConfig(kText, "t.conf");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->log.all.level, base::LogLevel::kWarning);
  const LogSettings fea = c->log.For("fea");
  EXPECT_EQ(fea.level, base::LogLevel::kDebug);
  EXPECT_EQ(fea.destination, base::LogDestination::kSyslog);
  EXPECT_EQ(fea.syslog_socket, "/run/test.sock");
  const LogSettings st = c->log.For("static");
  EXPECT_EQ(st.level, base::LogLevel::kWarning);
  EXPECT_EQ(st.destination, base::LogDestination::kJournal);
  EXPECT_EQ(c->log.For("rib"), c->log.all);
  // The static block holds no route but its log block: printed, and read back the same.
  const std::string printed = PrintConfig(*c);
  EXPECT_THAT(printed, HasSubstr("    static {\n        log {\n            destination journal;"));
  EXPECT_THAT(printed, HasSubstr("finder {\n    log {\n        level error;"));
  auto again = ParseConfig(printed, "printed.conf");
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << printed;
  EXPECT_EQ(*again, *c) << printed;
}

TEST(ConfigLog, BadValuesNameTheirPlace) {
  auto bad = ParseConfig("log { level loud; }\n", "t.conf");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("t.conf:1:13: unknown log level"));
  bad = ParseConfig("rib { log { destination printer; } }\n", "t.conf");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("unknown log destination"));
  bad = ParseConfig("log { syslog-socket relative.sock; }\n", "t.conf");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("absolute path"));
  bad = ParseConfig("rib { log { } log { } }\n", "t.conf");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("log given twice in rib"));
}

TEST(ConfigLog, DeltaNamesTheProcessesThatLogDifferently) {
  auto before = ParseConfig("fea { backend dummy; }\n", "a.conf");
  auto after = ParseConfig("fea { backend dummy; }\nrib { log { level debug; } }\n", "b.conf");
  ASSERT_TRUE(before.ok() && after.ok());
  const ConfigDelta d = ComputeDelta(*before, *after);
  ASSERT_EQ(d.log.size(), 1u);
  EXPECT_EQ(d.log[0].process, "rib");
  EXPECT_EQ(d.ToString(), "log: rib level info -> debug\n");
  EXPECT_TRUE(ComputeDelta(*after, *after).empty());
  auto top = ParseConfig("fea { backend dummy; }\nlog { destination syslog; }\n", "c.conf");
  ASSERT_TRUE(top.ok());
  const ConfigDelta everyone = ComputeDelta(*before, *top);
  EXPECT_EQ(everyone.log.size(), 7u) << everyone.ToString();
  EXPECT_THAT(everyone.ToString(), HasSubstr("log: bgp destination stderr -> syslog\n"));
}

}  // namespace
}  // namespace sluice::rtrmgr
