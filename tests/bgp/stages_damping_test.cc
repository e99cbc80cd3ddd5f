// DampingStage (RFC 2439) with a fake clock: a prefix flapping faster than the threshold is
// suppressed and released once its penalty decays below reuse; prefixes that do not flap pass
// unchanged; the penalty ceiling bounds suppression by max-suppress; downstream stays consistent
// (CacheStage) and the stage's output is a golden trace.
#include <gtest/gtest.h>

#include <cmath>

#include "absl/strings/str_format.h"
#include "bgp/stages/damping_stage.h"
#include "bgp/stages/import_filter.h"
#include "bgp/stages/peer_in.h"
#include "tests/bgp/stages_test_util.h"
#include "tests/testing/golden.h"

namespace sluice::bgp {
namespace {

using testing::Attr;
using testing::P;

// Time that moves only when the test says; the armed timer fires as time passes it.
class FakeClock : public DampingClock {
 public:
  absl::Time Now() const override { return now_; }
  void Arm(absl::Time when, std::function<void()> fire) override {
    when_ = when;
    fire_ = std::move(fire);
  }
  void Disarm() override { when_.reset(); }
  void Advance(absl::Duration d) {
    const absl::Time target = now_ + d;
    while (when_ && *when_ <= target) {
      now_ = std::max(now_, *when_);
      when_.reset();
      auto fire = std::move(fire_);
      fire();
    }
    now_ = target;
  }
  std::optional<absl::Time> armed() const { return when_; }

 private:
  absl::Time now_ = absl::FromUnixSeconds(1'700'000'000);
  std::optional<absl::Time> when_;
  std::function<void()> fire_;
};

// Short times so that the arithmetic is easy to follow: half-life 60 s, reuse 750,
// suppress 2000, max-suppress 4 min (ceiling 750 · 2^4 = 12000).
DampingParams Fast() {
  DampingParams p;
  p.half_life = absl::Seconds(60);
  p.reuse = 750;
  p.suppress = 2000;
  p.max_suppress = absl::Minutes(4);
  return p;
}

class DampingTest : public testing::StagesTest {
 protected:
  void Build(DampingParams params = Fast()) {
    ASSERT_TRUE(params.Validate().ok()) << params.Validate();
    in_ = plumber_.Make<PeerIn>("PeerIn", &plumber_, &tables_, PeerIn::Options{});
    ImportConfig ic;
    ic.local_as = 65000;
    ic.ebgp_requires_policy = false;
    filter_ = plumber_.Make<ImportFilter>("ImportFilter", io_, &tables_, &store_, ic);
    auto clock = std::make_unique<FakeClock>();
    clock_ = clock.get();
    damping_ = plumber_.Make<DampingStage>("Damping", params, std::move(clock));
    cache_ = Cache("check");
    cap_ = Capture("out", false);
    stage::Plumber::Plumb<BgpRoute>(in_, filter_);
    stage::Plumber::Plumb<BgpRoute>(filter_, damping_);
    stage::Plumber::Plumb<BgpRoute>(damping_, cache_);
    stage::Plumber::Plumb<BgpRoute>(cache_, cap_);
    in_->SessionUp(sources_.Intern(testing::Source(1, "P1", "192.0.2.1", 65001, false)));
  }
  void Up(const char* prefix, uint32_t med = 0) {
    in_->Announce(P(prefix), Attr().Path({65001}).NextHop("192.0.2.1").Med(med).In(store_));
  }
  void Down(const char* prefix) { in_->Withdraw(P(prefix)); }
  double Penalty(const char* prefix) {
    auto d = damping_->Get(P(prefix));
    return d ? d->penalty : 0;
  }
  bool Suppressed(const char* prefix) {
    auto d = damping_->Get(P(prefix));
    return d && d->suppressed;
  }
  bool Downstream(const char* prefix) { return cache_->sent(P(prefix)); }
  void Note(const std::string& s) { cap_->Note(s); }
  void NoteState(const char* prefix) {
    auto d = damping_->Get(P(prefix));
    if (!d) {
      Note(absl::StrFormat("%s no figure of merit", prefix));
      return;
    }
    Note(absl::StrFormat("%s penalty %.0f%s", prefix, d->penalty,
                         d->suppressed ? absl::StrFormat(" suppressed, reuse in %.0f s",
                                                         absl::ToDoubleSeconds(d->reuse_in))
                                       : ""));
  }

  RouteTableSet tables_;
  PeerIn* in_ = nullptr;
  ImportFilter* filter_ = nullptr;
  DampingStage* damping_ = nullptr;
  FakeClock* clock_ = nullptr;
  stage::CacheStage<BgpRoute>* cache_ = nullptr;
  stage::CaptureStage<BgpRoute>* cap_ = nullptr;
};

TEST(DampingParamsTest, DefaultsAreRipe580AndValidationNamesTheProblem) {
  DampingParams d;
  EXPECT_EQ(d.half_life, absl::Minutes(15));
  EXPECT_EQ(d.reuse, 750u);
  EXPECT_EQ(d.suppress, 6000u);
  EXPECT_EQ(d.max_suppress, absl::Minutes(60));
  EXPECT_TRUE(d.Validate().ok());
  EXPECT_DOUBLE_EQ(d.ceiling(), 12000);
  DampingParams bad = d;
  bad.suppress = 700;
  EXPECT_NE(bad.Validate().message().find("suppress threshold (700) must be above"),
            std::string::npos);
  bad = d;
  bad.max_suppress = absl::Minutes(10);
  EXPECT_NE(bad.Validate().message().find("max-suppress"), std::string::npos);
  bad = d;
  bad.max_suppress = absl::Minutes(15);  // ceiling 1500 < suppress 6000
  EXPECT_NE(bad.Validate().message().find("ceiling"), std::string::npos);
}

TEST_F(DampingTest, FlappingPrefixIsSuppressedAndReleasedAfterDecayGoldenTrace) {
  Build();
  Up("10.0.0.0/8");  // steady: never flaps
  Note("t=0 10.1.0.0/16 flaps every 5 s");
  for (int i = 0; i < 3; ++i) {
    Up("10.1.0.0/16");
    Down("10.1.0.0/16");
    NoteState("10.1.0.0/16");
    clock_->Advance(absl::Seconds(5));
  }
  // Three withdrawals 5 s apart: 1000, 1000·2^(-5/60)+1000, ... ≥ 2000 → suppressed.
  EXPECT_TRUE(Suppressed("10.1.0.0/16"));
  EXPECT_GT(Penalty("10.1.0.0/16"), 2000);
  Up("10.1.0.0/16");
  Note("t=15 10.1.0.0/16 announced again: withheld");
  EXPECT_FALSE(Downstream("10.1.0.0/16"));
  EXPECT_FALSE(damping_->lookup_route(P("10.1.0.0/16")));
  EXPECT_TRUE(Downstream("10.0.0.0/8"));
  EXPECT_EQ(Penalty("10.0.0.0/8"), 0);
  EXPECT_EQ(damping_->counters().withheld, 1u);
  // Reuse when p·2^(-t/60) < 750: t = 60·log2(p/750) after the last flap.
  const double p = Penalty("10.1.0.0/16");
  const double reuse_s = 60 * std::log2(p / 750);
  NoteState("10.1.0.0/16");
  clock_->Advance(absl::Seconds(reuse_s - 1));
  EXPECT_TRUE(Suppressed("10.1.0.0/16"));
  EXPECT_FALSE(Downstream("10.1.0.0/16"));
  Note("one second before reuse: still suppressed");
  clock_->Advance(absl::Seconds(2));
  Note("reuse reached: released");
  EXPECT_FALSE(Suppressed("10.1.0.0/16"));
  EXPECT_TRUE(Downstream("10.1.0.0/16"));
  EXPECT_TRUE(damping_->lookup_route(P("10.1.0.0/16")));
  EXPECT_EQ(damping_->counters().releases, 1u);
  // Penalty below reuse / 2: the figure of merit is forgotten.
  clock_->Advance(absl::Seconds(61));
  EXPECT_FALSE(damping_->Get(P("10.1.0.0/16")));
  EXPECT_FALSE(clock_->armed());
  EXPECT_TRUE(violations_.empty()) << violations_.front();
  EXPECT_EQ(cache_->Verify(), 0u);
  EXPECT_GOLDEN(cap_->Text(), "tests/bgp/golden/damping_flap.trace");
}

TEST_F(DampingTest, SlowFlapsAreNotSuppressed) {
  Build();
  // One flap every 90 s (1.5 half-lives): the penalty settles at 1000 / (1 - 2^-1.5) ≈ 1547,
  // below suppress.
  for (int i = 0; i < 20; ++i) {
    Up("10.2.0.0/16");
    Down("10.2.0.0/16");
    EXPECT_FALSE(Suppressed("10.2.0.0/16"))
        << "flap " << i << " penalty " << Penalty("10.2.0.0/16");
    clock_->Advance(absl::Seconds(90));
  }
  Up("10.2.0.0/16");
  EXPECT_TRUE(Downstream("10.2.0.0/16"));
  EXPECT_EQ(damping_->counters().suppressions, 0u);
  EXPECT_TRUE(violations_.empty()) << violations_.front();
}

TEST_F(DampingTest, AttributeChangesCountAndTheSuppressingChangeWithdrawsDownstream) {
  Build();
  Up("10.3.0.0/16", 1);
  for (uint32_t med = 2; med <= 4; ++med) Up("10.3.0.0/16", med);  // 3 changes: 1500
  EXPECT_TRUE(Downstream("10.3.0.0/16"));
  EXPECT_FALSE(Suppressed("10.3.0.0/16"));
  Up("10.3.0.0/16", 5);  // 2000: suppressed, and the route leaves downstream
  EXPECT_TRUE(Suppressed("10.3.0.0/16"));
  EXPECT_FALSE(Downstream("10.3.0.0/16"));
  Up("10.3.0.0/16", 6);  // a change while suppressed: penalized, withheld
  Down("10.3.0.0/16");   // withdrawn while suppressed: nothing downstream to delete
  Up("10.3.0.0/16", 7);
  EXPECT_FALSE(Downstream("10.3.0.0/16"));
  clock_->Advance(absl::Minutes(4));  // max-suppress after the last flap at most
  EXPECT_FALSE(Suppressed("10.3.0.0/16"));
  ASSERT_TRUE(Downstream("10.3.0.0/16"));
  EXPECT_EQ(damping_->lookup_route(P("10.3.0.0/16"))->attrs->med, 7u);
  EXPECT_TRUE(violations_.empty()) << violations_.front();
  EXPECT_EQ(cache_->Verify(), 0u);
}

TEST_F(DampingTest, PenaltyStopsAtTheCeilingSoMaxSuppressBoundsSuppression) {
  Build();
  for (int i = 0; i < 50; ++i) {
    Up("10.4.0.0/16");
    Down("10.4.0.0/16");
  }
  EXPECT_DOUBLE_EQ(Penalty("10.4.0.0/16"), 12000);
  Up("10.4.0.0/16");
  auto d = damping_->Get(P("10.4.0.0/16"));
  ASSERT_TRUE(d);
  EXPECT_NEAR(absl::ToDoubleSeconds(d->reuse_in), 240, 0.01);
  clock_->Advance(absl::Seconds(239));
  EXPECT_FALSE(Downstream("10.4.0.0/16"));
  clock_->Advance(absl::Seconds(2));
  EXPECT_TRUE(Downstream("10.4.0.0/16"));
  EXPECT_TRUE(violations_.empty()) << violations_.front();
}

TEST_F(DampingTest, ReleaseAllAndListForShowBgpDamping) {
  Build();
  Up("10.5.0.0/16");
  Up("10.6.0.0/16");
  for (int i = 0; i < 3; ++i) {
    Down("10.5.0.0/16");
    Up("10.5.0.0/16");
  }
  Down("10.6.0.0/16");
  Up("10.6.0.0/16");
  auto all = damping_->List(false);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].prefix, P("10.5.0.0/16"));
  EXPECT_TRUE(all[0].suppressed);
  EXPECT_TRUE(all[0].has_route);
  EXPECT_GT(all[0].reuse_in, absl::ZeroDuration());
  EXPECT_FALSE(all[1].suppressed);
  ASSERT_EQ(damping_->List(true).size(), 1u);
  EXPECT_FALSE(Downstream("10.5.0.0/16"));
  damping_->ReleaseAll();
  EXPECT_TRUE(Downstream("10.5.0.0/16"));
  EXPECT_TRUE(damping_->List(false).empty());
  EXPECT_TRUE(violations_.empty()) << violations_.front();
  EXPECT_EQ(cache_->Verify(), 0u);
}

TEST_F(DampingTest, NewParametersKeepPenaltiesAndMayReleaseAtOnce) {
  Build();
  for (int i = 0; i < 3; ++i) {
    Up("10.7.0.0/16");
    Down("10.7.0.0/16");
  }
  Up("10.7.0.0/16");
  ASSERT_TRUE(Suppressed("10.7.0.0/16"));
  DampingParams higher = Fast();
  higher.reuse = 4000;
  higher.suppress = 8000;
  ASSERT_TRUE(higher.Validate().ok());
  damping_->SetParams(higher);
  EXPECT_NEAR(Penalty("10.7.0.0/16"), 3000, 1);
  clock_->Advance(absl::Milliseconds(1));  // reuse is now above the penalty: released
  EXPECT_FALSE(Suppressed("10.7.0.0/16"));
  EXPECT_TRUE(Downstream("10.7.0.0/16"));
  EXPECT_TRUE(violations_.empty()) << violations_.front();
}

}  // namespace
}  // namespace sluice::bgp
