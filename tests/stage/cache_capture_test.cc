// CacheStage catches a stage that breaks the consistency rules; CaptureStage traces compare
// with golden files.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>

#include "stage/cache_stage.h"
#include "stage/capture_stage.h"
#include "stage/plumber.h"
#include "tests/stage/test_route.h"
#include "tests/testing/golden.h"

namespace sluice::stage {
namespace {

using testing::R;
using testing::TestOrigin;
using testing::TestRoute;

// Drops routes with metric >= limit. The buggy variant forgets to filter deletes and lookups,
// breaking both rules: deletes without adds, lookups answering routes never sent.
class MetricFilter : public LinearStage<TestRoute> {
 public:
  MetricFilter(std::string name, int limit, bool buggy)
      : LinearStage(std::move(name)), limit_(limit), buggy_(buggy) {}
  std::string_view kind() const override { return "Filter"; }
  bool Pass(const TestRoute& r) const { return r.metric < limit_; }
  void add_route(const TestRoute& r, Base* c) override {
    if (Pass(r)) LinearStage::add_route(r, c);
  }
  void delete_route(const TestRoute& r, Base* c) override {
    if (buggy_ || Pass(r)) LinearStage::delete_route(r, c);
  }
  void replace_route(const TestRoute& o, const TestRoute& n, Base* c) override {
    if (Pass(o) && Pass(n)) return LinearStage::replace_route(o, n, c);
    if (Pass(o)) return LinearStage::delete_route(o, c);
    if (Pass(n)) return LinearStage::add_route(n, c);
  }
  std::optional<TestRoute> lookup_route(const net::Prefix& p) const override {
    auto r = LinearStage::lookup_route(p);
    if (r && !buggy_ && !Pass(*r)) return std::nullopt;
    return r;
  }

 private:
  int limit_;
  bool buggy_;
};

struct Chain {
  boost::asio::io_context io;
  Plumber plumber{io};
  TestOrigin* origin;
  MetricFilter* filter;
  CacheStage<TestRoute>* cache;
  CaptureStage<TestRoute>* capture;

  explicit Chain(bool buggy) {
    origin = plumber.Make<TestOrigin>("origin");
    filter = plumber.Make<MetricFilter>("filter", 100, buggy);
    cache = plumber.Make<CacheStage<TestRoute>>("cache");
    capture = plumber.Make<CaptureStage<TestRoute>>("capture");
    Plumber::Plumb<TestRoute>(origin, filter);
    Plumber::Plumb<TestRoute>(filter, cache);
    Plumber::Plumb<TestRoute>(cache, capture);
  }
  void Drive() {
    origin->Add(R("10.0.0.0/8", 5));
    origin->Add(R("10.1.0.0/16", 500));  // filtered
    origin->Push();
    origin->Add(R("10.0.0.0/8", 700));  // replace: now filtered -> delete downstream
    origin->Add(R("10.1.0.0/16", 50));  // replace: now passes -> add downstream
    origin->Delete(net::Prefix::Parse("10.1.0.0/16").value());
    origin->Add(R("192.0.2.0/24", 1));
    origin->Push();
  }
};

TEST(CacheStage, ConsistentStageHasNoViolations) {
  Chain chain(/*buggy=*/false);
  chain.Drive();
  EXPECT_EQ(chain.cache->Verify(), 0u);
  for (const char* p : {"10.0.0.0/8", "10.1.0.0/16", "192.0.2.0/24", "203.0.113.0/24"}) {
    chain.capture->lookup_route(net::Prefix::Parse(p).value());
  }
  EXPECT_TRUE(chain.cache->violations().empty()) << chain.cache->violations().front();
  EXPECT_EQ(chain.cache->route_count(), 1u);
  EXPECT_GOLDEN(chain.capture->Text(), "tests/stage/golden/metric_filter.trace");
}

TEST(CacheStage, CatchesAnInconsistentStage) {
  Chain chain(/*buggy=*/true);
  chain.origin->Add(R("10.1.0.0/16", 500));                         // filtered on add...
  chain.origin->Delete(net::Prefix::Parse("10.1.0.0/16").value());  // ...but the delete leaks
  ASSERT_EQ(chain.cache->violations().size(), 1u);
  EXPECT_EQ(chain.cache->violations()[0],
            "cache: delete of 10.1.0.0/16 metric 500 that was never added");

  chain.origin->Add(R("10.2.0.0/16", 900));  // filtered, but lookups still answer it
  chain.capture->lookup_route(net::Prefix::Parse("10.2.0.0/16").value());
  ASSERT_EQ(chain.cache->violations().size(), 2u);
  EXPECT_EQ(chain.cache->violations()[1],
            "cache: lookup of 10.2.0.0/16 answered 10.2.0.0/16 metric 900 but nothing was sent");
}

TEST(CacheStage, CatchesDoubleAddAndMismatchedDelete) {
  boost::asio::io_context io;
  Plumber plumber(io);
  std::vector<std::string> reported;
  auto* cache = plumber.Make<CacheStage<TestRoute>>(
      "c", [&](const std::string& v) { reported.push_back(v); });
  cache->add_route(R("10.0.0.0/8", 1), nullptr);
  cache->add_route(R("10.0.0.0/8", 2), nullptr);
  cache->delete_route(R("10.0.0.0/8", 3), nullptr);
  cache->replace_route(R("10.9.0.0/16", 1), R("10.9.0.0/16", 2), nullptr);
  EXPECT_EQ(reported, (std::vector<std::string>{
                          "c: add of 10.0.0.0/8 metric 2 while 10.0.0.0/8 metric 1 was not deleted",
                          "c: delete of 10.0.0.0/8 metric 3 does not match the add of 10.0.0.0/8 "
                          "metric 2",
                          "c: replace of 10.9.0.0/16 metric 1 that was never added"}));
  EXPECT_EQ(cache->violations(), reported);
}

}  // namespace
}  // namespace sluice::stage
