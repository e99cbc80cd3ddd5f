// One RIB feeding several FEAs (DESIGN.md § Processes): each gets the same FIB through its own
// FeaOut stages, and one that stops, lags, dies or goes away changes nothing for the others.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "rib/rib.h"
#include "tests/rib/rib_fixture.h"
#include "tests/rib/rib_test_util.h"

namespace sluice::rib {
namespace {

using testing::FakeFib;
using testing::P;
using testing::PrefixesOf;
using testing::Slash24s;

constexpr std::string_view kSecond = "fea-2";

// The fixture's FakeFib is the FEA "fea"; a second one is "fea-2".
struct TwoFeas : testing::RibFixture {
  FakeFib& first = fib;
  FakeFib second{io};

  explicit TwoFeas(FeaOutOptions fea = {}) : RibFixture(fea) {
    EXPECT_TRUE(rib->AddFea(kSecond, &second).ok());
  }
  FeaOutStage* Out(std::string_view fea) { return rib->network(net::Family::kIPv4).fea_out(fea); }
  // The RIB's IPv4 winners as the FakeFib prints its FIB.
  std::string Winners() const {
    std::string out;
    for (const RibRoute& r : rib->ListRoutes(net::Family::kIPv4, std::nullopt, 1u << 20)) {
      out += FibRoute::From(r).ToString() + "\n";
    }
    return out;
  }
};

TEST(RibFeas, EveryFeaGetsTheRibsWinners) {
  TwoFeas f;
  EXPECT_EQ(f.rib->Feas(), (std::vector<std::string>{"fea", "fea-2"}));
  ASSERT_TRUE(f.rib->AddRoutes("static", Slash24s(0, 40)).ok());
  f.rib->FeaBorn();
  f.rib->FeaBorn(kSecond);
  f.Run();
  ASSERT_TRUE(f.rib->DeleteRoutes("static", PrefixesOf(Slash24s(0, 10))).ok());
  ASSERT_TRUE(f.rib->AddRoutes("static", Slash24s(100, 10)).ok());
  f.Run();
  EXPECT_EQ(f.first.fib.size(), 40u);
  EXPECT_EQ(f.first.Text(), f.Winners());
  EXPECT_EQ(f.second.Text(), f.Winners());
  EXPECT_EQ(f.first.errors + f.second.errors, 0u);
  EXPECT_TRUE(f.rib->Idle());
  EXPECT_TRUE(f.violations.empty());
}

TEST(RibFeas, AStoppedFeaLagsAloneAndCatchesUpAlone) {
  TwoFeas f(FeaOutOptions{.batch_size = 10, .max_in_flight = 2, .max_backlog = 50});
  ASSERT_TRUE(f.rib->AddRoutes("static", Slash24s(0, 40)).ok());
  f.rib->FeaBorn();
  f.rib->FeaBorn(kSecond);
  f.Run();
  const size_t first_batches = f.first.batches;

  // The second FEA stops answering while 140 changes pass, 20 at a time: the first gets each
  // batch of them as it comes.
  f.second.hold = true;
  for (uint32_t i = 0; i < 40; i += 20) {
    ASSERT_TRUE(f.rib->DeleteRoutes("static", PrefixesOf(Slash24s(i, 20))).ok());
    f.Run();
  }
  for (uint32_t i = 100; i < 200; i += 20) {
    ASSERT_TRUE(f.rib->AddRoutes("static", Slash24s(i, 20)).ok());
    f.Run();
    EXPECT_EQ(f.first.fib.size(), i - 80);
  }
  EXPECT_EQ(f.first.fib.size(), 100u);
  EXPECT_EQ(f.first.Text(), f.Winners());
  EXPECT_EQ(f.first.batches - first_batches, 14u);
  EXPECT_FALSE(f.Out(Rib::kDefaultFea)->lagging());
  EXPECT_TRUE(f.Out(kSecond)->lagging());
  EXPECT_LE(f.Out(kSecond)->stats().peak_queued, 51u);
  EXPECT_EQ(f.Out(kSecond)->queued(), 0u);

  // It answers: a full push to it alone.
  f.second.hold = false;
  while (!f.second.held.empty()) f.second.Release();
  f.Run();
  EXPECT_EQ(f.second.full_pushes_begun, 1u);
  EXPECT_EQ(f.first.full_pushes_begun, 0u);
  EXPECT_EQ(f.second.Text(), f.Winners());
  EXPECT_EQ(f.first.batches - first_batches, 14u) << "nothing re-sent to the first";
  EXPECT_TRUE(f.rib->Idle());
  EXPECT_TRUE(f.violations.empty());
}

TEST(RibFeas, ADeadFeaIsReSentItsFibWhenBornAgainAndTheOthersAreNot) {
  TwoFeas f;
  ASSERT_TRUE(f.rib->AddRoutes("static", Slash24s(0, 30)).ok());
  f.rib->FeaBorn();
  f.rib->FeaBorn(kSecond);
  f.Run();
  f.rib->FeaDied(kSecond);
  const size_t second_batches = f.second.batches;
  ASSERT_TRUE(f.rib->DeleteRoutes("static", PrefixesOf(Slash24s(0, 5))).ok());
  ASSERT_TRUE(f.rib->AddRoutes("static", Slash24s(50, 5)).ok());
  f.Run();
  EXPECT_EQ(f.second.batches, second_batches) << "nothing sent to a dead FEA";
  EXPECT_EQ(f.first.Text(), f.Winners());

  const size_t first_pushes = f.first.full_push_done.size();
  f.second.Reset();  // it restarted with an empty FIB
  f.rib->FeaBorn(kSecond);
  f.Run();
  EXPECT_EQ(f.second.Text(), f.Winners());
  EXPECT_EQ(f.first.full_push_done.size(), first_pushes);
}

TEST(RibFeas, AnFeaRemovedIsFedNoMore) {
  TwoFeas f;
  f.rib->FeaBorn();
  f.rib->FeaBorn(kSecond);
  f.Run();
  EXPECT_NE(f.rib->Describe().find("ipv4/fea-out/fea-2 [FeaOut]"), std::string::npos);
  ASSERT_TRUE(f.rib->RemoveFea(kSecond).ok());
  f.Run();
  EXPECT_EQ(f.rib->Describe().find("fea-out/fea-2"), std::string::npos);
  EXPECT_EQ(f.rib->Feas(), (std::vector<std::string>{"fea"}));
  ASSERT_TRUE(f.rib->AddRoutes("static", Slash24s(0, 3)).ok());
  f.Run();
  EXPECT_EQ(f.first.fib.size(), 3u);
  EXPECT_TRUE(f.second.fib.empty());
  f.rib->FeaBorn(kSecond);  // an FEA the RIB does not feed: nothing
  f.Run();
  EXPECT_TRUE(f.second.fib.empty());

  EXPECT_EQ(f.rib->RemoveFea(kSecond).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(f.rib->AddFea("", &f.second).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(f.rib->AddFea("fea", &f.second).code(), absl::StatusCode::kAlreadyExists);
  // Added again, it starts like any FEA: nothing before its birth, then the whole FIB.
  ASSERT_TRUE(f.rib->AddFea(kSecond, &f.second).ok());
  f.rib->FeaBorn(kSecond);
  f.Run();
  EXPECT_EQ(f.second.Text(), f.Winners());
}

// A dump of an FEA's interfaces: each (interface, address, length), every interface up.
void Report(InterfaceEvents* events,
            const std::vector<std::tuple<const char*, const char*, int>>& addresses) {
  ASSERT_NE(events, nullptr);
  events->OnSyncStart();
  for (const auto& [ifname, address, length] : addresses) {
    events->OnInterfaceAdded(ifname, true);
    events->OnAddressAdded(ifname, testing::A(address), length);
  }
  events->OnSyncDone();
}

// An FEA's FIB as "prefix [via X] [dev Y]" lines.
std::vector<std::string> Forwarding(const FakeFib& fib) {
  std::vector<std::string> out;
  for (const auto& [p, r] : fib.fib) {
    std::string line = r.network.ToString();
    if (r.nexthop) line += " via " + r.nexthop->ToString();
    if (!r.ifname.empty()) line += " dev " + r.ifname.name();
    out.push_back(line);
  }
  return out;
}

using Lines = std::vector<std::string>;

TEST(RibFeas, EachFeaIsSentWhatItsOwnInterfacesReachThroughThem) {
  TwoFeas f;
  // The RIB resolves through the first FEA's interfaces; the second has only 10.0.0.0/24, on
  // an interface of another name.
  f.Interfaces();
  Report(f.rib->FeaInterfaceEvents(Rib::kDefaultFea),
         {{"eth0", "10.0.0.1", 24}, {"eth1", "10.0.1.1", 24}, {"eth0", "2001:db8:1::1", 64}});
  Report(f.rib->FeaInterfaceEvents(kSecond), {{"vc", "10.0.0.2", 24}});
  EXPECT_TRUE(f.rib->FeaViewKnown(kSecond));
  ASSERT_TRUE(
      f.rib
          ->AddRoutes("ebgp", std::vector<RouteInput>{testing::In("192.168.0.0/24", "10.0.0.9"),
                                                      testing::In("192.168.1.0/24", "10.0.1.9")})
          .ok());
  ASSERT_TRUE(
      f.rib->AddRoutes("static", std::vector<RouteInput>{testing::In("172.16.0.0/16", "10.0.1.7")})
          .ok());
  f.rib->FeaBorn();
  f.rib->FeaBorn(kSecond);
  f.Run();
  const Lines all = {"10.0.0.0/24 dev eth0",
                     "10.0.1.0/24 dev eth1",
                     "172.16.0.0/16 via 10.0.1.7",
                     "192.168.0.0/24 via 10.0.0.9 dev eth0",
                     "192.168.1.0/24 via 10.0.1.9 dev eth1",
                     "2001:db8:1::/64 dev eth0"};
  EXPECT_EQ(Forwarding(f.first), all);
  EXPECT_EQ(Forwarding(f.second),
            (Lines{"10.0.0.0/24 dev vc", "192.168.0.0/24 via 10.0.0.9 dev vc"}));

  // Live changes follow each FEA's view: one it cannot reach goes to the other alone.
  ASSERT_TRUE(
      f.rib
          ->AddRoutes("ebgp", std::vector<RouteInput>{testing::In("192.168.2.0/24", "10.0.1.9"),
                                                      testing::In("192.168.3.0/24", "10.0.0.9")})
          .ok());
  ASSERT_TRUE(
      f.rib->DeleteRoutes("ebgp", std::vector<net::Prefix>{testing::P("192.168.1.0/24")}).ok());
  f.Run();
  EXPECT_EQ(Forwarding(f.second), (Lines{"10.0.0.0/24 dev vc", "192.168.0.0/24 via 10.0.0.9 dev vc",
                                         "192.168.3.0/24 via 10.0.0.9 dev vc"}));

  // The second FEA gains 10.0.1.0/24 and loses 10.0.0.0/24: a full push to it alone brings
  // what it now reaches and sweeps what it no longer does.
  const size_t first_batches = f.first.batches;
  InterfaceEvents* second = f.rib->FeaInterfaceEvents(kSecond);
  second->OnInterfaceAdded("vd", true);
  second->OnAddressAdded("vd", testing::A("10.0.1.2"), 24);
  second->OnInterfaceRemoved("vc");
  f.Run();
  EXPECT_EQ(Forwarding(f.second), (Lines{"10.0.1.0/24 dev vd", "172.16.0.0/16 via 10.0.1.7",
                                         "192.168.2.0/24 via 10.0.1.9 dev vd"}));
  EXPECT_GE(f.second.full_pushes_begun, 1u);
  EXPECT_EQ(f.first.full_pushes_begun, 0u);
  EXPECT_EQ(f.first.batches, first_batches) << "nothing re-sent to the first";

  ASSERT_TRUE(f.rib
                  ->DeleteRoutes("ebgp", std::vector<net::Prefix>{testing::P("192.168.2.0/24"),
                                                                  testing::P("192.168.3.0/24")})
                  .ok());
  f.Run();
  EXPECT_EQ(Forwarding(f.second), (Lines{"10.0.1.0/24 dev vd", "172.16.0.0/16 via 10.0.1.7"}));
  EXPECT_EQ(f.first.errors + f.second.errors, 0u)
      << "an add of a route present or a delete of one absent";
  EXPECT_TRUE(f.rib->Idle());
  EXPECT_TRUE(f.violations.empty());
}

TEST(RibFeas, ANexthopOnASubnetOfAnotherFeaResolvesAndGoesToItAlone) {
  TwoFeas f;
  f.Interfaces();
  Report(f.rib->FeaInterfaceEvents(Rib::kDefaultFea),
         {{"eth0", "10.0.0.1", 24}, {"eth1", "10.0.1.1", 24}, {"eth0", "2001:db8:1::1", 64}});
  // Only the second FEA has 10.0.2.0/24: it joins the RIB's connected routes.
  Report(f.rib->FeaInterfaceEvents(kSecond), {{"vc", "10.0.0.2", 24}, {"ve", "10.0.2.2", 24}});
  ASSERT_TRUE(
      f.rib->AddRoutes("ebgp", std::vector<RouteInput>{testing::In("192.168.5.0/24", "10.0.2.9")})
          .ok());
  f.rib->FeaBorn();
  f.rib->FeaBorn(kSecond);
  f.Run();
  auto resolved = f.rib->LookupPrefix(testing::P("192.168.5.0/24"));
  ASSERT_TRUE(resolved.has_value()) << "an EGP nexthop on any FEA's subnet resolves";
  EXPECT_EQ(resolved->forwarding_ifname().name(), "ve");
  EXPECT_EQ(Forwarding(f.second), (Lines{"10.0.0.0/24 dev vc", "10.0.2.0/24 dev ve",
                                         "192.168.5.0/24 via 10.0.2.9 dev ve"}));
  EXPECT_EQ(Forwarding(f.first),
            (Lines{"10.0.0.0/24 dev eth0", "10.0.1.0/24 dev eth1", "2001:db8:1::/64 dev eth0"}));

  // The subnet goes: the route no longer resolves, and leaves the second FEA.
  f.rib->FeaInterfaceEvents(kSecond)->OnInterfaceRemoved("ve");
  f.Run();
  EXPECT_FALSE(f.rib->LookupPrefix(testing::P("192.168.5.0/24")).has_value());
  EXPECT_EQ(Forwarding(f.second), (Lines{"10.0.0.0/24 dev vc"}));
  EXPECT_EQ(f.first.errors + f.second.errors, 0u);
  EXPECT_TRUE(f.rib->Idle());
  EXPECT_TRUE(f.violations.empty());
}

TEST(RibFeas, AnFeaThatReportsNoInterfacesIsSentEveryWinner) {
  TwoFeas f;
  f.Interfaces();
  ASSERT_TRUE(
      f.rib->AddRoutes("ebgp", std::vector<RouteInput>{testing::In("192.168.1.0/24", "10.0.1.9")})
          .ok());
  f.rib->FeaBorn();
  f.rib->FeaBorn(kSecond);
  f.Run();
  EXPECT_FALSE(f.rib->FeaViewKnown(kSecond));
  EXPECT_EQ(f.second.fib.size(), 4u) << f.second.Text();
  EXPECT_EQ(f.second.Text(), f.first.Text());
}

}  // namespace
}  // namespace sluice::rib
