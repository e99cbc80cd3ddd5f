// RegisterStage: XORP NSDI'05 Fig. 8 reproduced exactly, and the invalidations a change that
// overlays a registered subnet sends. Golden trace: the routes, the answers and the
// notifications, in order.
#include "rib/register_stage.h"

#include <gtest/gtest.h>

#include "rib/ext_int_stage.h"
#include "rib/merge_stage.h"
#include "tests/rib/stage_fixture.h"
#include "tests/testing/golden.h"

namespace sluice::rib {
namespace {

using testing::A;
using testing::P;
using testing::StageFixture;

// Writes what it is told into the trace.
class TracingRegistrant : public InterestRegistrant {
 public:
  TracingRegistrant(std::string name, stage::CaptureStage<RibRoute>* capture)
      : name_(std::move(name)), capture_(capture) {}
  void OnInterestInvalidated(const net::Prefix& subnet) override {
    ++invalidations;
    capture_->Note(name_ + " told: invalidated " + subnet.ToString());
  }
  void OnInterestChanged(const InterestAnswer& answer) override {
    ++changes;
    capture_->Note(name_ + " told: changed " + answer.ToString());
  }
  int invalidations = 0;
  int changes = 0;

 private:
  std::string name_;
  stage::CaptureStage<RibRoute>* capture_;
};

struct RegisterFixture : StageFixture {
  OriginStage* stat = Origin("static", ProtocolClass::kIgp, 1);
  OriginStage* ebgp = Origin("ebgp", ProtocolClass::kEgp, 20);
  MergeStage* igp = plumber.Make<MergeStage>("merge-igp");
  MergeStage* egp = plumber.Make<MergeStage>("merge-egp");
  ExtIntStage* ext_int = plumber.Make<ExtIntStage>("ext-int", &sources, io);
  RegisterStage* reg = plumber.Make<RegisterStage>("register", &sources, io);
  stage::CaptureStage<RibRoute>* capture =
      plumber.Make<stage::CaptureStage<RibRoute>>("capture", false);

  RegisterFixture() {
    stage::Plumber::Plumb<RibRoute>(stat, igp);
    stage::Plumber::Plumb<RibRoute>(ebgp, egp);
    ext_int->PlumbInternal(igp);
    ext_int->PlumbExternal(egp);
    auto* c1 = Cache("cache<ext-int>");
    auto* c2 = Cache("cache<register>");
    stage::Plumber::Plumb<RibRoute>(ext_int, c1);
    stage::Plumber::Plumb<RibRoute>(c1, reg);
    stage::Plumber::Plumb<RibRoute>(reg, c2);
    stage::Plumber::Plumb<RibRoute>(c2, capture);
  }
  InterestAnswer Ask(InterestRegistrant* who, const std::string& name, const char* address) {
    InterestAnswer a = reg->Register(who, A(address));
    capture->Note(name + " registers " + address + " -> " + a.ToString());
    return a;
  }
};

TEST(RegisterStage, ReproducesXorpFigure8) {
  RegisterFixture f;
  TracingRegistrant bgp("bgp", f.capture);
  TracingRegistrant pim("pim", f.capture);
  f.capture->Note("the routes of Fig. 8");
  for (const char* p : {"128.16.0.0/16", "128.16.0.0/18", "128.16.128.0/17", "128.16.192.0/18"}) {
    StageFixture::Add(f.stat, p, "10.0.0.1", "eth0", 1);
  }

  InterestAnswer a = f.Ask(&bgp, "bgp", "128.16.32.1");
  EXPECT_EQ(a.route->network, P("128.16.0.0/18"));
  EXPECT_EQ(a.valid_subnet, P("128.16.0.0/18"));
  a = f.Ask(&bgp, "bgp", "128.16.160.1");
  EXPECT_EQ(a.route->network, P("128.16.128.0/17"));
  EXPECT_EQ(a.valid_subnet, P("128.16.128.0/18"));
  EXPECT_TRUE(a.resolvable);
  EXPECT_EQ(a.nexthop, A("10.0.0.1"));
  EXPECT_EQ(a.metric, 1u);
  // Another client, another address in the same subnet: the same registration.
  a = f.Ask(&pim, "pim", "128.16.170.5");
  EXPECT_EQ(a.valid_subnet, P("128.16.128.0/18"));
  EXPECT_EQ(f.reg->registration_count(), 2u);
  // Between the /18s, the /16 answers for 128.16.64.0/18.
  a = f.Ask(&bgp, "bgp", "128.16.64.1");
  EXPECT_EQ(a.route->network, P("128.16.0.0/16"));
  EXPECT_EQ(a.valid_subnet, P("128.16.64.0/18"));
  // Nothing covers 10.1.1.1: unresolvable, for the half of the space without routes.
  a = f.Ask(&bgp, "bgp", "10.1.1.1");
  EXPECT_FALSE(a.resolvable);
  EXPECT_EQ(a.valid_subnet, P("0.0.0.0/1"));

  f.capture->Note("a route that overlays no registered subnet: nobody is told");
  StageFixture::Add(f.stat, "128.16.224.0/19", "10.0.0.1", "eth0", 1);
  f.Run();
  EXPECT_EQ(bgp.invalidations + pim.invalidations, 0);

  f.capture->Note("128.16.160.0/19 overlays 128.16.128.0/18: both clients are told");
  StageFixture::Add(f.stat, "128.16.160.0/19", "10.0.0.1", "eth0", 1);
  f.Run();
  EXPECT_EQ(bgp.invalidations, 1);
  EXPECT_EQ(pim.invalidations, 1);
  a = f.Ask(&bgp, "bgp", "128.16.160.1");
  EXPECT_EQ(a.route->network, P("128.16.160.0/19"));
  EXPECT_EQ(a.valid_subnet, P("128.16.160.0/19"));

  f.capture->Note("128.16.0.0/18 changes its nexthop: same subnet, new answer");
  StageFixture::Add(f.stat, "128.16.0.0/18", "10.0.0.2", "eth0", 4);
  f.Run();
  EXPECT_EQ(bgp.changes, 1);

  f.capture->Note("128.16.0.0/18 is deleted: its registration is invalidated");
  StageFixture::Delete(f.stat, "128.16.0.0/18");
  f.Run();
  EXPECT_EQ(bgp.invalidations, 2);

  f.capture->Note("128.16.64.0/20 appears inside 128.16.64.0/18");
  StageFixture::Add(f.stat, "128.16.64.0/20", "10.0.0.1", "eth0", 1);
  f.Run();
  EXPECT_EQ(bgp.invalidations, 3);

  f.capture->Note("a default route covers the unresolvable 0.0.0.0/1");
  StageFixture::Add(f.stat, "0.0.0.0/0", "10.0.0.9", "eth0", 1);
  f.Run();
  EXPECT_EQ(bgp.invalidations, 4);
  a = f.Ask(&bgp, "bgp", "10.1.1.1");
  EXPECT_EQ(a.route->network, P("0.0.0.0/0"));
  EXPECT_EQ(a.valid_subnet, P("0.0.0.0/1"));

  f.capture->Note("deregistering");
  EXPECT_TRUE(f.reg->Deregister(&bgp, P("0.0.0.0/1")).ok());
  EXPECT_EQ(f.reg->Deregister(&bgp, P("0.0.0.0/1")).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(f.reg->Deregister(&pim, P("128.16.160.0/19")).code(), absl::StatusCode::kNotFound);
  f.reg->DeregisterAll(&bgp);
  EXPECT_EQ(f.reg->registration_count(), 0u);
  StageFixture::Delete(f.stat, "128.16.160.0/19");
  f.Run();
  EXPECT_EQ(bgp.invalidations, 4) << "nothing after deregistering";

  f.ExpectConsistent();
  EXPECT_GOLDEN(f.capture->Text(), "tests/rib/golden/register.trace");
}

// A registration older than the table's last change is replaced by a larger one: registering
// a subnet that contains it invalidates it (XORP's add_registration).
TEST(RegisterStage, LargerSubnetReplacesStaleSmallerRegistrations) {
  RegisterFixture f;
  testing::RecordingRegistrant bgp;
  StageFixture::Add(f.stat, "10.0.0.0/16", "192.0.2.1", "eth0");
  StageFixture::Add(f.stat, "10.0.0.0/24", "192.0.2.1", "eth0");
  EXPECT_EQ(f.reg->Register(&bgp, A("10.0.1.1")).valid_subnet, P("10.0.1.0/24"));
  // The /24 goes: 10.0.1.0/24's answer (the /16) still holds, so it is not invalidated...
  StageFixture::Delete(f.stat, "10.0.0.0/24");
  f.Run();
  EXPECT_TRUE(bgp.events.empty());
  // ...but registering 10.0.0.1 now answers the whole /16, which replaces it.
  EXPECT_EQ(f.reg->Register(&bgp, A("10.0.0.1")).valid_subnet, P("10.0.0.0/16"));
  f.Run();
  EXPECT_EQ(bgp.events, std::vector<std::string>{"invalidated 10.0.1.0/24"});
  EXPECT_EQ(f.reg->registration_count(), 1u);
}

// EGP winners answer with their resolved nexthop and the IGP metric to it.
TEST(RegisterStage, ResolvedEgpRouteAnswersWithItsResolution) {
  RegisterFixture f;
  testing::RecordingRegistrant bgp;
  StageFixture::Add(f.stat, "10.0.0.0/8", "192.0.2.1", "eth0", 7);
  StageFixture::Add(f.ebgp, "203.0.113.0/24", "10.1.2.3");
  InterestAnswer a = f.reg->Register(&bgp, A("203.0.113.9"));
  EXPECT_EQ(a.protocol.name(), "ebgp");
  EXPECT_EQ(a.nexthop, A("192.0.2.1"));
  EXPECT_EQ(a.ifname.name(), "eth0");
  EXPECT_EQ(a.metric, 7u);
  // The IGP route's metric changes: the EGP route is re-resolved, the registrant told.
  StageFixture::Add(f.stat, "10.0.0.0/8", "192.0.2.1", "eth0", 9);
  f.Run();
  ASSERT_EQ(bgp.events.size(), 1u);
  EXPECT_EQ(bgp.events[0],
            "changed 203.0.113.0: 203.0.113.0/24 ebgp/20 valid 203.0.113.0/24 via 192.0.2.1 dev "
            "eth0 metric 9");
}

TEST(RegisterStage, Ipv6Subnets) {
  RegisterFixture f;
  testing::RecordingRegistrant bgp;
  StageFixture::Add(f.stat, "2001:db8::/32", "fe80::1", "eth0");
  StageFixture::Add(f.stat, "2001:db8:8000::/33", "fe80::1", "eth0");
  InterestAnswer a = f.reg->Register(&bgp, A("2001:db8::1"));
  EXPECT_EQ(a.route->network, P("2001:db8::/32"));
  EXPECT_EQ(a.valid_subnet, P("2001:db8::/33"));
  a = f.reg->Register(&bgp, A("2001:db9::1"));
  EXPECT_FALSE(a.resolvable);
  EXPECT_EQ(a.valid_subnet, P("2001:db9::/32"));
}

}  // namespace
}  // namespace sluice::rib
