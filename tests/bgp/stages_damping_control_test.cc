// DampingControl on a whole BgpRouting (issue 13): damping is plumbed only for the peers that have
// it, between ImportFilter and NexthopResolver; a flapping prefix stops reaching a downstream
// peer and comes back after the reuse time; disabling releases suppressed routes and takes the
// stage out; a removed peer takes its stages with it; show bgp damping lists what is damped.
#include <gtest/gtest.h>

#include "bgp/stages/bgp_routing.h"
#include "bgp/stages/damping_control.h"
#include "tests/bgp/stages_fakes.h"
#include "tests/bgp/stages_test_util.h"

namespace sluice::bgp {
namespace {

using testing::A;
using testing::A4;
using testing::Attr;
using testing::P;

// One time for every stage; the earliest armed timer fires as time passes it.
class SharedClock {
 public:
  class Handle : public DampingClock {
   public:
    explicit Handle(SharedClock* c) : c_(c) {}
    ~Handle() override { Disarm(); }
    absl::Time Now() const override { return c_->now_; }
    void Arm(absl::Time when, std::function<void()> fire) override {
      when_ = when;
      fire_ = std::move(fire);
      c_->armed_.insert(this);
    }
    void Disarm() override {
      when_.reset();
      c_->armed_.erase(this);
    }
    std::optional<absl::Time> when_;
    std::function<void()> fire_;

   private:
    SharedClock* c_;
  };
  void Advance(absl::Duration d) {
    const absl::Time target = now_ + d;
    while (true) {
      Handle* next = nullptr;
      for (Handle* h : armed_) {
        if (h->when_ && *h->when_ <= target && (next == nullptr || *h->when_ < *next->when_)) {
          next = h;
        }
      }
      if (next == nullptr) break;
      now_ = std::max(now_, *next->when_);
      auto fire = std::move(next->fire_);
      next->Disarm();
      fire();
    }
    now_ = target;
  }
  absl::Time now_ = absl::FromUnixSeconds(1'700'000'000);
  std::set<Handle*> armed_;
};

class DampingControlTest : public testing::StagesTest {
 protected:
  void SetUp() override {
    RouterConfig rc;
    rc.local_as = 65000;
    rc.router_id = A4("10.255.0.1");
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
        routing_.get(), [this] { return std::make_unique<SharedClock::Handle>(&clock_); });
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
    RunLoop();
  }
  void Withdraw(const char* prefix) {
    UpdateMessage u;
    u.withdrawn.push_back(Nlri{P(prefix), 0, Safi::kUnicast});
    up_l_->OnUpdate(u);
    RunLoop();
  }
  bool Downstream(const char* prefix) { return down_->held.contains(P(prefix)); }

  SharedClock clock_;
  std::unique_ptr<BgpRouting> routing_;
  std::unique_ptr<DampingControl> control_;
  std::unique_ptr<testing::FakeSession> up_, down_;
  SessionListener* up_l_ = nullptr;
  SessionListener* down_l_ = nullptr;
};

TEST_F(DampingControlTest, OnlyDampedPeersGetTheStageAndFlapsStopReachingDownstream) {
  RunLoop();
  const size_t stages = routing_->plumber().size();
  EXPECT_EQ(routing_->Describe().find("Damping"), std::string::npos);
  EXPECT_EQ(control_->Enable(A("203.0.113.9")).code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE(control_->Enable(A("192.0.2.2")).ok());
  ASSERT_TRUE(control_->Enable(A("192.0.2.2")).ok());  // twice: no-op
  EXPECT_EQ(routing_->plumber().size(), stages + 2);   // one per family
  EXPECT_NE(routing_->Describe().find("v4 Damping(up) [Damping]"), std::string::npos)
      << routing_->Describe();
  EXPECT_EQ(control_->DampedPeers(), std::vector<net::IPAddress>{A("192.0.2.2")});

  Announce("10.9.0.0/16");  // steady
  for (int i = 0; i < 3; ++i) {
    Announce("10.0.0.0/8");
    EXPECT_TRUE(Downstream("10.0.0.0/8")) << "flap " << i;
    Withdraw("10.0.0.0/8");
    clock_.Advance(absl::Seconds(5));
  }
  Announce("10.0.0.0/8");
  EXPECT_FALSE(Downstream("10.0.0.0/8")) << "suppressed after the third withdrawal";
  EXPECT_TRUE(Downstream("10.9.0.0/16"));
  auto listed = control_->List(true);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].peer, A("192.0.2.2"));
  EXPECT_EQ(listed[0].damped.prefix, P("10.0.0.0/8"));
  EXPECT_TRUE(listed[0].damped.has_route);
  clock_.Advance(listed[0].damped.reuse_in + absl::Seconds(1));
  RunLoop();
  EXPECT_TRUE(Downstream("10.0.0.0/8")) << "released after the reuse time";
  EXPECT_TRUE(control_->List(true).empty());

  // Suppressed again, then damping is switched off: the route goes downstream at once.
  for (int i = 0; i < 3; ++i) {
    Withdraw("10.0.0.0/8");
    Announce("10.0.0.0/8");
  }
  EXPECT_FALSE(Downstream("10.0.0.0/8"));
  ASSERT_TRUE(control_->Disable(A("192.0.2.2")).ok());
  RunLoop();
  EXPECT_TRUE(Downstream("10.0.0.0/8"));
  EXPECT_EQ(routing_->plumber().size(), stages);
  EXPECT_EQ(routing_->Describe().find("Damping"), std::string::npos);
}

TEST_F(DampingControlTest, ARemovedPeerTakesItsDampingStagesAlong) {
  RunLoop();
  const size_t stages = routing_->plumber().size();
  ASSERT_TRUE(control_->Enable(A("192.0.2.2")).ok());
  for (int i = 0; i < 3; ++i) {
    Announce("10.0.0.0/8");
    Withdraw("10.0.0.0/8");
  }
  Announce("10.0.0.0/8");
  ASSERT_TRUE(routing_->RemovePeer(A("192.0.2.2")).ok());
  RunLoop();
  EXPECT_FALSE(Downstream("10.0.0.0/8"));
  EXPECT_TRUE(control_->List(false).empty());
  EXPECT_LT(routing_->plumber().size(), stages);
  EXPECT_EQ(routing_->Describe().find("Damping"), std::string::npos);
  clock_.Advance(absl::Minutes(10));  // no timer of a retired stage fires
  EXPECT_TRUE(clock_.armed_.empty());
}

}  // namespace
}  // namespace sluice::bgp
