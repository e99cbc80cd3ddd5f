// DampingControl on a whole BgpRouting: damping is plumbed only for the peers that have
// it, between ImportFilter and NexthopResolver; a flapping prefix stops reaching a downstream
// peer and comes back after the reuse time; disabling releases suppressed routes and takes the
// stage out; a removed peer takes its stages with it; show bgp damping lists what is damped.
// Every test runs with the serial pipeline (1 thread) and sharded (2 threads): the same
// routes reach the downstream peer and the same prefixes are listed. Label tsan: the sharded runs
// plumb, read and fire the stages on the shards' threads.
#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <future>
#include <mutex>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "bgp/stages/bgp_routing.h"
#include "bgp/stages/damping_control.h"
#include "stage/shard_runner.h"
#include "tests/bgp/stages_fakes.h"
#include "tests/bgp/stages_test_util.h"

namespace sluice::bgp {
namespace {

using testing::A;
using testing::A4;
using testing::Attr;
using testing::P;

// One time for every stage, in every shard; the earliest armed timer fires as time passes it, on
// the loop its stage lives on (a shard's timer on the shard's thread, the test waiting for it).
class SharedClock {
 public:
  explicit SharedClock(boost::asio::io_context* main) : main_(main) {}

  class Handle : public DampingClock {
   public:
    Handle(SharedClock* c, boost::asio::io_context* io) : c_(c), io_(io) {}
    ~Handle() override { Disarm(); }
    absl::Time Now() const override {
      std::lock_guard<std::mutex> lock(c_->mu_);
      return c_->now_;
    }
    void Arm(absl::Time when, std::function<void()> fire) override {
      std::lock_guard<std::mutex> lock(c_->mu_);
      when_ = when;
      fire_ = std::move(fire);
      arm_id_ = ++c_->next_arm_id_;
      c_->armed_.insert(this);
    }
    void Disarm() override {
      std::lock_guard<std::mutex> lock(c_->mu_);
      when_.reset();
      fire_ = nullptr;
      c_->armed_.erase(this);
    }

   private:
    friend class SharedClock;
    SharedClock* c_;
    boost::asio::io_context* io_;
    std::optional<absl::Time> when_;  // guarded by c_->mu_, like the rest
    std::function<void()> fire_;
    uint64_t arm_id_ = 0;
  };

  std::unique_ptr<DampingClock> Make(boost::asio::io_context& io) {
    return std::make_unique<Handle>(this, &io);
  }

  void Advance(absl::Duration d) {
    absl::Time target;
    {
      std::lock_guard<std::mutex> lock(mu_);
      target = now_ + d;
    }
    while (true) {
      boost::asio::io_context* io = nullptr;
      Handle* next = nullptr;
      uint64_t id = 0;
      {
        std::lock_guard<std::mutex> lock(mu_);
        for (Handle* h : armed_) {
          if (h->when_ && *h->when_ <= target && (next == nullptr || *h->when_ < *next->when_)) {
            next = h;
          }
        }
        if (next == nullptr) {
          now_ = target;
          return;
        }
        now_ = std::max(now_, *next->when_);
        io = next->io_;
        id = next->arm_id_;
      }
      // The timer fires on its stage's loop, unless it was disarmed or re-armed meanwhile.
      auto fire = [this, next, id] {
        std::function<void()> f;
        {
          std::lock_guard<std::mutex> lock(mu_);
          if (!armed_.contains(next) || next->arm_id_ != id) return;
          f = std::move(next->fire_);
          next->fire_ = nullptr;
          next->when_.reset();
          armed_.erase(next);
        }
        f();
      };
      if (io == main_) {
        fire();
      } else {
        std::promise<void> done;
        boost::asio::post(*io, [&fire, &done] {
          fire();
          done.set_value();
        });
        done.get_future().wait();
      }
    }
  }
  bool nothing_armed() {
    std::lock_guard<std::mutex> lock(mu_);
    return armed_.empty();
  }

 private:
  boost::asio::io_context* main_;
  std::mutex mu_;
  absl::Time now_ = absl::FromUnixSeconds(1'700'000'000);
  std::set<Handle*> armed_;
  uint64_t next_arm_id_ = 0;
};

class DampingControlTest : public testing::StagesTest, public ::testing::WithParamInterface<int> {
 protected:
  void SetUp() override {
    RouterConfig rc;
    rc.local_as = 65000;
    rc.router_id = A4("10.255.0.1");
    rc.threads = GetParam();
    routing_ = std::make_unique<BgpRouting>(io_, rc, RoutingServices{nullptr, nullptr, &store_});
    SessionParams params;
    up_ = std::make_unique<testing::FakeSession>(&store_, params);
    down_ = std::make_unique<testing::FakeSession>(&store_, params);
    RoutingPeerConfig u;
    u.name = "up";
    u.address = A("192.0.2.2");
    u.peer_as = 65001;
    u.ebgp_requires_policy = false;
    up_l_ = *routing_->AddPeer(u, up_.get());
    RoutingPeerConfig d = u;
    d.name = "down";
    d.address = A("198.51.100.2");
    d.peer_as = 65002;
    down_l_ = *routing_->AddPeer(d, down_.get());
    Establish(up_l_, "192.0.2.2", 65001, "192.0.2.1");
    Establish(down_l_, "198.51.100.2", 65002, "198.51.100.1");
    control_ = std::make_unique<DampingControl>(
        routing_.get(), [this](boost::asio::io_context& io) { return clock_.Make(io); });
    DampingParams p;
    p.half_life = absl::Seconds(60);
    p.suppress = 2000;
    p.max_suppress = absl::Minutes(4);
    ASSERT_TRUE(control_->SetParams(p).ok());
  }
  void TearDown() override {
    control_.reset();
    routing_.reset();
    RunLoop();
  }
  // Until the shards (if any) and the loop have nothing left to do.
  void Settle() {
    routing_->Settle();
    RunLoop();
  }
  // ListAsync's answer (the loop runs until it comes).
  std::vector<PeerDampedPrefix> List(bool suppressed_only,
                                     std::optional<net::IPAddress> peer = std::nullopt) {
    std::optional<std::vector<PeerDampedPrefix>> got;
    control_->ListAsync(suppressed_only, peer,
                        [&got](std::vector<PeerDampedPrefix> l) { got = std::move(l); });
    auto guard = boost::asio::make_work_guard(io_);
    io_.restart();
    while (!got) io_.run_one_for(std::chrono::milliseconds(10));
    return std::move(*got);
  }
  // The damping stages plumbed anywhere (the loop's Plumber and every shard's).
  size_t DampingStagesShown() {
    const std::string text = routing_->Describe();
    size_t n = 0;
    for (size_t at = text.find("[Damping]"); at != std::string::npos;
         at = text.find("[Damping]", at + 1)) {
      ++n;
    }
    return n;
  }
  void Establish(SessionListener* l, const char* addr, uint32_t as, const char* local) {
    EstablishedInfo info;
    info.remote_address = A(addr);
    info.remote_as = as;
    info.remote_bgp_id = A4(addr);
    info.local_address = A(local);
    l->OnEstablished(info);
  }
  void Announce(const char* prefix) {
    UpdateMessage u;
    u.announced.push_back(Nlri{P(prefix), 0, Safi::kUnicast});
    u.attributes = Attr().Path({65001}).NextHop("192.0.2.2").In(store_);
    up_l_->OnUpdate(u);
    Settle();
  }
  void Withdraw(const char* prefix) {
    UpdateMessage u;
    u.withdrawn.push_back(Nlri{P(prefix), 0, Safi::kUnicast});
    up_l_->OnUpdate(u);
    Settle();
  }
  bool Downstream(const char* prefix) { return down_->held.contains(P(prefix)); }
  // How many shards the prefixes go to (with 2 threads, the tests want both).
  int ShardsOf(const std::vector<const char*>& prefixes) {
    std::set<int> shards;
    for (const char* p : prefixes) shards.insert(stage::ShardOf(P(p), GetParam()));
    return int(shards.size());
  }

  SharedClock clock_{&io_};
  std::unique_ptr<BgpRouting> routing_;
  std::unique_ptr<DampingControl> control_;
  std::unique_ptr<testing::FakeSession> up_, down_;
  SessionListener* up_l_ = nullptr;
  SessionListener* down_l_ = nullptr;
};

TEST_P(DampingControlTest, OnlyDampedPeersGetTheStageAndFlapsStopReachingDownstream) {
  Settle();
  // One stage per family in every copy of the pipeline (one copy per thread).
  const size_t per_peer = 2 * size_t(GetParam());
  EXPECT_EQ(routing_->threads(), GetParam());
  EXPECT_EQ(DampingStagesShown(), 0u);
  EXPECT_EQ(control_->Enable(A("203.0.113.9")).code(), absl::StatusCode::kNotFound);
  EXPECT_FALSE(control_->enabled(A("192.0.2.2")));
  ASSERT_TRUE(control_->Enable(A("192.0.2.2")).ok());
  ASSERT_TRUE(control_->Enable(A("192.0.2.2")).ok());  // twice: no-op
  EXPECT_EQ(control_->StageCount(A("192.0.2.2")), per_peer);
  EXPECT_EQ(control_->StageCount(A("198.51.100.2")), 0u);
  EXPECT_EQ(DampingStagesShown(), per_peer);
  EXPECT_NE(routing_->Describe().find("v4 Damping(up) [Damping]"), std::string::npos)
      << routing_->Describe();
  EXPECT_TRUE(control_->enabled(A("192.0.2.2")));
  EXPECT_EQ(control_->DampedPeers(), std::vector<net::IPAddress>{A("192.0.2.2")});

  // Flapping prefixes that land in different shards (with 2 threads) and one steady prefix.
  const std::vector<const char*> flapping = {"10.0.0.0/8", "10.1.0.0/16", "10.4.0.0/16",
                                             "10.5.0.0/16"};
  ASSERT_EQ(ShardsOf(flapping), GetParam());
  Announce("10.9.0.0/16");  // steady
  for (int i = 0; i < 3; ++i) {
    for (const char* p : flapping) Announce(p);
    for (const char* p : flapping) EXPECT_TRUE(Downstream(p)) << p << " flap " << i;
    for (const char* p : flapping) Withdraw(p);
    clock_.Advance(absl::Seconds(5));
  }
  for (const char* p : flapping) Announce(p);
  for (const char* p : flapping) {
    EXPECT_FALSE(Downstream(p)) << p << " suppressed after the third withdrawal";
  }
  EXPECT_TRUE(Downstream("10.9.0.0/16"));
  auto listed = List(true);
  ASSERT_EQ(listed.size(), flapping.size());
  for (size_t i = 0; i < flapping.size(); ++i) {
    EXPECT_EQ(listed[i].peer, A("192.0.2.2"));
    EXPECT_EQ(listed[i].damped.prefix, P(flapping[i])) << "sorted by prefix";
    EXPECT_TRUE(listed[i].damped.has_route);
    EXPECT_TRUE(listed[i].damped.suppressed);
  }
  EXPECT_EQ(List(false, A("198.51.100.2")).size(), 0u);
  EXPECT_EQ(List(false, A("192.0.2.2")).size(), flapping.size());
  clock_.Advance(listed[0].damped.reuse_in + absl::Seconds(1));
  Settle();
  for (const char* p : flapping) EXPECT_TRUE(Downstream(p)) << p << " released after reuse";
  EXPECT_TRUE(List(true).empty());

  // Suppressed again, then damping is switched off: the routes go downstream at once.
  for (int i = 0; i < 3; ++i) {
    for (const char* p : flapping) Withdraw(p);
    for (const char* p : flapping) Announce(p);
  }
  for (const char* p : flapping) EXPECT_FALSE(Downstream(p)) << p;
  ASSERT_TRUE(control_->Disable(A("192.0.2.2")).ok());
  Settle();
  for (const char* p : flapping) EXPECT_TRUE(Downstream(p)) << p << " released by Disable";
  EXPECT_FALSE(control_->enabled(A("192.0.2.2")));
  EXPECT_EQ(control_->StageCount(A("192.0.2.2")), 0u);
  EXPECT_TRUE(control_->DampedPeers().empty());
  EXPECT_EQ(DampingStagesShown(), 0u);
  EXPECT_TRUE(clock_.nothing_armed());
}

TEST_P(DampingControlTest, NewParamsReachEveryShard) {
  Settle();
  ASSERT_TRUE(control_->Enable(A("192.0.2.2")).ok());
  ASSERT_EQ(ShardsOf({"10.0.0.0/8", "10.3.0.0/16"}), GetParam());
  for (int i = 0; i < 3; ++i) {
    Announce("10.0.0.0/8");
    Announce("10.3.0.0/16");
    Withdraw("10.0.0.0/8");
    Withdraw("10.3.0.0/16");
  }
  Announce("10.0.0.0/8");
  Announce("10.3.0.0/16");
  ASSERT_EQ(List(true).size(), 2u);
  EXPECT_FALSE(Downstream("10.0.0.0/8"));
  EXPECT_FALSE(Downstream("10.3.0.0/16"));
  // A reuse threshold above the current penalties (3000): every shard's stage releases at once.
  DampingParams p = control_->params();
  p.suppress = 5000;
  p.reuse = 3500;
  ASSERT_TRUE(control_->SetParams(p).ok());
  Settle();  // the parameters reach every shard in order with its routes
  clock_.Advance(absl::Seconds(1));
  Settle();
  EXPECT_EQ(List(true).size(), 0u);
  EXPECT_TRUE(Downstream("10.0.0.0/8"));
  EXPECT_TRUE(Downstream("10.3.0.0/16"));
  EXPECT_EQ(List(false).size(), 2u) << "penalties are kept";
}

TEST_P(DampingControlTest, ARemovedPeerTakesItsDampingStagesAlong) {
  Settle();
  ASSERT_TRUE(control_->Enable(A("192.0.2.2")).ok());
  ASSERT_EQ(ShardsOf({"10.0.0.0/8", "10.3.0.0/16"}), GetParam());
  for (int i = 0; i < 3; ++i) {
    Announce("10.0.0.0/8");
    Announce("10.3.0.0/16");
    Withdraw("10.0.0.0/8");
    Withdraw("10.3.0.0/16");
  }
  Announce("10.0.0.0/8");
  Announce("10.3.0.0/16");
  ASSERT_EQ(List(true).size(), 2u);
  ASSERT_TRUE(routing_->RemovePeer(A("192.0.2.2")).ok());
  Settle();
  EXPECT_FALSE(Downstream("10.0.0.0/8"));
  EXPECT_FALSE(Downstream("10.4.0.0/16"));
  EXPECT_TRUE(List(false).empty());
  EXPECT_EQ(control_->StageCount(A("192.0.2.2")), 0u);
  EXPECT_EQ(control_->Enable(A("192.0.2.2")).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(routing_->Describe().find("(up)"), std::string::npos) << routing_->Describe();
  EXPECT_EQ(DampingStagesShown(), 0u);
  clock_.Advance(absl::Minutes(10));  // no timer of a retired stage fires
  EXPECT_TRUE(clock_.nothing_armed());
}

INSTANTIATE_TEST_SUITE_P(Threads, DampingControlTest, ::testing::Values(1, 2),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return absl::StrCat(info.param, "Thread", info.param == 1 ? "" : "s");
                         });

}  // namespace
}  // namespace sluice::bgp
