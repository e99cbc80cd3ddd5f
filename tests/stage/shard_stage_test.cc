// The shard stage: routes spread over N worker threads by prefix hash give the same
// result downstream as the serial sub-network, keep the consistency rules and come back batch by
// upstream batch; output ports carry flow control, signals and barriers; the runner keeps
// commands in order with routes and answers queries. Labelled tsan: the ThreadSanitizer build runs
// these.
#include "stage/shard_stage.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "stage/background_task.h"
#include "stage/cache_stage.h"
#include "stage/capture_stage.h"
#include "stage/plumber.h"
#include "tests/stage/test_route.h"

namespace sluice::stage {
namespace {

using testing::R;
using testing::TestOrigin;
using testing::TestRoute;

// Drops routes whose metric is a multiple of 5 and doubles the others; stores nothing and looks
// upstream (into the ShardEntry) for lookups.
class Doubler : public LinearStage<TestRoute> {
 public:
  using LinearStage::LinearStage;
  std::string_view kind() const override { return "Doubler"; }
  static std::optional<TestRoute> Apply(const TestRoute& r) {
    if (r.metric % 5 == 0) return std::nullopt;
    return TestRoute{r.network, r.metric * 2};
  }
  void add_route(const TestRoute& r, Stage<TestRoute>*) override { Emit(std::nullopt, Apply(r)); }
  void delete_route(const TestRoute& r, Stage<TestRoute>*) override {
    Emit(Apply(r), std::nullopt);
  }
  void replace_route(const TestRoute& o, const TestRoute& n, Stage<TestRoute>*) override {
    Emit(Apply(o), Apply(n));
  }
  std::optional<TestRoute> lookup_route(const net::Prefix& p) const override {
    std::optional<TestRoute> r = upstream_->lookup_route(p);
    return r ? Apply(*r) : std::nullopt;
  }

 private:
  void Emit(const std::optional<TestRoute>& o, const std::optional<TestRoute>& n) {
    if (downstream_ == nullptr) return;
    if (o && n) {
      downstream_->replace_route(*o, *n, this);
    } else if (o) {
      downstream_->delete_route(*o, this);
    } else if (n) {
      downstream_->add_route(*n, this);
    }
  }
};

// Holds new prefixes back and lets them go in background slices of 3 (as a nexthop resolver
// holds routes until their answer comes): outputs made outside any upstream batch.
class Holder : public LinearStage<TestRoute> {
 public:
  Holder(std::string name, boost::asio::io_context& io)
      : LinearStage(name), task_(io, name, [this] { return Release(); }) {}
  std::string_view kind() const override { return "Holder"; }
  void add_route(const TestRoute& r, Stage<TestRoute>*) override {
    held_[r.network] = true;
    task_.Start();
  }
  void delete_route(const TestRoute& r, Stage<TestRoute>* c) override {
    if (held_.erase(r.network) == 0) LinearStage::delete_route(r, c);
  }
  void replace_route(const TestRoute& o, const TestRoute& n, Stage<TestRoute>* c) override {
    if (!held_.contains(o.network)) LinearStage::replace_route(o, n, c);
  }
  std::optional<TestRoute> lookup_route(const net::Prefix& p) const override {
    if (held_.contains(p)) return std::nullopt;
    return upstream_->lookup_route(p);
  }

 private:
  bool Release() {
    for (int i = 0; i < 3 && !held_.empty(); ++i) {
      const net::Prefix p = held_.begin()->first;
      held_.erase(held_.begin());
      if (std::optional<TestRoute> r = upstream_->lookup_route(p)) {
        if (downstream_ != nullptr) downstream_->add_route(*r, this);
      }
    }
    if (downstream_ != nullptr) downstream_->push(this);
    return !held_.empty();
  }
  std::map<net::Prefix, bool> held_;
  BackgroundTask task_;
};

struct Op {
  enum Kind { kAdd, kDelete, kPush } kind;
  TestRoute route;
};

std::vector<Op> RandomOps(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Op> ops;
  for (int i = 0; i < n; ++i) {
    const int k = rng() % 10;
    const std::string p =
        "10." + std::to_string(rng() % 16) + "." + std::to_string(rng() % 8) + ".0/24";
    if (k < 6) {
      ops.push_back({Op::kAdd, R(p.c_str(), int(rng() % 20))});
    } else if (k < 9) {
      ops.push_back({Op::kDelete, R(p.c_str())});
    } else {
      ops.push_back({Op::kPush, {}});
    }
  }
  ops.push_back({Op::kPush, {}});
  return ops;
}

void Feed(TestOrigin* origin, const std::vector<Op>& ops) {
  for (const Op& op : ops) {
    if (op.kind == Op::kAdd) origin->Add(op.route);
    if (op.kind == Op::kDelete) origin->Delete(op.route.network);
    if (op.kind == Op::kPush) origin->Push();
  }
}

std::map<net::Prefix, TestRoute> StateOf(const CacheStage<TestRoute>& cache,
                                         const TestOrigin& origin) {
  std::map<net::Prefix, TestRoute> out;
  for (int a = 0; a < 16; ++a) {
    for (int b = 0; b < 8; ++b) {
      const std::string p = "10." + std::to_string(a) + "." + std::to_string(b) + ".0/24";
      const net::Prefix prefix = net::Prefix::Parse(p).value();
      if (const TestRoute* r = cache.sent(prefix)) out[prefix] = *r;
      (void)origin;
    }
  }
  return out;
}

// The tests' shard: input port kIn → ShardEntry → [what `build` plumbs] → ShardExit of kOut.
constexpr uint32_t kIn = 1;
constexpr uint32_t kOut = 2;
using TestShard = ShardNetwork<TestRoute>;
using TestShardStage = ShardStage<TestRoute, TestShard>;
using Build = std::function<void(Plumber&, ShardEntry<TestRoute>*, ShardExit<TestRoute>*)>;

TestShardStage::Factory FactoryOf(Build build) {
  return [build](TestShardStage::Context& ctx, ShardOutputs<TestRoute>& outputs) {
    auto shard = std::make_unique<TestShard>();
    Plumber& p = ctx.plumber();
    auto* entry = p.Make<ShardEntry<TestRoute>>("entry#" + std::to_string(ctx.index()));
    auto* exit =
        p.Make<ShardExit<TestRoute>>("exit#" + std::to_string(ctx.index()), &outputs, kOut);
    build(p, entry, exit);
    shard->SetEntry(kIn, entry);
    return shard;
  };
}

class ShardStageTest : public ::testing::TestWithParam<int> {};

// origin → the shard stage (a Doubler in each shard) → capture, on the test's loop.
struct DoublerNetwork {
  explicit DoublerNetwork(int shards)
      : shard(io, Options(shards),
              FactoryOf([](Plumber& p, ShardEntry<TestRoute>* entry, ShardExit<TestRoute>* exit) {
                auto* d = p.Make<Doubler>("doubler");
                Plumber::Plumb<TestRoute>(entry, d);
                Plumber::Plumb<TestRoute>(d, exit);
              })) {
    Plumber::Plumb<TestRoute>(origin, shard.AddInput("in", kIn));
    shard.AddOutput(kOut)->Connect(capture);
  }
  static ShardOptions Options(int shards) {
    ShardOptions options;
    options.shards = shards;
    return options;
  }

  boost::asio::io_context io;
  Plumber plumber{io};
  TestOrigin* origin = plumber.Make<TestOrigin>("origin");
  TestShardStage shard;
  CaptureStage<TestRoute>* capture = plumber.Make<CaptureStage<TestRoute>>("capture");
};

TEST_P(ShardStageTest, SameResultAsTheSerialSubNetworkAndConsistent) {
  const int shards = GetParam();
  const std::vector<Op> ops = RandomOps(3000, 7);

  // Serial: Origin → Doubler → Holder → Cache.
  boost::asio::io_context serial_io;
  Plumber serial(serial_io);
  std::vector<std::string> violations;
  auto on_violation = [&](const std::string& v) { violations.push_back(v); };
  auto* s_origin = serial.Make<TestOrigin>("origin");
  auto* s_doubler = serial.Make<Doubler>("doubler");
  auto* s_holder = serial.Make<Holder>("holder", serial_io);
  auto* s_cache = serial.Make<CacheStage<TestRoute>>("cache", on_violation);
  Plumber::Plumb<TestRoute>(s_origin, s_doubler);
  Plumber::Plumb<TestRoute>(s_doubler, s_holder);
  Plumber::Plumb<TestRoute>(s_holder, s_cache);
  Feed(s_origin, ops);
  serial_io.run();

  // Sharded: Origin → ShardStage[Doubler → Holder] → Cache.
  boost::asio::io_context io;
  Plumber plumber(io);
  auto* origin = plumber.Make<TestOrigin>("origin");
  ShardOptions options;
  options.shards = shards;
  options.batch_items = 16;  // many hand-overs
  TestShardStage shard(
      io, options,
      FactoryOf([](Plumber& p, ShardEntry<TestRoute>* entry, ShardExit<TestRoute>* exit) {
        auto* d = p.Make<Doubler>("doubler");
        auto* h = p.Make<Holder>("holder", p.io());
        Plumber::Plumb<TestRoute>(entry, d);
        Plumber::Plumb<TestRoute>(d, h);
        Plumber::Plumb<TestRoute>(h, exit);
      }));
  auto* cache = plumber.Make<CacheStage<TestRoute>>("cache", on_violation);
  Plumber::Plumb<TestRoute>(origin, shard.AddInput("in", kIn));
  shard.AddOutput(kOut)->Connect(cache);
  Feed(origin, ops);
  shard.Settle();

  // The cache checked the consistency rules on every change it got.
  EXPECT_TRUE(violations.empty()) << violations.front();
  const auto want = StateOf(*s_cache, *s_origin);
  const auto got = StateOf(*cache, *origin);
  EXPECT_GT(want.size(), 20u);
  EXPECT_EQ(got, want);
}

TEST_P(ShardStageTest, UpstreamBatchesReachDownstreamWholeBetweenPushes) {
  DoublerNetwork net(GetParam());
  TestOrigin* origin = net.origin;
  TestShardStage& shard = net.shard;
  CaptureStage<TestRoute>* capture = net.capture;
  // Three batches of 40 prefixes each (spread over every shard), the loop running between them.
  for (int batch = 0; batch < 3; ++batch) {
    for (int i = 0; i < 40; ++i) {
      const std::string p = "10." + std::to_string(batch) + "." + std::to_string(i) + ".0/24";
      origin->Add(R(p.c_str(), 1 + batch));
    }
    origin->Push();
    if (batch == 1) shard.Settle();
  }
  shard.Settle();
  // Every batch's 40 routes arrive together, in batch order: a push never splits a batch, the
  // last change is followed by a push, and the settled first two batches were pushed apart from
  // the third.
  const std::vector<std::string>& t = capture->trace();
  ASSERT_EQ(t.empty(), false);
  EXPECT_EQ(t.back(), "push");
  int adds = 0;
  int pushes = 0;
  for (const std::string& line : t) {
    if (line == "push") {
      ++pushes;
      EXPECT_EQ(adds % 40, 0) << "a push inside a batch after " << adds << " routes";
      continue;
    }
    const int batch = adds / 40;
    EXPECT_EQ(line.rfind("add 10." + std::to_string(batch) + ".", 0), 0u) << line;
    EXPECT_NE(line.find("metric " + std::to_string(2 * (1 + batch))), std::string::npos) << line;
    ++adds;
  }
  EXPECT_EQ(adds, 120);
  EXPECT_GE(pushes, 2);
}

// Past kPushEvery changes the output port pushes at the end of the upstream batch it is
// delivering, not in the middle of it: the halves of one UPDATE that two shards exported still
// reach the downstream (PeerOut) in one batch, and so go out in one UPDATE.
TEST_P(ShardStageTest, ALongBurstIsPushedOnlyBetweenUpstreamBatches) {
  DoublerNetwork net(GetParam());
  TestOrigin* origin = net.origin;
  TestShardStage& shard = net.shard;
  CaptureStage<TestRoute>* capture = net.capture;
  // Three batches of 3,000 prefixes (each under kPushEvery, two together past it), spread over
  // every shard, handed over without the loop running in between.
  constexpr int kBatch = 3000;
  static_assert(kBatch < TestShardStage::kPushEvery && 2 * kBatch > TestShardStage::kPushEvery);
  for (int batch = 0; batch < 3; ++batch) {
    for (int i = 0; i < kBatch; ++i) {
      const std::string p = std::to_string(10 + batch) + "." + std::to_string(i % 200) + "." +
                            std::to_string(i / 200) + ".0/24";
      origin->Add(R(p.c_str(), 1 + batch));
    }
    origin->Push();
  }
  shard.Settle();
  int adds = 0;
  int pushes = 0;
  for (const std::string& line : capture->trace()) {
    if (line != "push") {
      ++adds;
      continue;
    }
    ++pushes;
    EXPECT_EQ(adds % kBatch, 0) << "a push inside a batch after " << adds << " routes";
  }
  EXPECT_EQ(adds, 3 * kBatch);
  EXPECT_GE(pushes, 2);
}

// A blocked output port reaches every shard's exit, in order with the routes, and so does the
// unblock; an exit made while its port is blocked starts blocked.
TEST_P(ShardStageTest, BlockingAnOutputPortReachesEveryShardsExit) {
  const int shards = GetParam();
  boost::asio::io_context io;
  std::vector<ShardExit<TestRoute>*> exits(shards);
  ShardOptions options;
  options.shards = shards;
  TestShardStage shard(
      io, options, [&exits](TestShardStage::Context& ctx, ShardOutputs<TestRoute>& outputs) {
        exits[ctx.index()] = ctx.plumber().Make<ShardExit<TestRoute>>("exit", &outputs, kOut);
        return std::make_unique<TestShard>();
      });
  Plumber plumber(io);
  auto* capture = plumber.Make<CaptureStage<TestRoute>>("capture");
  auto* port = shard.AddOutput(kOut);
  port->Connect(capture);
  auto blocked = [&] {
    return shard.runner().QueryAll(
        [&exits](TestShard&, int i) { return exits[i]->blocked() ? 1 : 0; });
  };
  EXPECT_EQ(blocked(), std::vector<int>(shards, 0));
  port->SetBlocked(true);
  EXPECT_FALSE(port->ready());
  EXPECT_EQ(blocked(), std::vector<int>(shards, 1));
  port->SetBlocked(false);
  EXPECT_TRUE(port->ready());
  EXPECT_EQ(blocked(), std::vector<int>(shards, 0));
}

// Signals come in order with the port's changes; a barrier once every shard raised it.
TEST_P(ShardStageTest, SignalsInOrderAndBarriersOnceEveryShardRaisedThem) {
  const int shards = GetParam();
  boost::asio::io_context io;
  ShardOptions options;
  options.shards = shards;
  std::vector<ShardOutputs<TestRoute>*> outs(shards);
  TestShardStage shard(io, options,
                       [&outs](TestShardStage::Context& ctx, ShardOutputs<TestRoute>& outputs) {
                         outs[ctx.index()] = &outputs;
                         return std::make_unique<TestShard>();
                       });
  Plumber plumber(io);
  auto* capture = plumber.Make<CaptureStage<TestRoute>>("capture");
  std::vector<std::string> seen;
  shard.AddOutput(kOut)->Connect(
      capture,
      {.signal =
           [&](uint8_t code, const TestRoute& r) {
             seen.push_back("signal " + std::to_string(code) + " " + r.ToString());
           },
       .barrier = [&](uint8_t code) { seen.push_back("barrier " + std::to_string(code)); }});
  using OutOp = ShardOutput<TestRoute>::Op;
  for (int i = 0; i < shards; ++i) {
    shard.runner().Command(i, [&outs, i](TestShard&) {
      outs[i]->Emit(kOut, OutOp::kSignal).route = R("10.0.0.0/24", i);
      ShardOutput<TestRoute>& b = outs[i]->Emit(kOut, OutOp::kBarrier);
      b.code = 7;
      outs[i]->Flush();
    });
    shard.Flush();
    shard.Settle();
    // One signal per shard so far; the barrier only after the last shard.
    ASSERT_EQ(seen.size(), static_cast<size_t>(i + 1 + (i + 1 == shards ? 1 : 0)));
    EXPECT_EQ(seen[i].rfind("signal 0 10.0.0.0/24", 0), 0u) << seen[i];
  }
  EXPECT_EQ(seen.back(), "barrier 7");
}

INSTANTIATE_TEST_SUITE_P(Shards, ShardStageTest, ::testing::Values(1, 2, 4, 8));

// The runner itself: commands run in order with items, on the shard's thread; queries wait for
// what was sent before them; a small backlog limit asks for backpressure without losing anything.
struct Counter {
  std::vector<int> seen;
  std::thread::id thread;
};

TEST(ShardRunner, CommandsAndQueriesInOrderWithItems) {
  boost::asio::io_context io;
  using Runner = ShardRunner<Counter, int, int>;
  Runner::Callbacks cb;
  std::vector<std::vector<int>> delivered(3);
  int epochs_delivered = 0;
  cb.make = [](Runner::Context&) {
    auto c = std::make_unique<Counter>();
    c->thread = std::this_thread::get_id();
    return c;
  };
  Runner* runner_ptr = nullptr;
  cb.process = [&runner_ptr](Counter& c, std::span<int> items) {
    for (int i : items) c.seen.push_back(i);
    (void)runner_ptr;
  };
  cb.end_epoch = [](Counter& c, uint64_t e) { c.seen.push_back(-int(e)); };
  cb.deliver = [&](int shard, std::span<int> items) {
    delivered[shard].insert(delivered[shard].end(), items.begin(), items.end());
  };
  cb.delivered = [&] { ++epochs_delivered; };
  ShardOptions options;
  options.shards = 3;
  options.batch_items = 4;
  options.max_backlog = 8;  // backpressure often
  Runner runner(io, options, cb);
  for (int i = 0; i < 1000; ++i) {
    runner.Send(i % 3, i);
    if (i % 100 == 99) runner.EndEpoch();
    if (i == 500) {
      runner.Command(1, [](Counter& c) { c.seen.push_back(100000); });
    }
  }
  EXPECT_EQ(runner.epoch(), 10u);
  for (int s = 0; s < 3; ++s) {
    std::vector<int> seen = runner.Query(s, [](Counter& c) {
      EXPECT_EQ(c.thread, std::this_thread::get_id());
      return c.seen;
    });
    std::vector<int> want;
    for (int i = 0; i < 1000; ++i) {
      if (i % 3 == s) want.push_back(i);
      if (i == 500 && s == 1) want.push_back(100000);
      if (i % 100 == 99) want.push_back(-(i / 100 + 1));
    }
    EXPECT_EQ(seen, want) << "shard " << s;
  }
  const std::vector<size_t> sizes = runner.QueryAll([](Counter& c, int) { return c.seen.size(); });
  EXPECT_EQ(sizes.size(), 3u);
  runner.Settle();
  EXPECT_EQ(runner.backlog(0) + runner.backlog(1) + runner.backlog(2), 0u);
}

// Neither Send nor QueryAsync waits for a shard: with both shards stuck, the main loop sends
// past the backlog limit, is told to stop feeding (backpressure true), and to go on once the
// shards caught up; the queries' answers come afterwards, on the main loop.
TEST(ShardRunner, ABusyShardBlocksNeitherSenderNorQueriesButAsksForBackpressure) {
  boost::asio::io_context io;
  using Runner = ShardRunner<Counter, int, int>;
  Runner::Callbacks cb;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> timed_out{0};
  cb.make = [](Runner::Context&) { return std::make_unique<Counter>(); };
  cb.process = [released, &timed_out](Counter& c, std::span<int> items) {
    if (released.wait_for(std::chrono::seconds(10)) == std::future_status::timeout) ++timed_out;
    c.seen.insert(c.seen.end(), items.begin(), items.end());
  };
  cb.end_epoch = [](Counter&, uint64_t) {};
  cb.deliver = [](int, std::span<int>) {};
  cb.delivered = [] {};
  std::vector<bool> calls;
  cb.backpressure = [&calls](bool full) { calls.push_back(full); };
  ShardOptions options;
  options.shards = 2;
  options.batch_items = 4;
  options.max_backlog = 8;
  Runner runner(io, options, cb);
  for (int i = 0; i < 200; ++i) runner.Send(i % 2, i);
  runner.EndEpoch();
  runner.Flush();
  EXPECT_TRUE(runner.full());
  EXPECT_EQ(calls, std::vector<bool>{true});
  // Queries do not wait either: the answers come on the main loop after what was sent before.
  std::optional<size_t> one;
  std::vector<size_t> all;
  runner.QueryAsync(
      0, [](Counter& c) { return c.seen.size(); }, [&one](size_t n) { one = n; });
  runner.QueryAllAsync([](Counter& c, int) { return c.seen.size(); },
                       [&all](std::vector<size_t> n) { all = std::move(n); });
  io.restart();
  io.poll();
  EXPECT_FALSE(one.has_value());
  EXPECT_TRUE(all.empty());
  release.set_value();
  runner.Settle();
  EXPECT_FALSE(runner.full());
  EXPECT_EQ(calls, (std::vector<bool>{true, false}));
  EXPECT_EQ(timed_out.load(), 0) << "the sender waited for a stuck shard";
  EXPECT_EQ(one, std::optional<size_t>(100));
  EXPECT_EQ(all, (std::vector<size_t>{100, 100}));
  for (int s = 0; s < 2; ++s) {
    std::vector<int> want;
    for (int i = s; i < 200; i += 2) want.push_back(i);
    EXPECT_EQ(runner.Query(s, [](Counter& c) { return c.seen; }), want) << "shard " << s;
  }
}

// A shard that echoes each item back: outputs are delivered epoch by epoch, every shard's part of
// an epoch before `delivered`, in each shard's order.
struct Echo {
  ShardRunner<Echo, int, int>::Context* ctx = nullptr;
};
using EchoRunner = ShardRunner<Echo, int, int>;

// Echo shards that emit `copies` outputs per input (input * 10 + copy when copies > 1); the
// outputs land in `got`, and `epoch_ends` takes got's size at each `delivered`.
EchoRunner::Callbacks EchoCallbacks(int copies, std::vector<int>* got,
                                    std::vector<size_t>* epoch_ends) {
  EchoRunner::Callbacks cb;
  cb.make = [](EchoRunner::Context& ctx) {
    auto e = std::make_unique<Echo>();
    e->ctx = &ctx;
    return e;
  };
  cb.process = [copies](Echo& e, std::span<int> items) {
    for (int i : items) {
      if (copies == 1) {
        e.ctx->Emit(i);
        continue;
      }
      for (int copy = 0; copy < copies; ++copy) e.ctx->Emit(i * 10 + copy);
    }
  };
  cb.end_epoch = [](Echo&, uint64_t) {};
  cb.deliver = [got](int, std::span<int> items) {
    got->insert(got->end(), items.begin(), items.end());
  };
  cb.delivered = [got, epoch_ends] { epoch_ends->push_back(got->size()); };
  return cb;
}

// Two shards, input and output handed over 4 items at a time, `max_backlog` as given.
ShardOptions TwoShardsSmallBatches(size_t max_backlog) {
  ShardOptions options;
  options.shards = 2;
  options.batch_items = 4;
  options.max_backlog = max_backlog;
  options.max_out_backlog = max_backlog;
  return options;
}

TEST(ShardRunner, OutputsDeliveredEpochByEpoch) {
  boost::asio::io_context io;
  using Runner = EchoRunner;
  std::vector<int> got;
  std::vector<size_t> epoch_ends;
  Runner::Callbacks cb = EchoCallbacks(1, &got, &epoch_ends);
  ShardOptions options;
  options.shards = 4;
  options.batch_items = 3;
  Runner runner(io, options, cb);
  for (int epoch = 0; epoch < 50; ++epoch) {
    for (int i = 0; i < 10; ++i) runner.Send((epoch * 7 + i) % 4, epoch * 100 + i);
    runner.EndEpoch();
    if (epoch % 5 == 0) {
      io.restart();
      io.poll();
    }
  }
  runner.Settle();
  ASSERT_EQ(got.size(), 500u);
  // Epoch k's outputs all come before epoch k+1's.
  for (size_t i = 1; i < got.size(); ++i) EXPECT_LE(got[i - 1] / 100, got[i] / 100);
  // `delivered` ran after each epoch's last output.
  ASSERT_GE(epoch_ends.size(), 50u);
  std::vector<size_t> ends(epoch_ends.begin(), epoch_ends.end());
  for (int epoch = 0; epoch < 50; ++epoch) {
    EXPECT_NE(std::find(ends.begin(), ends.end(), size_t(epoch + 1) * 10), ends.end()) << epoch;
  }
}

// Outputs past a batch's size leave in several batches while an epoch is still being processed
// (an input that makes an output per peer): still whole epochs, in order, nothing lost — also
// with shards that keep stopping for their undelivered outputs (a small backlog limit).
TEST(ShardRunner, ManyOutputsPerInputLeaveInBatchesStillEpochByEpoch) {
  boost::asio::io_context io;
  using Runner = EchoRunner;
  std::vector<int> got;
  std::vector<size_t> epoch_ends;
  Runner::Callbacks cb = EchoCallbacks(10, &got, &epoch_ends);
  Runner runner(io, TwoShardsSmallBatches(8), cb);
  for (int epoch = 0; epoch < 30; ++epoch) {
    for (int i = 0; i < 10; ++i) runner.Send(i % 2, epoch * 100 + i);
    runner.EndEpoch();
    if (epoch % 3 == 0) {
      io.restart();
      io.poll();
    }
  }
  runner.Settle();
  ASSERT_EQ(got.size(), 3000u);
  for (size_t i = 1; i < got.size(); ++i) EXPECT_LE(got[i - 1] / 1000, got[i] / 1000) << i;
  for (int shard = 0; shard < 2; ++shard) {
    std::vector<int> mine;
    for (int v : got) {
      if ((v / 10) % 2 == shard) mine.push_back(v);
    }
    EXPECT_TRUE(std::is_sorted(mine.begin(), mine.end())) << "shard " << shard;
  }
  for (int epoch = 0; epoch < 30; ++epoch) {
    EXPECT_NE(std::find(epoch_ends.begin(), epoch_ends.end(), size_t(epoch + 1) * 100),
              epoch_ends.end())
        << epoch;
  }
}

// Shard 0 of `options` gets 200 items, an epoch every 2, each item making ten outputs, while the
// main loop delivers nothing for 200 ms (unpaused, the shard would be done in microseconds).
struct StalledLoop {
  explicit StalledLoop(const ShardOptions& options) {
    EchoRunner::Callbacks cb = EchoCallbacks(10, &got, &epoch_ends);
    auto echo = cb.process;
    cb.process = [echo, this](Echo& e, std::span<int> items) {
      echo(e, items);
      processed += static_cast<int>(items.size());
    };
    runner = std::make_unique<EchoRunner>(io, options, cb);
    for (int epoch = 0; epoch < 100; ++epoch) {
      for (int i = 0; i < 2; ++i) runner->Send(0, epoch * 100 + i);
      runner->EndEpoch();
    }
    runner->Flush();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    taken = processed.load();
  }
  // Once the loop runs, every output arrives, in order.
  void ExpectEverythingDelivered() {
    runner->Settle();
    ASSERT_EQ(got.size(), 2000u);
    for (size_t i = 1; i < got.size(); ++i) EXPECT_LE(got[i - 1], got[i]) << i;
    EXPECT_EQ(runner->backlog(0), 0u);
  }

  boost::asio::io_context io;
  std::vector<int> got;
  std::vector<size_t> epoch_ends;
  std::atomic<int> processed{0};
  std::unique_ptr<EchoRunner> runner;
  int taken = 0;  // items the shard processed in the 200 ms
};

// Outputs bound a shard too: while the main loop delivers nothing, a shard that makes ten outputs
// per item stops taking input once more than max_out_backlog of them wait (at an epoch's end, so
// past the limit by at most one epoch's outputs); a Query still gets its answer, after
// everything sent before it; once the loop runs, every output arrives, epoch by epoch.
TEST(ShardRunner, AShardWhoseOutputsWaitTakesNoMoreInputUntilTheyAreDelivered) {
  StalledLoop s(TwoShardsSmallBatches(16));  // input batches of 2 epochs
  EXPECT_LE(s.taken * 10, 16 + 4 * 10) << "outputs piled up past the limit";
  EXPECT_GT(s.runner->backlog(0), 0u);
  // A query lets the shard go on: it answers after the 200 items.
  EXPECT_EQ(s.runner->Query(0, [&s](Echo&) { return s.processed.load(); }), 200);
  s.ExpectEverythingDelivered();
}

// The same within one input batch: a batch of many epochs stops at the first epoch's end past the
// limit and goes on from there once the outputs are delivered — not after the whole batch, whose
// items each make an output per peer in sluice-bgp.
TEST(ShardRunner, AShardStopsInsideAnInputBatchForItsOutputs) {
  ShardOptions options;
  options.shards = 2;
  options.batch_items = 64;  // 32 epochs a batch
  options.max_out_backlog = 16;
  StalledLoop s(options);
  EXPECT_LE(s.taken * 10, 16 + 2 * 10) << "a whole input batch's outputs piled up";
  EXPECT_GT(s.taken, 0);
  s.ExpectEverythingDelivered();
}

// A loop that runs its handlers after every item (as sluice-bgp does after every UPDATE): an idle
// shard gets each item at once, a busy one gets what came meanwhile in one batch when it runs out,
// and nothing is lost or reordered.
struct Gate {
  std::vector<std::vector<int>> batches;
  std::atomic<bool>* open = nullptr;
};

TEST(ShardRunner, ABusyShardGetsWhatCameMeanwhileInOneBatch) {
  boost::asio::io_context io;
  using Runner = ShardRunner<Gate, int, int>;
  std::atomic<bool> open{true};
  Runner::Callbacks cb;
  cb.make = [&open](Runner::Context&) {
    auto g = std::make_unique<Gate>();
    g->open = &open;
    return g;
  };
  cb.process = [](Gate& g, std::span<int> items) {
    g.batches.emplace_back(items.begin(), items.end());
    while (!g.open->load()) std::this_thread::yield();
  };
  cb.end_epoch = [](Gate&, uint64_t) {};
  cb.deliver = [](int, std::span<int>) {};
  ShardOptions options;
  options.shards = 1;
  options.inline_single = false;
  options.coalesce = std::chrono::microseconds(0);  // every flush at the end of the handler
  Runner runner(io, options, cb);
  auto work = boost::asio::make_work_guard(io);
  auto send_and_run = [&](int item) {
    runner.Send(0, item);
    io.poll();  // the posted flush: hands over now, or holds for a busy shard
  };
  auto wait_idle = [&] {
    for (int i = 0; i < 10000 && runner.backlog(0) > 0; ++i) {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  };
  // Idle: each item is its own batch.
  send_and_run(0);
  wait_idle();
  send_and_run(1);
  wait_idle();
  // Busy: item 2's batch blocks the shard; items 3..99 wait in one open batch.
  open = false;
  send_and_run(2);
  for (int i = 0; i < 2000 && runner.backlog(0) == 0; ++i) io.poll();
  for (int i = 3; i < 100; ++i) send_and_run(i);
  open = true;
  // The shard asks for the held batch when it runs out; the loop hands it over.
  for (int i = 0; i < 10000; ++i) {
    io.poll();
    if (runner.Query(0, [](Gate& g) { return g.batches.size(); }) >= 4) break;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  runner.Settle();
  std::vector<std::vector<int>> batches = runner.Query(0, [](Gate& g) { return g.batches; });
  std::vector<int> all;
  for (const auto& b : batches) all.insert(all.end(), b.begin(), b.end());
  std::vector<int> want(100);
  for (int i = 0; i < 100; ++i) want[i] = i;
  EXPECT_EQ(all, want);
  ASSERT_EQ(batches.size(), 4u);
  EXPECT_EQ(batches[0], std::vector<int>{0});
  EXPECT_EQ(batches[1], std::vector<int>{1});
  EXPECT_EQ(batches[2], std::vector<int>{2});
  EXPECT_EQ(batches[3].size(), 97u);
}

// Within a burst (a flush less than ShardOptions::coalesce ago) an idle shard is woken once for
// what came meanwhile, not once per handler of the loop; after a quiet spell an item leaves at the
// end of its handler.
TEST(ShardRunner, AnIdleShardGetsABurstInOneBatchAndATrickleAtOnce) {
  boost::asio::io_context io;
  using Runner = ShardRunner<Gate, int, int>;
  std::atomic<int> processed{0};
  Runner::Callbacks cb;
  cb.make = [](Runner::Context&) { return std::make_unique<Gate>(); };
  cb.process = [&processed](Gate& g, std::span<int> items) {
    g.batches.emplace_back(items.begin(), items.end());
    processed += static_cast<int>(items.size());
  };
  cb.end_epoch = [](Gate&, uint64_t) {};
  cb.deliver = [](int, std::span<int>) {};
  ShardOptions options;
  options.shards = 1;
  options.inline_single = false;
  options.coalesce = std::chrono::milliseconds(200);
  Runner runner(io, options, cb);
  auto work = boost::asio::make_work_guard(io);
  auto send_and_run = [&](int item) {
    runner.Send(0, item);
    io.poll();
  };
  // Waits up to 100 ms (half the coalescing time) for `n` items processed, without running the
  // loop: only a batch handed over already gets there.
  auto processed_soon = [&](int n) {
    for (int i = 0; i < 1000 && processed < n; ++i) {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    return processed.load() == n;
  };
  send_and_run(0);
  EXPECT_TRUE(processed_soon(1));
  // A burst: 49 items, the loop running its handlers after each, well within 200 ms.
  for (int i = 1; i < 50; ++i) send_and_run(i);
  EXPECT_FALSE(processed_soon(50)) << "the burst left before the coalescing time";
  io.run_for(std::chrono::milliseconds(400));  // the coalescing timer
  EXPECT_TRUE(processed_soon(50));
  // A quiet spell, then one item: at once.
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  send_and_run(50);
  EXPECT_TRUE(processed_soon(51));
  std::vector<std::vector<int>> batches = runner.Query(0, [](Gate& g) { return g.batches; });
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(batches[0], std::vector<int>{0});
  EXPECT_EQ(batches[1].size(), 49u);
  EXPECT_EQ(batches[2], std::vector<int>{50});
}

}  // namespace
}  // namespace sluice::stage
