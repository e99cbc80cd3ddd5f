// NexthopCache is read by every shard of the shard stage: lookups, uses and releases from
// several threads at once while the event loop applies answers and invalidations (run under
// ThreadSanitizer in CI).
#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <thread>

#include "bgp/stages/nexthop_cache.h"
#include "tests/bgp/stages_fakes.h"

namespace sluice::bgp {
namespace {

TEST(NexthopCacheThreads, LookupsFromManyThreadsWhileAnswersArrive) {
  boost::asio::io_context io;
  testing::FakeInterest interest(io);
  interest.routes[net::Prefix::Parse("10.0.0.0/8").value()] = 7;
  NexthopCache cache(io, &interest);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> answered{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < 4; ++t) {
    workers.emplace_back([&, t] {
      for (uint32_t i = 0; !stop.load(); i = (i + 1) % 64) {
        const net::IPAddress nh(net::IPv4Address(0x0a000000 + (uint32_t(t) << 16) + i));
        cache.Use(nh);
        if (std::optional<NexthopAnswer> a = cache.Lookup(nh)) {
          EXPECT_TRUE(a->resolvable);
          EXPECT_EQ(a->metric, 7u);
          answered.fetch_add(1);
        }
        cache.Release(nh);
      }
    });
  }
  // The event loop delivers answers and invalidations meanwhile (FakeInterest is called from
  // the worker threads too; it posts its answers to the loop).
  // Until enough lookups were answered from the cache (or, should that never happen, a
  // deadline far beyond what it takes: the assertion below then fails).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (int round = 1; answered.load() < 10000 && std::chrono::steady_clock::now() < deadline;
       ++round) {
    io.restart();
    io.poll();
    if (round % 100 == 0) cache.OnInvalid(net::Prefix::Parse("10.0.0.0/8").value());
    std::this_thread::yield();
  }
  stop = true;
  for (auto& w : workers) w.join();
  io.restart();
  io.poll();
  EXPECT_GE(answered.load(), 10000u);
}

// A new RIB (a RIB restart): every used nexthop is asked again, and the old answers keep
// answering until the new ones come, so the routes using them do not flap.
TEST(NexthopCache, ARibRestartKeepsTheOldAnswersUntilTheNewOnesCome) {
  boost::asio::io_context io;
  testing::FakeInterest interest(io);
  interest.routes[net::Prefix::Parse("10.0.0.0/8").value()] = 7;
  NexthopCache cache(io, &interest);
  const net::IPAddress nh(net::IPv4Address(0x0a000001));
  cache.Use(nh);
  EXPECT_FALSE(cache.Lookup(nh).has_value());
  io.poll();
  io.restart();
  ASSERT_TRUE(cache.Lookup(nh).has_value());
  const int asked = interest.registrations;

  interest.hold = true;  // the new RIB answers later
  interest.routes[net::Prefix::Parse("10.0.0.0/8").value()] = 9;
  cache.OnRibBorn();
  io.poll();
  io.restart();
  EXPECT_EQ(interest.registrations, asked + 1) << "asked the new RIB again";
  std::optional<NexthopAnswer> meanwhile = cache.Lookup(nh);
  ASSERT_TRUE(meanwhile.has_value()) << "the old answer stands in";
  EXPECT_TRUE(meanwhile->resolvable);
  EXPECT_EQ(meanwhile->metric, 7u);

  interest.Release();
  io.poll();
  io.restart();
  std::optional<NexthopAnswer> now = cache.Lookup(nh);
  ASSERT_TRUE(now.has_value());
  EXPECT_EQ(now->metric, 9u) << "the new RIB's answer";
}

}  // namespace
}  // namespace sluice::bgp
