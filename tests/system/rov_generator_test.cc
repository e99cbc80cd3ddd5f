// The VRP generator the ROV system tests rely on (bench/rpki/vrp_generator.h), without daemons:
// each kind gives its route the RFC 6811 state it promises, the same seed gives the same file,
// the JSON reads back, and a rewrite flips states without losing VRPs.
#include <gtest/gtest.h>

#include <set>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "bench/rpki/vrp_generator.h"

namespace sluice::bench::rpki {
namespace {

net::Prefix P(const char* text) { return *net::Prefix::Parse(text); }

// Routes apart from one another (no route covers another, nor within 4 bits).
std::vector<RouteOrigin> Routes() {
  std::vector<RouteOrigin> routes;
  for (int i = 0; i < 64; ++i) {
    routes.push_back({P(absl::StrCat(10 + i, ".1.0.0/24").c_str()), 64500u + i});
    routes.push_back({P(absl::StrCat("2001:db8:", i, "::/48").c_str()), 64600u + i});
  }
  std::sort(routes.begin(), routes.end(),
            [](const RouteOrigin& a, const RouteOrigin& b) { return a.prefix < b.prefix; });
  return routes;
}

VrpShares Only(VrpKind kind) {
  VrpShares s{0, 0, 0, 0, 0, 0};
  switch (kind) {
    case VrpKind::kExact:
      s.exact = 100;
      break;
    case VrpKind::kWrongOrigin:
      s.wrong_origin = 100;
      break;
    case VrpKind::kTooSpecific:
      s.too_specific = 100;
      break;
    case VrpKind::kCovering:
      s.covering = 100;
      break;
    case VrpKind::kAsZero:
      s.as_zero = 100;
      break;
    case VrpKind::kSeveral:
      s.several = 100;
      break;
    case VrpKind::kUncovered:
      break;
  }
  return s;
}

TEST(RovGeneratorTest, EachKindGivesItsState) {
  const std::vector<RouteOrigin> routes = Routes();
  struct Case {
    VrpKind kind;
    size_t valid, invalid, not_found, vrps;
  };
  const size_t n = routes.size();
  for (const Case& c :
       {Case{VrpKind::kExact, n, 0, 0, n}, Case{VrpKind::kWrongOrigin, 0, n, 0, n},
        Case{VrpKind::kTooSpecific, 0, n, 0, n}, Case{VrpKind::kCovering, n, 0, 0, n},
        Case{VrpKind::kAsZero, 0, n, 0, n}, Case{VrpKind::kSeveral, n, 0, 0, 2 * n},
        Case{VrpKind::kUncovered, 0, 0, n, 0}}) {
    SCOPED_TRACE(VrpKindName(c.kind));
    const GeneratedVrps g = GenerateVrps(routes, Only(c.kind), 7);
    EXPECT_EQ(g.routes[size_t(c.kind)], n);
    EXPECT_EQ(g.vrps.size(), c.vrps);
    const OracleStates s = Validate(g.vrps, routes);
    EXPECT_EQ(s.valid, c.valid);
    EXPECT_EQ(s.invalid, c.invalid);
    EXPECT_EQ(s.not_found, c.not_found);
  }
}

TEST(RovGeneratorTest, UncoveredRoutesKeepTheirMoreSpecificsUncovered) {
  std::vector<RouteOrigin> routes = {{P("10.0.0.0/16"), 64500u}};
  for (int i = 0; i < 200; ++i) {
    routes.push_back({P(absl::StrCat("10.0.", i, ".0/24").c_str()), 64501u});
  }
  std::sort(routes.begin(), routes.end(),
            [](const RouteOrigin& a, const RouteOrigin& b) { return a.prefix < b.prefix; });
  VrpShares half = Only(VrpKind::kExact);
  half.exact = 50;  // the /16 comes first; some seed leaves it uncovered
  for (uint64_t seed = 1; seed < 50; ++seed) {
    const GeneratedVrps g = GenerateVrps(routes, half, seed);
    const bool root_uncovered = std::none_of(
        g.vrps.begin(), g.vrps.end(), [](const Vrp& v) { return v.prefix == P("10.0.0.0/16"); });
    if (root_uncovered) {
      EXPECT_TRUE(g.vrps.empty()) << "seed " << seed;
      return;
    }
  }
  FAIL() << "no seed left the /16 uncovered";
}

TEST(RovGeneratorTest, SameSeedSameFileAndJsonReadsBack) {
  const std::vector<RouteOrigin> routes = Routes();
  const GeneratedVrps a = GenerateVrps(routes, VrpShares{}, 3);
  const GeneratedVrps b = GenerateVrps(routes, VrpShares{}, 3);
  const GeneratedVrps c = GenerateVrps(routes, VrpShares{}, 4);
  EXPECT_EQ(VrpJson(a.vrps), VrpJson(b.vrps));
  EXPECT_NE(VrpJson(a.vrps), VrpJson(c.vrps));
  auto back = ParseVrpJson(VrpJson(a.vrps));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, a.vrps);
  auto client =
      ParseVrpJson(R"({"metadata":{"buildtime":"x"},"roas":[{"asn":13335,"prefix":"1.0.0.0/24",)"
                   R"("maxLength":24,"ta":"apnic","expires":1}]})");
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ(*client, (std::vector<Vrp>{Vrp{P("1.0.0.0/24"), 24, 13335}}));
  EXPECT_FALSE(
      ParseVrpJson(R"({"roas":[{"prefix":"1.0.0.0/24","maxLength":23,"asn":"AS1"}]})").ok());
  EXPECT_FALSE(ParseVrpJson(R"({"roas":[{"prefix":"1.0.0.0/24","maxLength":24}]})").ok());
  EXPECT_FALSE(ParseVrpJson("[]").ok());
}

TEST(RovGeneratorTest, RewriteFlipsExactVrpsAndKeepsTheSetsSize) {
  const std::vector<RouteOrigin> routes = Routes();
  const GeneratedVrps g = GenerateVrps(routes, Only(VrpKind::kExact), 5);
  std::vector<Vrp> vrps = g.vrps;
  const RewriteCounts c = RewriteVrps(&vrps, routes, 10, 9);
  EXPECT_EQ(c.made_invalid, 10u);
  EXPECT_EQ(c.made_valid + c.other, 0u);
  EXPECT_EQ(absl::flat_hash_set<Vrp>(vrps.begin(), vrps.end()).size(), g.vrps.size());
  EXPECT_EQ(Validate(vrps, routes).invalid, 10u);
  // Once more over all of them: the 10 flip back, the others flip.
  const RewriteCounts all = RewriteVrps(&vrps, routes, vrps.size(), 11);
  EXPECT_EQ(all.made_valid, 10u);
  EXPECT_EQ(all.made_invalid, vrps.size() - 10);
}

}  // namespace
}  // namespace sluice::bench::rpki
