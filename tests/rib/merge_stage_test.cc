// MergeStage: the lower admin distance wins; ties go to the protocol name sorting first; a
// change of admin distance re-decides. Golden trace of the merge's output.
#include "rib/merge_stage.h"

#include <gtest/gtest.h>

#include "tests/rib/stage_fixture.h"
#include "tests/testing/golden.h"

namespace sluice::rib {
namespace {

using testing::P;
using testing::StageFixture;

TEST(MergeStage, LowerAdminDistanceWinsAndTiesGoByName) {
  StageFixture f;
  auto* stat = f.Origin("static", ProtocolClass::kIgp, 1);
  auto* ospf = f.Origin("ospf", ProtocolClass::kIgp, 110);
  auto* rip = f.Origin("rip", ProtocolClass::kIgp, 120);
  auto* zebra = f.Origin("zebra", ProtocolClass::kIgp, 110);  // ties with ospf
  auto* merge = f.plumber.Make<MergeStage>("merge");
  for (OriginStage* o : {stat, ospf, rip, zebra}) {
    auto* cache = f.Cache("cache<" + o->name() + ">");
    stage::Plumber::Plumb<RibRoute>(o, cache);
    stage::Plumber::Plumb<RibRoute>(cache, merge);
  }
  auto* cache = f.Cache("cache<merge>");
  auto* capture = f.plumber.Make<stage::CaptureStage<RibRoute>>("capture", false);
  stage::Plumber::Plumb<RibRoute>(merge, cache);
  stage::Plumber::Plumb<RibRoute>(cache, capture);

  capture->Note("rip, then ospf, then static add 10.0.0.0/8");
  StageFixture::Add(rip, "10.0.0.0/8", "192.0.2.9", "", 3);
  StageFixture::Add(ospf, "10.0.0.0/8", "192.0.2.5", "", 20);
  StageFixture::Add(stat, "10.0.0.0/8", "", "eth0");
  capture->Note("rip changes its losing route: nothing");
  StageFixture::Add(rip, "10.0.0.0/8", "192.0.2.9", "", 5);
  capture->Note("static changes its winning route");
  StageFixture::Add(stat, "10.0.0.0/8", "192.0.2.1");
  capture->Note("static, then ospf delete: the next best takes over");
  StageFixture::Delete(stat, "10.0.0.0/8");
  StageFixture::Delete(ospf, "10.0.0.0/8");
  capture->Note("ospf and zebra tie at 110: ospf sorts first, whatever the order");
  StageFixture::Add(zebra, "10.1.0.0/16", "192.0.2.7");
  StageFixture::Add(ospf, "10.1.0.0/16", "192.0.2.5");
  StageFixture::Add(zebra, "10.2.0.0/16", "192.0.2.7");
  StageFixture::Delete(ospf, "10.1.0.0/16");
  EXPECT_EQ(merge->lookup_route(P("10.1.0.0/16"))->protocol.name(), "zebra");
  capture->Note("ospf adds 10.3.0.0/16; rip's admin distance becomes 100");
  StageFixture::Add(ospf, "10.3.0.0/16", "192.0.2.5");
  StageFixture::Add(rip, "10.3.0.0/16", "192.0.2.9");
  rip->SetAdminDistance(100);
  f.Run();
  EXPECT_EQ(merge->lookup_route(P("10.3.0.0/16"))->protocol.name(), "rip");
  EXPECT_EQ(merge->lookup_route(P("10.0.0.0/8"))->admin_distance, 100);
  capture->Note("rip's admin distance back to 120");
  rip->SetAdminDistance(120);
  f.Run();
  EXPECT_EQ(merge->lookup_route(P("10.3.0.0/16"))->protocol.name(), "ospf");

  f.ExpectConsistent();
  EXPECT_GOLDEN(capture->Text(), "tests/rib/golden/merge.trace");
}

}  // namespace
}  // namespace sluice::rib
