// Plumbing at run time: inserting a stage into a live chain, splicing it out, retiring it after
// the current event, merge points with several parents, and the text form of the network.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "stage/capture_stage.h"
#include "stage/plumber.h"
#include "tests/stage/test_route.h"
#include "tests/testing/golden.h"

namespace sluice::stage {
namespace {

using testing::R;
using testing::TestOrigin;
using testing::TestRoute;

// Adds `delta` to every route's metric on the way down (and on lookups).
class MetricStage : public LinearStage<TestRoute> {
 public:
  MetricStage(std::string name, int delta, int* destroyed = nullptr)
      : LinearStage(std::move(name)), delta_(delta), destroyed_(destroyed) {}
  ~MetricStage() override {
    if (destroyed_) ++*destroyed_;
  }
  std::string_view kind() const override { return "Metric"; }
  TestRoute Apply(TestRoute r) const {
    r.metric += delta_;
    return r;
  }
  void add_route(const TestRoute& r, Base*) override { downstream_->add_route(Apply(r), this); }
  void delete_route(const TestRoute& r, Base*) override {
    downstream_->delete_route(Apply(r), this);
  }
  void replace_route(const TestRoute& o, const TestRoute& n, Base*) override {
    downstream_->replace_route(Apply(o), Apply(n), this);
  }
  std::optional<TestRoute> lookup_route(const net::Prefix& p) const override {
    auto r = upstream_->lookup_route(p);
    if (r) return Apply(*r);
    return r;
  }

 private:
  int delta_;
  int* destroyed_;
};

// Two parents; the lower metric wins (a toy merge stage, enough to test multi-parent plumbing).
class ToyMerge : public Stage<TestRoute> {
 public:
  using Stage::Stage;
  std::string_view kind() const override { return "Merge"; }
  void add_route(const TestRoute& r, Stage*) override { down_->add_route(r, this); }
  void delete_route(const TestRoute& r, Stage*) override { down_->delete_route(r, this); }
  void push(Stage*) override { down_->push(this); }
  std::optional<TestRoute> lookup_route(const net::Prefix& p) const override {
    std::optional<TestRoute> best;
    for (auto* up : ups_) {
      auto r = up->lookup_route(p);
      if (r && (!best || r->metric < best->metric)) best = r;
    }
    return best;
  }
  std::vector<const StageBase*> upstream_stages() const override {
    return {ups_.begin(), ups_.end()};
  }
  std::vector<const StageBase*> downstream_stages() const override { return {down_}; }
  void ConnectUpstream(Stage* s) override { ups_.push_back(s); }
  void ConnectDownstream(Stage* s) override { down_ = s; }
  void DisconnectUpstream(Stage* s) override { std::erase(ups_, s); }
  void DisconnectDownstream(Stage* s) override {
    if (down_ == s) down_ = nullptr;
  }
  void ReplaceUpstream(Stage* o, Stage* n) override {
    std::replace(ups_.begin(), ups_.end(), o, n);
  }
  void ReplaceDownstream(Stage* o, Stage* n) override {
    if (down_ == o) down_ = n;
  }
  const std::vector<Stage*>& ups() const { return ups_; }

 private:
  std::vector<Stage*> ups_;
  Stage* down_ = nullptr;
};

TEST(Plumber, InsertAndSpliceOutWhileRoutesFlow) {
  boost::asio::io_context io;
  Plumber plumber(io);
  auto* origin = plumber.Make<TestOrigin>("origin");
  auto* capture = plumber.Make<CaptureStage<TestRoute>>("capture", /*record_push=*/false);
  Plumber::Plumb<TestRoute>(origin, capture);

  origin->Add(R("10.0.0.0/8", 1));
  int destroyed = 0;
  auto* plus10 = plumber.Make<MetricStage>("plus10", 10, &destroyed);
  Plumber::InsertAfter<TestRoute>(origin, plus10);
  origin->Add(R("10.1.0.0/16", 1));
  EXPECT_EQ(capture->lookup_route(net::Prefix::Parse("10.1.0.0/16").value())->metric, 11);

  capture->Note("splice out plus10");
  plumber.SpliceOut<TestRoute>(plus10);
  EXPECT_EQ(destroyed, 0) << "a retired stage lives until the current event ends";
  EXPECT_EQ(plumber.stages().size(), 2u);
  origin->Add(R("10.2.0.0/16", 1));
  EXPECT_EQ(capture->lookup_route(net::Prefix::Parse("10.2.0.0/16").value())->metric, 1);
  io.run();
  EXPECT_EQ(destroyed, 1);
  EXPECT_EQ(plumber.size(), 2u);
  EXPECT_EQ(origin->downstream(), capture);
  EXPECT_EQ(capture->upstream(), origin);
  EXPECT_GOLDEN(capture->Text(), "tests/stage/golden/insert_splice.trace");
}

TEST(Plumber, StageRetiresItselfFromInsideAnEvent) {
  boost::asio::io_context io;
  Plumber plumber(io);
  auto* origin = plumber.Make<TestOrigin>("origin");
  auto* capture = plumber.Make<CaptureStage<TestRoute>>("capture", false);
  int destroyed = 0;
  auto* temp = plumber.Make<MetricStage>("temp", 5, &destroyed);
  Plumber::Plumb<TestRoute>(origin, temp);
  Plumber::Plumb<TestRoute>(temp, capture);
  boost::asio::post(io, [&] {
    origin->Add(R("192.0.2.0/24"));
    plumber.SpliceOut<TestRoute>(temp);  // as a dynamic stage does when its work is done
    origin->Add(R("198.51.100.0/24"));
  });
  io.run();
  EXPECT_EQ(destroyed, 1);
  EXPECT_EQ(capture->trace(), (std::vector<std::string>{"add 192.0.2.0/24 metric 5",
                                                        "add 198.51.100.0/24 metric 0"}));
}

TEST(Plumber, MergePointKeepsParentOrderWhenAParentIsReplaced) {
  boost::asio::io_context io;
  Plumber plumber(io);
  auto* a = plumber.Make<TestOrigin>("static");
  auto* b = plumber.Make<TestOrigin>("ebgp");
  auto* merge = plumber.Make<ToyMerge>("merge");
  auto* capture = plumber.Make<CaptureStage<TestRoute>>("fea", false);
  Plumber::Plumb<TestRoute>(a, merge);
  Plumber::Plumb<TestRoute>(b, merge);
  Plumber::Plumb<TestRoute>(merge, capture);
  a->Add(R("10.0.0.0/8", 20));
  b->Add(R("10.0.0.0/8", 7));
  auto p = net::Prefix::Parse("10.0.0.0/8").value();
  EXPECT_EQ(capture->lookup_route(p)->metric, 7);

  // A deletion-style stage goes in between b and the merge point, in b's place.
  auto* plus100 = plumber.Make<MetricStage>("plus100", 100);
  plus100->set_dynamic(true);
  Plumber::InsertBetween<TestRoute>(b, merge, plus100);
  EXPECT_EQ(merge->ups(), (std::vector<Stage<TestRoute>*>{a, plus100}));
  EXPECT_EQ(capture->lookup_route(p)->metric, 20);
  EXPECT_EQ(plumber.Describe(),
            "static [Origin]\n"
            "  merge [Merge]\n"
            "    fea [Capture] lines=2\n"
            "ebgp [Origin]\n"
            "  plus100 [Metric] dynamic\n"
            "    -> merge (above)\n");
  plumber.SpliceOut<TestRoute>(plus100);
  EXPECT_EQ(merge->ups(), (std::vector<Stage<TestRoute>*>{a, b}));
  EXPECT_EQ(capture->lookup_route(p)->metric, 7);
  io.run();
  EXPECT_EQ(plumber.size(), 4u);
}

}  // namespace
}  // namespace sluice::stage
