// The route text form and the in-memory table's exact and longest-match lookups.
#include "fea/fib_route.h"

#include <string>
#include <vector>

#include "fea/fib_table.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice::fea {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

FibRoute R(const char* text) {
  auto r = FibRoute::Parse(text);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : FibRoute{};
}

TEST(FibRouteTest, TextFormRoundTrips) {
  for (const char* text : {
           "10.0.0.0/8 via 192.0.2.1 dev eth0 metric 20 proto ebgp",
           "192.0.2.0/24 dev eth0",
           "198.51.100.0/24 via 203.0.113.1 dev eth0 onlink",
           "2001:db8::/32 via fe80::1 dev eth1 weight 2 via fe80::2 dev eth2",
           "0.0.0.0/0 via 192.0.2.1",
           "::/0 dev eth0 dev eth1 proto static",
       }) {
    EXPECT_EQ(R(text).ToString(), text);
  }
  FibRoute ecmp = R("2001:db8::/32 via fe80::1 dev eth1 weight 2 via fe80::2 dev eth2");
  ASSERT_EQ(ecmp.nexthops.size(), 2u);
  EXPECT_EQ(ecmp.nexthops[0].weight, 2);
  EXPECT_EQ(ecmp.nexthops[1].interface, "eth2");
  EXPECT_EQ(R("::/0 dev eth0 dev eth1").nexthops.size(), 2u);
}

TEST(FibRouteTest, MalformedTextIsRefusedNamingWhatIsWrong) {
  struct Case {
    const char* text;
    const char* why;
  };
  for (const Case& c : std::vector<Case>{
           {"10.0.0.0/33 via 192.0.2.1", "10.0.0.0/33"},
           {"10.0.0.1/8 via 192.0.2.1", "host bits"},
           {"10.0.0.0 via 192.0.2.1", "10.0.0.0"},
           {"10.0.0.0/8", "no nexthop"},
           {"10.0.0.0/8 via 192.0.2.300", "192.0.2.300"},
           {"10.0.0.0/8 via 192.0.2.1 metric -1", "metric \"-1\""},
           {"10.0.0.0/8 via 192.0.2.1 weight 0", "weight \"0\""},
           {"10.0.0.0/8 via 192.0.2.1 color blue", "unknown keyword \"color\""},
           {"10.0.0.0/8 via", "\"via\" needs a value"},
           {"", "empty"},
       }) {
    auto r = FibRoute::Parse(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(r.status().message()), HasSubstr(c.why)) << c.text;
    EXPECT_THAT(std::string(r.status().message()), HasSubstr(std::string("\"") + c.text + "\""));
  }
}

TEST(FibTableTest, LongestMatchAndExactLookup) {
  FibTable t;
  for (const char* text : {"0.0.0.0/0 dev a", "10.0.0.0/8 dev b", "10.1.0.0/16 dev c",
                           "10.1.2.3/32 dev d", "2001:db8::/32 dev e", "2001:db8:1::/48 dev f"}) {
    t.Set(R(text));
  }
  auto match = [&](const char* address) -> std::string {
    std::optional<FibRoute> r = t.LongestMatch(*net::IPAddress::Parse(address));
    return r ? r->prefix.ToString() : "none";
  };
  EXPECT_EQ(match("10.1.2.3"), "10.1.2.3/32");
  EXPECT_EQ(match("10.1.2.4"), "10.1.0.0/16");
  EXPECT_EQ(match("10.2.0.1"), "10.0.0.0/8");
  EXPECT_EQ(match("192.0.2.1"), "0.0.0.0/0");
  EXPECT_EQ(match("2001:db8:1::1"), "2001:db8:1::/48");
  EXPECT_EQ(match("2001:db8:2::1"), "2001:db8::/32");
  EXPECT_EQ(match("2001:db9::1"), "none");
  EXPECT_TRUE(t.Find(*net::Prefix::Parse("10.1.0.0/16")).has_value());
  EXPECT_FALSE(t.Find(*net::Prefix::Parse("10.1.0.0/17")).has_value());
  EXPECT_EQ(t.size(), 6u);
  EXPECT_EQ(t.size(net::Family::kIPv4), 4u);
  EXPECT_EQ(t.size(net::Family::kIPv6), 2u);

  EXPECT_TRUE(t.Erase(*net::Prefix::Parse("10.1.0.0/16")));
  EXPECT_FALSE(t.Erase(*net::Prefix::Parse("10.1.0.0/16")));
  EXPECT_EQ(match("10.1.2.4"), "10.0.0.0/8");
  t.Erase(*net::Prefix::Parse("0.0.0.0/0"));
  EXPECT_EQ(match("192.0.2.1"), "none");
}

TEST(FibTableTest, ListsInPrefixOrderByFamilyAndFromAPrefix) {
  FibTable t;
  for (const char* text :
       {"2001:db8::/32 dev e", "10.1.0.0/16 dev c", "10.0.0.0/8 dev b", "192.0.2.0/24 dev a"}) {
    t.Set(R(text));
  }
  auto list = [&](std::optional<net::Family> f, std::optional<net::Prefix> from, int limit) {
    std::vector<std::string> out;
    t.ForEach(f, from, [&](const FibRoute& r) {
      out.push_back(r.prefix.ToString());
      return static_cast<int>(out.size()) < limit;
    });
    return out;
  };
  EXPECT_THAT(list(std::nullopt, std::nullopt, 99),
              ElementsAre("10.0.0.0/8", "10.1.0.0/16", "192.0.2.0/24", "2001:db8::/32"));
  EXPECT_THAT(list(net::Family::kIPv6, std::nullopt, 99), ElementsAre("2001:db8::/32"));
  EXPECT_THAT(list(net::Family::kIPv4, std::nullopt, 99),
              ElementsAre("10.0.0.0/8", "10.1.0.0/16", "192.0.2.0/24"));
  EXPECT_THAT(list(std::nullopt, *net::Prefix::Parse("10.0.0.0/9"), 2),
              ElementsAre("10.1.0.0/16", "192.0.2.0/24"));
}

TEST(FibTableTest, RoutesShareNexthopGroupsAndReleaseThem) {
  FibTable t;
  for (int i = 0; i < 1000; ++i) {
    t.Set(R(("10." + std::to_string(i / 256) + "." + std::to_string(i % 256) +
             ".0/24 via 192.0.2.1 dev eth0 proto ebgp")
                .c_str()));
  }
  t.Set(R("10.9.0.0/16 via 192.0.2.1 dev eth0 proto static"));
  t.Set(R("10.10.0.0/16 via 192.0.2.2 dev eth0 weight 3 via 192.0.2.3 dev eth1 proto ebgp"));
  EXPECT_EQ(t.size(), 1002u);
  // One group per distinct nexthops and protocol.
  EXPECT_EQ(t.nexthop_groups(), 3u);
  EXPECT_EQ(t.Find(*net::Prefix::Parse("10.1.2.0/24"))->ToString(),
            "10.1.2.0/24 via 192.0.2.1 dev eth0 proto ebgp");
  EXPECT_EQ(t.Find(*net::Prefix::Parse("10.10.0.0/16"))->ToString(),
            "10.10.0.0/16 via 192.0.2.2 dev eth0 weight 3 via 192.0.2.3 dev eth1 proto ebgp");

  // Overwriting moves a route to another group; the last route of a group frees it.
  t.Set(R("10.9.0.0/16 via 192.0.2.1 dev eth0 metric 7 proto ebgp"));
  EXPECT_EQ(t.nexthop_groups(), 2u);
  EXPECT_EQ(t.Find(*net::Prefix::Parse("10.9.0.0/16"))->ToString(),
            "10.9.0.0/16 via 192.0.2.1 dev eth0 metric 7 proto ebgp");
  t.Erase(*net::Prefix::Parse("10.10.0.0/16"));
  EXPECT_EQ(t.nexthop_groups(), 1u);
  t.Clear();
  EXPECT_EQ(t.nexthop_groups(), 0u);
  EXPECT_EQ(t.size(), 0u);
  // A group id freed above is reused with its new content.
  t.Set(R("192.0.2.0/24 dev eth2"));
  EXPECT_EQ(t.Find(*net::Prefix::Parse("192.0.2.0/24"))->ToString(), "192.0.2.0/24 dev eth2");
}

}  // namespace
}  // namespace sluice::fea
