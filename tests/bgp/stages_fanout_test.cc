// Fanout and Dump: a blocked branch falls behind without holding the others back, sees a
// consistent (coalesced) stream and answers lookups as of its own position; the queue stays
// bounded however often a prefix flaps; a Dump stage brings a new branch up to date while
// changes keep flowing, then unplumbs itself.
#include <gtest/gtest.h>

#include "bgp/stages/decision.h"
#include "bgp/stages/dump_stage.h"
#include "bgp/stages/fanout.h"
#include "bgp/stages/peer_in.h"
#include "stage/route_arrival.h"
#include "tests/bgp/stages_test_util.h"
#include "tests/testing/golden.h"

namespace sluice::bgp {
namespace {

using testing::Attr;
using testing::P;

class FanoutTest : public testing::StagesTest {
 protected:
  void SetUp() override {
    PeerIn::Options resolved;
    resolved.mark_resolved = true;
    in_ = plumber_.Make<PeerIn>("PeerIn", &plumber_, &tables_, resolved);
    decision_ = plumber_.Make<Decision>("Decision", DecisionOptions{});
    fanout_ = plumber_.Make<Fanout>("Fanout", io_);
    stage::Plumber::Plumb<BgpRoute>(in_, decision_);
    stage::Plumber::Plumb<BgpRoute>(decision_, fanout_);
    in_->SessionUp(sources_.Intern(testing::Source(1, "P", "10.0.0.1", 65001, false)));
    for (uint32_t i = 0; i < 8; ++i) {
      attrs_.push_back(Attr().Path({65001, i}).NextHop("10.0.0.1").In(store_));
    }
  }
  struct Branch {
    FanoutReader* reader;
    stage::CacheStage<BgpRoute>* cache;
    stage::CaptureStage<BgpRoute>* cap;
  };
  Branch AddBranch(const std::string& name, bool dump = false) {
    Branch b;
    b.reader = fanout_->AddReader(&plumber_, "FanoutReader(" + name + ")");
    BgpStage* tail = b.reader;
    if (dump) {
      auto* d = plumber_.Make<DumpStage>(
          "Dump(" + name + ")", &plumber_, &tables_, b.reader, [this] { ++dumps_done_; }, 3);
      stage::Plumber::Plumb<BgpRoute>(tail, d);
      tail = d;
      d->Start();
    }
    b.cache = Cache(name);
    b.cap = Capture("out(" + name + ")", false);
    stage::Plumber::Plumb<BgpRoute>(tail, b.cache);
    stage::Plumber::Plumb<BgpRoute>(b.cache, b.cap);
    return b;
  }
  net::Prefix N(uint32_t i) { return net::Prefix(net::IPv4Address(0x0a000000 + (i << 8)), 24); }

  RouteTableSet tables_;
  PeerIn* in_ = nullptr;
  Decision* decision_ = nullptr;
  Fanout* fanout_ = nullptr;
  std::vector<AttrRef> attrs_;
  int dumps_done_ = 0;
};

// Records the arrival (stage/route_arrival.h) each change is delivered under.
class ArrivalProbe : public BgpLinearStage {
 public:
  ArrivalProbe() : BgpLinearStage("probe") {}
  std::string_view kind() const override { return "Probe"; }
  void add_route(const BgpRoute&, BgpStage*) override { seen.push_back(stage::CurrentArrival()); }
  void delete_route(const BgpRoute&, BgpStage*) override {
    seen.push_back(stage::CurrentArrival());
  }
  void replace_route(const BgpRoute&, const BgpRoute&, BgpStage*) override {
    seen.push_back(stage::CurrentArrival());
  }
  std::vector<int64_t> seen;
};

TEST_F(FanoutTest, AQueuedChangeKeepsItsArrivalAndTheQueueShowsItsDepth) {
  FanoutReader* reader = fanout_->AddReader(&plumber_, "FanoutReader(probe)");
  auto* probe = plumber_.Make<ArrivalProbe>();
  stage::Plumber::Plumb<BgpRoute>(reader, probe);
  {
    stage::ArrivalScope arrival(111);
    in_->Announce(P("10.0.0.0/24"), attrs_[0]);  // delivered at once, under 111
    in_->Push();
  }
  reader->SetBlocked(true);
  {
    stage::ArrivalScope arrival(222);
    in_->Announce(P("10.0.1.0/24"), attrs_[0]);
    in_->Push();
  }
  {
    stage::ArrivalScope arrival(333);
    in_->Announce(P("10.0.2.0/24"), attrs_[0]);
    in_->Announce(P("10.0.1.0/24"), attrs_[1]);  // merged into the queued entry: keeps 222
    in_->Push();
  }
  EXPECT_EQ(fanout_->queue_depth(), 2u);
  EXPECT_EQ(reader->queue_depth(), 2u);
  reader->SetBlocked(false);
  RunLoop();  // caught up in the background, outside any scope
  EXPECT_EQ(probe->seen, (std::vector<int64_t>{111, 222, 333}));
  EXPECT_EQ(fanout_->queue_depth(), 0u);
  EXPECT_EQ(reader->queue_depth(), 0u);
}

TEST_F(FanoutTest, ABlockedReaderLagsConsistentlyAndCatchesUp) {
  Branch a = AddBranch("A");
  Branch b = AddBranch("B");
  in_->Announce(P("10.0.0.0/24"), attrs_[0]);
  in_->Announce(P("10.0.1.0/24"), attrs_[0]);
  in_->Push();
  b.cap->Note("B blocked");
  b.reader->SetBlocked(true);
  in_->Announce(P("10.0.0.0/24"), attrs_[1]);
  in_->Withdraw(P("10.0.1.0/24"));
  in_->Announce(P("10.0.2.0/24"), attrs_[2]);
  in_->Push();
  EXPECT_EQ(a.cache->route_count(), 2u) << "A is not held back";
  EXPECT_EQ(fanout_->queued(), 3u);
  // B still sees the old state through its reader.
  EXPECT_EQ(b.reader->lookup_route(P("10.0.0.0/24"))->attrs, attrs_[0]);
  EXPECT_TRUE(b.reader->lookup_route(P("10.0.1.0/24")));
  EXPECT_FALSE(b.reader->lookup_route(P("10.0.2.0/24")));
  EXPECT_EQ(a.reader->lookup_route(P("10.0.0.0/24"))->attrs, attrs_[1]);
  EXPECT_EQ(b.cache->Verify(), 0u);
  // 10.0.0.0/24 flaps 1,000 times and 10.0.2.0/24 comes and goes: the queue does not grow.
  for (int i = 0; i < 1000; ++i) {
    in_->Announce(P("10.0.0.0/24"), attrs_[i % 5]);
    if (i % 2) {
      in_->Withdraw(P("10.0.2.0/24"));
    } else {
      in_->Announce(P("10.0.2.0/24"), attrs_[i % 3]);
    }
    in_->Push();
  }
  EXPECT_LE(fanout_->queued(), 3u);
  EXPECT_GT(fanout_->merged(), 1900u);
  EXPECT_EQ(b.cache->Verify(), 0u);
  b.cap->Note("B unblocked: it catches up in the background");
  b.reader->SetBlocked(false);
  RunLoop();
  EXPECT_EQ(fanout_->queued(), 0u);
  EXPECT_TRUE(b.reader->ready());
  EXPECT_EQ(a.cache->route_count(), b.cache->route_count());
  for (const char* p : {"10.0.0.0/24", "10.0.1.0/24", "10.0.2.0/24"}) {
    const BgpRoute* ra = a.cache->sent(P(p));
    const BgpRoute* rb = b.cache->sent(P(p));
    ASSERT_EQ(ra == nullptr, rb == nullptr) << p;
    if (ra != nullptr) {
      EXPECT_EQ(*ra, *rb) << p;
    }
  }
  EXPECT_TRUE(violations_.empty()) << violations_.front();
  EXPECT_GOLDEN(b.cap->Text(), "tests/bgp/golden/fanout_lagging.trace");
}

TEST_F(FanoutTest, TwoLaggingReadersAtDifferentPositions) {
  Branch a = AddBranch("A");
  Branch b = AddBranch("B");
  Branch c = AddBranch("C");
  b.reader->SetBlocked(true);
  for (uint32_t i = 0; i < 50; ++i) in_->Announce(N(i), attrs_[0]);
  in_->Push();
  c.reader->SetBlocked(true);
  for (int round = 1; round < 40; ++round) {
    for (uint32_t i = 0; i < 50; i += 3) in_->Announce(N(i), attrs_[round % 8]);
    for (uint32_t i = 1; i < 50; i += 5) in_->Withdraw(N(i));
    in_->Push();
    if (round == 20) {
      b.reader->SetBlocked(false);
      Poll(1);  // B moves part of the way
      b.reader->SetBlocked(true);
    }
    EXPECT_EQ(b.cache->Verify(), 0u);
    EXPECT_EQ(c.cache->Verify(), 0u);
  }
  // At most one entry per prefix per distinct lagging position, plus one.
  EXPECT_LE(fanout_->queued(), 3u * 50u);
  b.reader->SetBlocked(false);
  c.reader->SetBlocked(false);
  RunLoop();
  EXPECT_EQ(fanout_->queued(), 0u);
  EXPECT_EQ(a.cache->route_count(), b.cache->route_count());
  EXPECT_EQ(a.cache->route_count(), c.cache->route_count());
  for (uint32_t i = 0; i < 50; ++i) {
    const BgpRoute* ra = a.cache->sent(N(i));
    for (const Branch* x : {&b, &c}) {
      const BgpRoute* r = x->cache->sent(N(i));
      ASSERT_EQ(ra == nullptr, r == nullptr);
      if (ra != nullptr) {
        EXPECT_EQ(*ra, *r);
      }
    }
  }
  EXPECT_TRUE(violations_.empty()) << violations_.front();
}

TEST_F(FanoutTest, DumpBringsANewBranchUpToDateWhileChangesFlow) {
  Branch a = AddBranch("A");
  for (uint32_t i = 0; i < 12; ++i) in_->Announce(N(i), attrs_[0]);
  in_->Push();
  Branch d = AddBranch("D", /*dump=*/true);
  d.cap->Note("dump started (3 prefixes per slice)");
  Poll(1);
  d.cap->Note("changes behind the dump's cursor pass, ahead of it wait for the dump");
  in_->Announce(N(1), attrs_[1]);
  in_->Announce(N(9), attrs_[1]);
  in_->Withdraw(N(10));
  in_->Announce(N(20), attrs_[1]);
  in_->Push();
  EXPECT_EQ(d.cache->Verify(), 0u);
  d.cap->Note("the branch is blocked: the dump waits");
  d.reader->SetBlocked(true);
  in_->Withdraw(N(5));
  in_->Push();
  Poll(5);
  d.cap->Note("unblocked");
  d.reader->SetBlocked(false);
  RunLoop();
  EXPECT_EQ(dumps_done_, 1);
  EXPECT_EQ(d.cache->route_count(), a.cache->route_count());
  for (uint32_t i = 0; i < 21; ++i) {
    const BgpRoute* ra = a.cache->sent(N(i));
    const BgpRoute* rd = d.cache->sent(N(i));
    ASSERT_EQ(ra == nullptr, rd == nullptr) << i;
    if (ra != nullptr) {
      EXPECT_EQ(*ra, *rd);
    }
  }
  EXPECT_TRUE(violations_.empty()) << violations_.front();
  // The Dump stage unplumbed itself.
  for (const stage::StageBase* s : plumber_.stages()) EXPECT_NE(s->kind(), "Dump");
  EXPECT_EQ(d.reader->downstream(), d.cache);
  EXPECT_GOLDEN(d.cap->Text(), "tests/bgp/golden/dump.trace");
}

}  // namespace
}  // namespace sluice::bgp
