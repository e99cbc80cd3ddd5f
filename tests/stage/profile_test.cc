#include "stage/profile.h"

#include <gtest/gtest.h>

#include <thread>

namespace sluice::stage {
namespace {

TEST(Profiler, RecordsOnlyWhenEnabled) {
  Profiler profiler;
  ProfilePoint* p = profiler.Point("route_in");
  EXPECT_EQ(profiler.Point("route_in"), p);
  EXPECT_FALSE(p->enabled());
  p->Record("10.0.0.0/8");
  EXPECT_TRUE(p->Entries().empty());
  p->set_enabled(true);
  p->Record("10.0.0.0/8");
  std::thread t([&] { p->Record("10.1.0.0/16"); });
  t.join();
  auto entries = p->Entries();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].text, "10.0.0.0/8");
  EXPECT_LE(entries[0].when, entries[1].when);
  p->Clear();
  EXPECT_TRUE(p->Entries().empty());
  EXPECT_EQ(profiler.Names(), std::vector<std::string>{"route_in"});
  EXPECT_FALSE(profiler.Find("nope").ok());
  EXPECT_EQ(profiler.Find("nope").status().message(), "no profiling point 'nope'");
}

}  // namespace
}  // namespace sluice::stage
