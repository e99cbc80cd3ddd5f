// The progress line: counts and times in, the text a terminal shows out.
#include "base/progress.h"

#include <fcntl.h>
#include <pty.h>
#include <unistd.h>

#include <cstdio>

#include "base/log.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice::base {
namespace {

using ::testing::HasSubstr;

Progress P(std::string_view label, uint64_t done, uint64_t total, double rate, size_t width = 100) {
  Progress p;
  p.label = label;
  p.done = done;
  p.total = total;
  p.rate_per_s = rate;
  p.width = width;
  return p;
}

TEST(ProgressTest, HalfWayShowsBarPercentageRateAndEta) {
  Progress p = P("sluice-replay", 500000, 1000000, 100000, 90);
  const std::string line = FormatProgress(p);
  EXPECT_THAT(line, HasSubstr("sluice-replay ["));
  EXPECT_THAT(line, HasSubstr("  50.0%  500k/1.00M prefixes  100k/s  ETA 0:05"));
  const size_t open = line.find('['), close = line.find(']');
  ASSERT_NE(close, std::string::npos);
  const std::string bar = line.substr(open + 1, close - open - 1);
  EXPECT_EQ(bar, "##########----------") << "half of 20 cells: " << line;
  EXPECT_LE(line.size(), 90u);
}

TEST(ProgressTest, DoneAndBeyondIsAFullBarAndNoTimeLeft) {
  const std::string line = FormatProgress(P("x", 1200, 1000, 50, 60));
  EXPECT_THAT(line, HasSubstr("100.0%"));
  EXPECT_THAT(line, HasSubstr("ETA 0:00"));
  EXPECT_EQ(line.find('-'), std::string::npos) << line;
}

TEST(ProgressTest, UnknownTotalOrRate) {
  EXPECT_EQ(FormatProgress(P("main job", 42, 0, 7)), "main job  42 prefixes  7/s");
  EXPECT_THAT(FormatProgress(P("r", 0, 10, 0)), HasSubstr("ETA --"));
  EXPECT_THAT(FormatProgress(P("r", 10, 10, 0)), HasSubstr("ETA 0:00"));
}

TEST(ProgressTest, NoteAndNarrowWidth) {
  Progress p = P("sluice-replay", 1, 2, 1);
  p.note = "1 of 1";
  EXPECT_THAT(FormatProgress(p), HasSubstr("  1 of 1"));
  p.width = 30;
  EXPECT_EQ(FormatProgress(p).size(), 30u);
}

TEST(ProgressTest, HumanCountsAndEtas) {
  EXPECT_EQ(HumanCount(0), "0");
  EXPECT_EQ(HumanCount(999), "999");
  EXPECT_EQ(HumanCount(1234), "1.23k");
  EXPECT_EQ(HumanCount(45678), "45.7k");
  EXPECT_EQ(HumanCount(999999), "1.00M");
  EXPECT_EQ(HumanCount(2.5e9), "2.50G");
  EXPECT_EQ(FormatEta(5), "0:05");
  EXPECT_EQ(FormatEta(754), "12:34");
  EXPECT_EQ(FormatEta(3723), "1:02:03");
  EXPECT_EQ(FormatEta(-1), "--");
}

TEST(ProgressTest, NotATerminalWritesPlainLines) {
  FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    ProgressLine line(f);
    EXPECT_FALSE(line.terminal());
    line.Update("[bar 1]", "plain 1");
    line.Update("[bar 2]", "plain 2");
  }
  std::rewind(f);
  char buf[128] = {};
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  EXPECT_EQ(std::string(buf, n), "plain 1\nplain 2\n");
  std::fclose(f);
}

// Everything written to the terminal's other end so far.
std::string Drain(int master) {
  std::string out;
  char buf[512];
  for (ssize_t n; (n = read(master, buf, sizeof buf)) > 0;) out.append(buf, size_t(n));
  return out;
}

TEST(ProgressTest, OnATerminalTheLineIsRedrawnAndALogLineClearsItFirst) {
  int master = -1, slave = -1;
  termios raw{};
  cfmakeraw(&raw);
  if (openpty(&master, &slave, nullptr, &raw, nullptr) != 0) GTEST_SKIP() << "no pseudo-terminal";
  FILE* tty = fdopen(slave, "w");
  ASSERT_NE(tty, nullptr);
  fcntl(master, F_SETFL, O_NONBLOCK);
  {
    ProgressLine line(tty);
    ASSERT_TRUE(line.terminal());
    line.Update("[bar 1]", "plain 1");
    line.Update("[bar 2]", "plain 2");
    EXPECT_EQ(Drain(master), "\r[bar 1]\x1b[K\r[bar 2]\x1b[K");
    SLUICE_LOG(kError) << "a log line (expected in this test's output)";
    EXPECT_EQ(Drain(master), "\r\x1b[K") << "the bar is cleared before the log line";
    line.Update("[bar 3]", "plain 3");
  }
  EXPECT_EQ(Drain(master), "\r[bar 3]\x1b[K\n") << "and drawn again; the end adds a newline";
  std::fclose(tty);
  close(master);
}

}  // namespace
}  // namespace sluice::base
