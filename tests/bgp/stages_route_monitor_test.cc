// RouteMonitorStage: the changes of many pushes made in one handler reach the monitor together,
// after the handler, in runs of one attribute set, a peer's post-policy batch before the Loc-RIB's;
// a batch handed over early, at its limit, is told when the hand-over is done; a stage destroyed
// while it holds changes hands them over; a loop destroyed before its hand-over
// ran does not stop a later loop (at the same address) from getting one.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "bgp/stages/route_monitor.h"
#include "tests/bgp/stages_test_util.h"

namespace sluice::bgp {
namespace {

using testing::Attr;
using testing::P;

// Records each call as text: "post 3 routes 2 runs: 10.0.0.0/24 10.0.1.0/24 -10.0.0.0/24".
class RecordingMonitor : public RouteMonitor {
 public:
  bool Wants(MonitoredRib) const override { return true; }
  void OnRouteChanges(MonitoredRib rib, RouteChanges& changes) override {
    std::string line = rib == MonitoredRib::kLocRib ? "loc" : "post";
    line += " " + std::to_string(changes.size()) + " routes " +
            std::to_string(changes.runs.size()) + " runs:";
    size_t i = 0;
    for (const RouteChanges::Run& run : changes.runs) {
      for (; i < run.end; ++i) line += (run.attrs ? " " : " -") + changes.nlri[i].prefix.ToString();
    }
    calls.push_back(line);
  }
  void OnPushDone() override { calls.push_back("done"); }

  std::vector<std::string> calls;
};

class RouteMonitorStageTest : public testing::StagesTest {
 protected:
  void SetUp() override {
    slot_.Set(monitor_);
    post_ = plumber_.Make<RouteMonitorStage>("RouteMonitor(P)", io_, &slot_,
                                             MonitoredRib::kAdjRibInPost);
    loc_ = plumber_.Make<RouteMonitorStage>("RouteMonitor", io_, &slot_, MonitoredRib::kLocRib);
    out_ = Capture("out", false);
    stage::Plumber::Plumb<BgpRoute>(post_, loc_);
    stage::Plumber::Plumb<BgpRoute>(loc_, out_);
    a1_ = Attr().Path({65001}).NextHop("192.0.2.1").In(store_);
    a2_ = Attr().Path({65001, 65002}).NextHop("192.0.2.1").In(store_);
  }
  BgpRoute R(const char* prefix, const AttrRef& attrs) {
    BgpRoute r;
    r.net = P(prefix);
    r.attrs = attrs;
    return r;
  }

  std::shared_ptr<RecordingMonitor> monitor_ = std::make_shared<RecordingMonitor>();
  RouteMonitorSlot slot_;
  RouteMonitorStage* post_ = nullptr;
  RouteMonitorStage* loc_ = nullptr;
  stage::CaptureStage<BgpRoute>* out_ = nullptr;
  AttrRef a1_, a2_;
};

TEST_F(RouteMonitorStageTest, ThePushesOfOneHandlerReachTheMonitorTogetherAfterIt) {
  // Three UPDATEs' worth, each ended by a push, in one handler.
  post_->add_route(R("10.0.0.0/24", a1_), nullptr);
  post_->add_route(R("10.0.1.0/24", a1_), nullptr);
  post_->push(nullptr);
  post_->add_route(R("10.0.2.0/24", a2_), nullptr);
  post_->push(nullptr);
  post_->delete_route(R("10.0.0.0/24", a1_), nullptr);
  post_->push(nullptr);
  EXPECT_EQ(out_->trace().size(), 4u);  // the routes went on at once
  EXPECT_TRUE(monitor_->calls.empty());

  RunLoop();
  const std::vector<std::string> want = {
      "post 4 routes 3 runs: 10.0.0.0/24 10.0.1.0/24 10.0.2.0/24 -10.0.0.0/24",
      "loc 4 routes 3 runs: 10.0.0.0/24 10.0.1.0/24 10.0.2.0/24 -10.0.0.0/24", "done"};
  EXPECT_EQ(monitor_->calls, want);

  // The next handler's changes make a batch of their own.
  monitor_->calls.clear();
  post_->add_route(R("10.0.3.0/24", a2_), nullptr);
  RunLoop();
  EXPECT_EQ(monitor_->calls,
            (std::vector<std::string>{"post 1 routes 1 runs: 10.0.3.0/24",
                                      "loc 1 routes 1 runs: 10.0.3.0/24", "done"}));
}

TEST_F(RouteMonitorStageTest, ABatchHandedOverEarlyAtItsLimitIsToldWhenTheHandOverIsDone) {
  for (uint32_t i = 0; i < RouteMonitorStage::kMaxBatch; ++i) {
    BgpRoute r;
    r.net = net::Prefix(net::IPv4Address(0x0a000000 + (i << 8)), 24);
    r.attrs = a1_;
    post_->add_route(r, nullptr);
  }
  ASSERT_EQ(monitor_->calls.size(), 2u);  // both stages reached the limit: handed over at once
  RunLoop();
  ASSERT_EQ(monitor_->calls.size(), 3u);
  EXPECT_EQ(monitor_->calls.back(), "done");
}

TEST_F(RouteMonitorStageTest, AStageDestroyedWhileItHoldsChangesHandsThemOver) {
  {
    RouteMonitorStage stage("RouteMonitor(Q)", io_, &slot_, MonitoredRib::kAdjRibInPost);
    auto* sink = Capture("sink", false);
    stage::Plumber::Plumb<BgpRoute>(&stage, sink);
    stage.add_route(R("10.0.0.0/24", a1_), nullptr);
    post_->add_route(R("10.0.1.0/24", a2_), nullptr);  // pending after the stage is gone
    stage::Plumber::Unplumb<BgpRoute>(&stage, sink);
  }
  EXPECT_EQ(monitor_->calls,
            (std::vector<std::string>{"post 1 routes 1 runs: 10.0.0.0/24", "done"}));
  RunLoop();  // the others' hand-over, without the destroyed stage
  EXPECT_EQ(monitor_->calls,
            (std::vector<std::string>{"post 1 routes 1 runs: 10.0.0.0/24", "done",
                                      "post 1 routes 1 runs: 10.0.1.0/24",
                                      "loc 1 routes 1 runs: 10.0.1.0/24", "done"}));
}

TEST_F(RouteMonitorStageTest, ALoopDestroyedBeforeItsHandOverDoesNotStopTheNextLoopsOwn) {
  // Both loops at one address, as a test's loops on the stack often are.
  alignas(boost::asio::io_context) unsigned char storage[sizeof(boost::asio::io_context)];
  for (int round = 0; round < 2; ++round) {
    auto* loop = new (storage) boost::asio::io_context;
    monitor_->calls.clear();
    {
      RouteMonitorStage stage("RouteMonitor(Q)", *loop, &slot_, MonitoredRib::kAdjRibInPost);
      auto* sink = Capture("sink" + std::to_string(round), false);
      stage::Plumber::Plumb<BgpRoute>(&stage, sink);
      stage.add_route(R("10.9.0.0/24", a1_), nullptr);
      if (round == 1) {
        loop->run();
        EXPECT_EQ(monitor_->calls,
                  (std::vector<std::string>{"post 1 routes 1 runs: 10.9.0.0/24", "done"}));
      }
      stage::Plumber::Unplumb<BgpRoute>(&stage, sink);
    }  // round 0: the stage hands its batch over as it goes; the loop never ran
    EXPECT_EQ(monitor_->calls.size(), 2u);
    loop->~io_context();
  }
}

}  // namespace
}  // namespace sluice::bgp
