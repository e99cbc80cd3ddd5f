// ExtIntStage: EGP routes resolved through IGP and connected routes, recursively; an IGP
// change re-resolves them; unresolvable ones are held back and the IGP route for their prefix
// is used instead. Golden trace of the stage's output.
#include "rib/ext_int_stage.h"

#include <gtest/gtest.h>

#include "rib/merge_stage.h"
#include "tests/rib/stage_fixture.h"
#include "tests/testing/golden.h"

namespace sluice::rib {
namespace {

using testing::A;
using testing::P;
using testing::StageFixture;

struct ExtIntFixture : StageFixture {
  OriginStage* connected = Origin("connected", ProtocolClass::kIgp, 0);
  OriginStage* stat = Origin("static", ProtocolClass::kIgp, 1);
  OriginStage* ospf = Origin("ospf", ProtocolClass::kIgp, 110);
  OriginStage* ebgp = Origin("ebgp", ProtocolClass::kEgp, 20);
  MergeStage* igp = plumber.Make<MergeStage>("merge-igp");
  MergeStage* egp = plumber.Make<MergeStage>("merge-egp");
  ExtIntStage* ext_int = plumber.Make<ExtIntStage>("ext-int", &sources, io);
  stage::CaptureStage<RibRoute>* capture =
      plumber.Make<stage::CaptureStage<RibRoute>>("capture", false);

  ExtIntFixture() {
    for (OriginStage* o : {connected, stat, ospf, ebgp}) {
      auto* c = Cache("cache<" + o->name() + ">");
      stage::Plumber::Plumb<RibRoute>(o, c);
      stage::Plumber::Plumb<RibRoute>(c, o == ebgp ? egp : igp);
    }
    auto* ci = Cache("cache<merge-igp>");
    auto* ce = Cache("cache<merge-egp>");
    stage::Plumber::Plumb<RibRoute>(igp, ci);
    stage::Plumber::Plumb<RibRoute>(egp, ce);
    ext_int->PlumbInternal(ci);
    ext_int->PlumbExternal(ce);
    auto* co = Cache("cache<ext-int>");
    stage::Plumber::Plumb<RibRoute>(ext_int, co);
    stage::Plumber::Plumb<RibRoute>(co, capture);
  }
  std::string Via(const char* prefix) {
    auto r = capture->lookup_route(P(prefix));
    return r ? r->ToString() : "none";
  }
};

TEST(ExtIntStage, ResolvesRecursivelyAndReresolvesOnIgpChanges) {
  ExtIntFixture f;
  auto* capture = f.capture;
  capture->Note("connected subnets on eth0 and eth1; static 192.168.0.0/16 via 10.0.0.2");
  StageFixture::Add(f.connected, "10.0.0.0/24", "", "eth0");
  StageFixture::Add(f.connected, "10.0.1.0/24", "", "eth1");
  StageFixture::Add(f.stat, "192.168.0.0/16", "10.0.0.2", "", 5);

  capture->Note("ebgp via 192.168.1.1: resolved through static, then connected (recursive)");
  StageFixture::Add(f.ebgp, "203.0.113.0/24", "192.168.1.1");
  capture->Note("ebgp via 10.0.1.7: directly connected on eth1");
  StageFixture::Add(f.ebgp, "198.51.100.0/24", "10.0.1.7");
  capture->Note("ebgp via 172.16.0.1: unresolvable, held back");
  StageFixture::Add(f.ebgp, "192.0.2.0/24", "172.16.0.1");
  EXPECT_EQ(f.Via("192.0.2.0/24"), "none");
  capture->Note("ospf's route for 203.0.113.0/24 loses to ebgp (110 > 20)");
  StageFixture::Add(f.ospf, "203.0.113.0/24", "10.0.1.9", "eth1", 7);

  capture->Note("IGP change: static 192.168.1.0/24 via 10.0.1.3 dev eth1, more specific");
  StageFixture::Add(f.stat, "192.168.1.0/24", "10.0.1.3", "eth1", 2);
  EXPECT_TRUE(f.ext_int->rewalk_running());
  f.Run();
  EXPECT_EQ(f.Via("203.0.113.0/24"),
            "203.0.113.0/24 ebgp/20 via 192.168.1.1 metric 0 => via 10.0.1.3 dev eth1 igp 2");

  capture->Note("IGP change: static 172.16.0.0/12 via 10.0.0.2 makes 172.16.0.1 resolvable");
  StageFixture::Add(f.stat, "172.16.0.0/12", "10.0.0.2", "", 9);
  f.Run();
  EXPECT_EQ(f.Via("192.0.2.0/24"),
            "192.0.2.0/24 ebgp/20 via 172.16.0.1 metric 0 => via 10.0.0.2 dev eth0 igp 9");

  capture->Note("IGP change: the static routes to 192.168/16 go; ospf's route takes over");
  StageFixture::Delete(f.stat, "192.168.1.0/24");
  f.Run();
  StageFixture::Delete(f.stat, "192.168.0.0/16");
  f.Run();
  EXPECT_EQ(f.Via("203.0.113.0/24"), "203.0.113.0/24 ospf/110 via 10.0.1.9 dev eth1 metric 7");

  capture->Note("connected 10.0.0.0/24 goes: 172.16.0.1 resolves no more");
  StageFixture::Delete(f.connected, "10.0.0.0/24");
  f.Run();
  EXPECT_EQ(f.Via("192.0.2.0/24"), "none");
  EXPECT_FALSE(f.ext_int->ResolutionOf(A("172.16.0.1")).has_value());

  capture->Note("a nexthop loop (10.9/16 via 10.8.0.1, 10.8/16 via 10.9.0.1) is unresolvable");
  StageFixture::Add(f.stat, "10.9.0.0/16", "10.8.0.1");
  StageFixture::Add(f.stat, "10.8.0.0/16", "10.9.0.1");
  StageFixture::Add(f.ebgp, "100.64.0.0/24", "10.9.0.5");
  f.Run();
  EXPECT_EQ(f.Via("100.64.0.0/24"), "none");
  capture->Note("breaking the loop with 10.8.0.0/16 dev eth1 resolves it");
  StageFixture::Add(f.stat, "10.8.0.0/16", "", "eth1");
  f.Run();
  EXPECT_EQ(f.Via("100.64.0.0/24"),
            "100.64.0.0/24 ebgp/20 via 10.9.0.5 metric 0 => via 10.8.0.1 dev eth1 igp 0");

  capture->Note("ebgp withdraws; the nexthop cache empties");
  for (const char* p : {"203.0.113.0/24", "198.51.100.0/24", "192.0.2.0/24", "100.64.0.0/24"}) {
    StageFixture::Delete(f.ebgp, p);
  }
  f.Run();
  EXPECT_EQ(f.ext_int->nexthop_count(), 0u);
  f.ExpectConsistent();
  EXPECT_GOLDEN(capture->Text(), "tests/rib/golden/ext_int.trace");
}

// While a re-resolution walk is under way, prefixes it has not reached keep their old answer
// in lookups, and new EGP routes for them arrive with the old resolution, then move.
TEST(ExtIntStage, LookupsStayConsistentDuringAReresolutionWalk) {
  ExtIntFixture f;
  StageFixture::Add(f.connected, "10.0.0.0/24", "", "eth0");
  StageFixture::Add(f.connected, "10.0.1.0/24", "", "eth1");
  StageFixture::Add(f.stat, "192.168.0.0/16", "10.0.0.2");
  for (int i = 0; i < 5000; ++i) {
    net::Prefix p(net::IPv4Address(0x64000000u + (static_cast<uint32_t>(i) << 8)), 24);
    f.ebgp->Add(p, A("192.168.1.1"), Symbol(), 0, TagSet());
  }
  f.ebgp->Push();
  StageFixture::Add(f.stat, "192.168.1.0/24", "10.0.1.3", "eth1");
  ASSERT_TRUE(f.ext_int->rewalk_running());
  // One slice at a time: check consistency between slices, and add routes meanwhile.
  int slices = 0;
  while (f.ext_int->rewalk_running()) {
    f.io.run_one();
    ++slices;
    f.ebgp->Add(
        net::Prefix(net::IPv4Address(0x65000000u + (static_cast<uint32_t>(slices) << 8)), 24),
        A("192.168.1.1"), Symbol(), 0, TagSet());
    f.ebgp->Push();
    f.ExpectConsistent();
  }
  EXPECT_GT(slices, 1) << "5,000 routes should take several slices";
  f.Run();
  f.ExpectConsistent();
  EXPECT_EQ(f.ext_int->ResolutionOf(A("192.168.1.1"))->nexthop, A("10.0.1.3"));
  EXPECT_EQ(f.Via("100.0.7.0/24"),
            "100.0.7.0/24 ebgp/20 via 192.168.1.1 metric 0 => via 10.0.1.3 dev eth1 igp 0");
}

}  // namespace
}  // namespace sluice::rib
