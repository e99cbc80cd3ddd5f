// StaticRoutes (sluice-static's core) with a fake RIB: routes with a nexthop or an interface, both
// families; tracked routes follow the RIB's answers (withdrawn while unresolvable, back when the
// answer changes after route_info_invalid); a RIB restart gets everything again; parsing.
#include "static_routes/static_routes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>

namespace sluice::static_routes {
namespace {

net::Prefix P(const char* s) { return net::Prefix::Parse(s).value(); }

// The RIB as seen by sluice-static: its "static" routes, and answers to register_interest given
// by the test (held until Answer()).
class FakeRib : public RibSink, public NexthopTracker {
 public:
  void Add(const StaticRoute& r) override { routes[r.network] = r.ToString(); }
  void Delete(const net::Prefix& n) override { routes.erase(n); }
  void Register(const net::IPAddress& nh, Answer a) override {
    pending.emplace_back(nh, std::move(a));
  }
  void Deregister(const net::Prefix& s) override { deregistered.insert(s); }
  // Answers every pending question: resolvable when `nh` lies in one of `reachable`.
  void AnswerAll(const std::vector<net::Prefix>& reachable) {
    auto questions = std::move(pending);
    pending.clear();
    for (auto& [nh, answer] : questions) {
      Resolution r;
      r.resolvable = false;
      r.valid_subnet = net::Prefix(nh, nh.bits());
      for (const net::Prefix& p : reachable) {
        if (p.Contains(nh)) {
          r.resolvable = true;
          r.valid_subnet = p;
        }
      }
      answer(r);
    }
  }
  std::set<std::string> Lines() const {
    std::set<std::string> s;
    for (const auto& [n, line] : routes) s.insert(line);
    return s;
  }
  std::map<net::Prefix, std::string> routes;
  std::vector<std::pair<net::IPAddress, Answer>> pending;
  std::set<net::Prefix> deregistered;
};

using ::testing::UnorderedElementsAre;

TEST(StaticRouteParse, AllFormsAndClearErrors) {
  auto r = ParseStaticRoute("10.0.0.0/8 via 192.0.2.2 metric 5 tag 7 track");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->ToString(), "10.0.0.0/8 via 192.0.2.2 metric 5 tag 7 track");
  EXPECT_EQ(r->tag, 7u);
  r = ParseStaticRoute("2001:db8::/32 dev eth0");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->nexthop);
  EXPECT_EQ(r->ifname, "eth0");
  EXPECT_EQ(ParseStaticRoute("10.0.0.0/8").status().message(),
            "static route 10.0.0.0/8: needs a nexthop or an interface");
  EXPECT_EQ(ParseStaticRoute("10.0.0.0/8 via 2001:db8::1").status().message(),
            "static route 10.0.0.0/8: nexthop 2001:db8::1 is of the other address family");
  EXPECT_EQ(ParseStaticRoute("10.0.0.0/8 dev eth0 track").status().message(),
            "static route 10.0.0.0/8: track needs a nexthop");
  EXPECT_EQ(ParseStaticRoute("10.0.0.0/8 via").status().message(),
            "static route: 'via' needs a value");
  EXPECT_EQ(ParseStaticRoute("10.0.0.0/33 via 192.0.2.1").status().message(),
            "static route: bad network '10.0.0.0/33'");
  EXPECT_EQ(ParseStaticRoute("10.0.0.0/8 gateway 192.0.2.1").status().message(),
            "static route: unknown word 'gateway' (expected via, dev, metric, tag or track)");
}

TEST(StaticRoutesTest, UntrackedRoutesOfBothFamiliesGoStraightToTheRib) {
  FakeRib rib;
  StaticRoutes s(&rib, &rib);
  ASSERT_TRUE(s.Add(*ParseStaticRoute("10.0.0.0/8 via 192.0.2.2")).ok());
  ASSERT_TRUE(s.Add(*ParseStaticRoute("2001:db8::/32 via 2001:db8:ffff::1 dev eth0")).ok());
  ASSERT_TRUE(s.Add(*ParseStaticRoute("198.51.100.0/24 dev eth1")).ok());
  EXPECT_THAT(rib.Lines(), UnorderedElementsAre("10.0.0.0/8 via 192.0.2.2",
                                                "2001:db8::/32 via 2001:db8:ffff::1 dev eth0",
                                                "198.51.100.0/24 dev eth1"));
  EXPECT_TRUE(rib.pending.empty());
  // Replacing a network's route replaces it in the RIB; deleting removes it.
  ASSERT_TRUE(s.Add(*ParseStaticRoute("10.0.0.0/8 via 192.0.2.3 metric 7")).ok());
  EXPECT_EQ(rib.routes[P("10.0.0.0/8")], "10.0.0.0/8 via 192.0.2.3 metric 7");
  ASSERT_TRUE(s.Delete(P("198.51.100.0/24")).ok());
  EXPECT_EQ(rib.routes.size(), 2u);
  EXPECT_EQ(s.Delete(P("198.51.100.0/24")).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(s.installed_count(), 2u);
}

TEST(StaticRoutesTest, TrackedRouteIsWithdrawnWhileUnresolvableAndReturns) {
  FakeRib rib;
  StaticRoutes s(&rib, &rib);
  ASSERT_TRUE(s.Add(*ParseStaticRoute("10.1.0.0/16 via 203.0.113.1 track")).ok());
  ASSERT_TRUE(s.Add(*ParseStaticRoute("10.2.0.0/16 via 203.0.113.1 track")).ok());
  EXPECT_TRUE(rib.routes.empty());    // not before the RIB answers
  ASSERT_EQ(rib.pending.size(), 1u);  // one question per nexthop
  rib.AnswerAll({});
  EXPECT_TRUE(rib.routes.empty());
  EXPECT_EQ(s.List()[0].nexthop_state, StaticRoutes::NexthopState::kUnresolvable);
  // A route covering the nexthop appears: the RIB invalidates the unresolvable answer.
  s.RouteInfoInvalid(P("203.0.113.1/32"));
  rib.AnswerAll({P("203.0.113.0/24")});
  EXPECT_THAT(rib.Lines(), UnorderedElementsAre("10.1.0.0/16 via 203.0.113.1 track",
                                                "10.2.0.0/16 via 203.0.113.1 track"));
  // It goes away again.
  s.RouteInfoInvalid(P("203.0.113.0/24"));
  EXPECT_EQ(rib.routes.size(), 2u);  // kept until the new answer
  rib.AnswerAll({});
  EXPECT_TRUE(rib.routes.empty());
  // Deleting the last user deregisters its subnet.
  ASSERT_TRUE(s.Delete(P("10.1.0.0/16")).ok());
  EXPECT_TRUE(rib.deregistered.empty());
  ASSERT_TRUE(s.Delete(P("10.2.0.0/16")).ok());
  EXPECT_THAT(rib.deregistered, UnorderedElementsAre(P("203.0.113.1/32")));
}

TEST(StaticRoutesTest, ARibRestartAsksAgainAndGetsEveryRoute) {
  FakeRib rib;
  StaticRoutes s(&rib, &rib);
  ASSERT_TRUE(s.Add(*ParseStaticRoute("10.0.0.0/8 via 192.0.2.2")).ok());
  ASSERT_TRUE(s.Add(*ParseStaticRoute("10.1.0.0/16 via 192.0.2.9 track")).ok());
  rib.AnswerAll({P("192.0.2.0/24")});
  ASSERT_EQ(rib.routes.size(), 2u);
  rib.routes.clear();  // a new RIB knows nothing
  s.RibBorn();
  EXPECT_EQ(rib.routes.size(), 1u);  // the untracked one; the tracked one after the answer
  rib.AnswerAll({P("192.0.2.0/24")});
  EXPECT_EQ(rib.routes.size(), 2u);
  // An answer to an older question is ignored.
  s.RouteInfoInvalid(P("192.0.2.0/24"));
  s.RouteInfoInvalid(P("192.0.2.0/24"));
  ASSERT_EQ(rib.pending.size(), 2u);
  auto older = std::move(rib.pending[0].second);
  rib.pending.erase(rib.pending.begin());
  rib.AnswerAll({P("192.0.2.0/24")});
  older(Resolution{false, P("192.0.2.9/32")});
  EXPECT_EQ(rib.routes.size(), 2u);
}

}  // namespace
}  // namespace sluice::static_routes
