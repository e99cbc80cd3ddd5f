// The structured line format (logfmt), its escaping, the syslog datagram, and lines reaching a
// syslog socket.
#include "base/log.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice::base {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

const absl::Time kWhen = absl::FromUnixMicros(1795726800123456);  // 2026-11-26T21:00:00.123456Z

TEST(LogFormatTest, LineHasTimestampLevelProcMessageAndFields) {
  EXPECT_EQ(FormatLogLine(kWhen, LogLevel::kInfo, "bgp", "peer 127.0.0.2 AS65001 Established",
                          {{"peer", "127.0.0.2"}, {"as", "65001"}}),
            "ts=2026-11-26T21:00:00.123456Z level=info proc=bgp "
            "msg=\"peer 127.0.0.2 AS65001 Established\" peer=127.0.0.2 as=65001");
  EXPECT_EQ(FormatLogLine(kWhen, LogLevel::kWarning, "fea", "", {}),
            "ts=2026-11-26T21:00:00.123456Z level=warning proc=fea msg=\"\"");
}

TEST(LogFormatTest, QuotesAndEscapesValuesThatWouldBreakTheLine) {
  EXPECT_EQ(LogfmtValue("plain"), "plain");
  EXPECT_EQ(LogfmtValue(""), "\"\"");
  EXPECT_EQ(LogfmtValue("two words"), "\"two words\"");
  EXPECT_EQ(LogfmtValue("a=b"), "\"a=b\"");
  EXPECT_EQ(LogfmtValue("say \"hi\""), "\"say \\\"hi\\\"\"");
  EXPECT_EQ(LogfmtValue("back\\slash"), "\"back\\\\slash\"");
  EXPECT_EQ(LogfmtValue("line1\nline2\r\tx"), "\"line1\\nline2\\r\\tx\"");
  EXPECT_EQ(LogfmtValue(std::string("nul\0bell\x07", 9)), "\"nul\\x00bell\\x07\"");
  EXPECT_EQ(LogfmtValue("x", true), "\"x\"");
}

TEST(LogFormatTest, AMultiLineMessageStaysOneLine) {
  const std::string line = FormatLogLine(kWhen, LogLevel::kError, "rib", "first\nsecond \"q\"",
                                         {{"reason", "bad\nthing"}, {"bad key", "v"}});
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  EXPECT_THAT(line, HasSubstr("msg=\"first\\nsecond \\\"q\\\"\""));
  EXPECT_THAT(line, HasSubstr("reason=\"bad\\nthing\""));
  EXPECT_THAT(line, HasSubstr(" bad_key=v"));
}

TEST(LogFormatTest, SyslogDatagramIsRfc3164WithDaemonFacility) {
  setenv("TZ", "UTC", 1);
  tzset();
  const std::string d = FormatSyslogDatagram(kWhen, LogLevel::kWarning, "bgp", 42, "down", {});
  // daemon (3) * 8 + warning (4) = 28.
  EXPECT_EQ(d, "<28>Nov 26 21:00:00 sluice-bgp[42]: level=warning proc=bgp msg=\"down\"");
  EXPECT_THAT(FormatSyslogDatagram(kWhen, LogLevel::kDebug, "rib", 1, "x", {}), StartsWith("<31>"));
}

TEST(LogFormatTest, ParsesLevelsAndDestinations) {
  LogLevel level = LogLevel::kInfo;
  EXPECT_TRUE(ParseLogLevel("debug", &level));
  EXPECT_EQ(level, LogLevel::kDebug);
  EXPECT_TRUE(ParseLogLevel("warning", &level));
  EXPECT_EQ(LogLevelName(level), "warning");
  EXPECT_FALSE(ParseLogLevel("loud", &level));
  LogDestination dest = LogDestination::kStderr;
  EXPECT_TRUE(ParseLogDestination("journal", &dest));
  EXPECT_EQ(LogDestinationName(dest), "journal");
  EXPECT_FALSE(ParseLogDestination("printer", &dest));
}

TEST(LogSyslogTest, LinesReachTheSyslogSocketWithTheirFields) {
  const std::string path = testing::TempDir() + "/log_test_syslog.sock";
  unlink(path.c_str());
  const int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  timeval timeout{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);

  SetLogTag("test");
  ASSERT_TRUE(SetLogDestination(LogDestination::kSyslog, path).ok());
  SLUICE_LOG(kWarning).Field("peer", "127.0.0.2")
      << "hold timer " << 90 << "s expired" << Kv("code", 4);
  SetLogLevel(LogLevel::kInfo);
  SLUICE_LOG(kDebug) << "not sent";
  SLUICE_LOG(kInfo) << "second";
  char buf[2048];
  const ssize_t n = recv(fd, buf, sizeof buf, 0);
  ASSERT_GT(n, 0);
  const std::string got(buf, static_cast<size_t>(n));
  EXPECT_THAT(got, StartsWith("<28>"));
  EXPECT_THAT(got, HasSubstr(" sluice-test["));
  EXPECT_THAT(got, HasSubstr("level=warning proc=test msg=\"hold timer 90s expired\" "
                             "peer=127.0.0.2 code=4"));
  const ssize_t m = recv(fd, buf, sizeof buf, 0);
  ASSERT_GT(m, 0);
  EXPECT_THAT(std::string(buf, static_cast<size_t>(m)), HasSubstr("msg=\"second\""))
      << "the debug line is below the level and is not sent";
  ASSERT_TRUE(SetLogDestination(LogDestination::kStderr).ok());
  close(fd);
  unlink(path.c_str());
}

TEST(LogSyslogTest, PathTooLongIsRefused) {
  EXPECT_FALSE(SetLogDestination(LogDestination::kSyslog, std::string(200, 'x')).ok());
}

}  // namespace
}  // namespace sluice::base
