// PrefixIndex: prefixes that share their first bits, differ only in length or family, or are
// IPv6 past the 8-octet keys (over /56), each keep their own value; AppendAfter lists them in
// net::Prefix order from any point, present in the index or not; the order is kept only while
// walks ask for it.
#include "bgp/stages/prefix_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace sluice::bgp {
namespace {

net::Prefix P(const std::string& text) { return *net::Prefix::Parse(text); }

TEST(PrefixIndexTest, EveryPrefixKeepsItsOwnValue) {
  const std::vector<std::string> prefixes = {
      "0.0.0.0/0",     "10.0.0.0/8",    "10.0.0.0/16",     "10.0.0.0/32",    "255.255.255.255/32",
      "::/0",          "a00::/8",       "a00::/16",        "2001:db8::/32",  "2001:db8:0:ff00::/56",
      "2001:db8::/57", "2001:db8::/64", "2001:db8::1/128", "2001:db8::2/128"};
  PrefixIndex<int> index;
  for (size_t i = 0; i < prefixes.size(); ++i) index[P(prefixes[i])] = static_cast<int>(i) + 1;
  ASSERT_EQ(index.size(), prefixes.size());
  for (size_t i = 0; i < prefixes.size(); ++i) {
    const int* v = index.Find(P(prefixes[i]));
    ASSERT_NE(v, nullptr) << prefixes[i];
    EXPECT_EQ(*v, static_cast<int>(i) + 1) << prefixes[i];
  }
  EXPECT_EQ(index.Find(P("10.0.0.0/24")), nullptr);
  EXPECT_EQ(index.Find(P("2001:db8::/48")), nullptr);
  EXPECT_EQ(index.Find(P("2001:db8::3/128")), nullptr);

  index.Erase(P("10.0.0.0/16"));
  index.Erase(P("2001:db8::1/128"));
  index.Erase(P("192.0.2.0/24"));  // not there: nothing happens
  EXPECT_EQ(index.size(), prefixes.size() - 2);
  EXPECT_EQ(index.Find(P("10.0.0.0/16")), nullptr);
  EXPECT_EQ(index.Find(P("2001:db8::1/128")), nullptr);
  EXPECT_EQ(*index.Find(P("10.0.0.0/8")), 2);
  EXPECT_EQ(*index.Find(P("2001:db8::2/128")), 14);
  EXPECT_EQ(index[P("198.51.100.0/24")], 0);  // value-initialised

  index.Clear();
  EXPECT_EQ(index.size(), 0u);
  EXPECT_EQ(index.Find(P("10.0.0.0/8")), nullptr);
}

TEST(PrefixIndexTest, AppendAfterListsInPrefixOrderFromAnyPoint) {
  const std::vector<std::string> texts = {
      "10.0.0.0/16",   "255.255.255.255/32", "0.0.0.0/0",         "10.0.0.0/8",
      "10.0.0.0/32",   "192.0.2.0/24",       "2001:db8::/57",     "2001:db8::/32",
      "::/0",          "2001:db8::1/128",    "a00::/8",           "2001:db8:0:ff00::/56",
      "2001:db8::/64", "a00::/16",           "2001:db8:0:1::/64", "2001:db8:0:100::/56"};
  PrefixIndex<int> index;
  std::vector<net::Prefix> sorted;
  for (const std::string& t : texts) {
    index[P(t)] = 1;
    sorted.push_back(P(t));
  }
  std::sort(sorted.begin(), sorted.end());

  std::vector<net::Prefix> all;
  index.AppendAfter(std::nullopt, 100, &all);
  EXPECT_EQ(all, sorted);

  // From every prefix in the index, and from prefixes it does not hold, of either family and
  // of either key size: the next three after it.
  std::vector<net::Prefix> points = sorted;
  for (const char* t : {"9.0.0.0/8", "10.0.0.0/9", "255.255.255.255/32", "2001:db8::/56",
                        "2001:db8::/60", "2001:db8::ff/128", "2001:db8:0:ff::/64", "ffff::/16"}) {
    points.push_back(P(t));
  }
  for (const net::Prefix& after : points) {
    std::vector<net::Prefix> want;
    for (const net::Prefix& p : sorted) {
      if (after < p && want.size() < 3) want.push_back(p);
    }
    std::vector<net::Prefix> got;
    index.AppendAfter(after, 3, &got);
    EXPECT_EQ(got, want) << "after " << after.ToString();
  }

  index.Erase(P("2001:db8::/57"));
  index.Erase(P("10.0.0.0/8"));
  std::vector<net::Prefix> left;
  index.AppendAfter(std::nullopt, 100, &left);
  EXPECT_EQ(left.size(), sorted.size() - 2);
  EXPECT_EQ(std::count(left.begin(), left.end(), P("2001:db8::/57")), 0);
  EXPECT_EQ(std::count(left.begin(), left.end(), P("10.0.0.0/8")), 0);
  index.Clear();
  left.clear();
  index.AppendAfter(std::nullopt, 100, &left);
  EXPECT_TRUE(left.empty());
}

TEST(PrefixIndexTest, KeepsTheOrderOnlyWhileWalksAskForIt) {
  PrefixIndex<int> index;
  std::vector<net::Prefix> got;
  index.AppendAfter(std::nullopt, 10, &got);
  EXPECT_TRUE(got.empty());
  EXPECT_FALSE(index.ordered()) << "a walk of the empty index needs no order";
  auto v4 = [](uint32_t i) { return net::Prefix(net::IPv4Address(0x0a000000u + (i << 8)), 24); };
  for (uint32_t i = 0; i < 1000; i += 2) index[v4(i)] = 1;
  index[P("2001:db8::1/128")] = 1;
  EXPECT_FALSE(index.ordered()) << "a table loaded with no walk keeps no order";

  index.AppendAfter(std::nullopt, 2, &got);
  EXPECT_TRUE(index.ordered());
  EXPECT_EQ(got, (std::vector<net::Prefix>{v4(0), v4(2)}));

  // Changes while the walk goes on are in its next answers.
  index[v4(1)] = 1;
  index.Erase(v4(2));
  index[P("2001:db8::/32")] = 1;
  got.clear();
  index.AppendAfter(v4(0), 2, &got);
  EXPECT_EQ(got, (std::vector<net::Prefix>{v4(1), v4(4)}));
  got.clear();
  index.AppendAfter(v4(998), 5, &got);
  EXPECT_EQ(got, (std::vector<net::Prefix>{P("2001:db8::/32"), P("2001:db8::1/128")}));
  EXPECT_TRUE(index.ordered()) << "one walk's end is not the end of the others";

  // Past kMinIdleChanges changes without a walk asking (the index is smaller), it is dropped.
  const size_t changes = PrefixIndex<int>::kMinIdleChanges / 2 + 1;
  for (uint32_t i = 0; i < changes; ++i) index[v4(1000 + i)] = 1;
  EXPECT_TRUE(index.ordered());
  for (uint32_t i = 0; i < changes; ++i) index.Erase(v4(1000 + i));
  EXPECT_FALSE(index.ordered());

  // The next walk builds it again, with what changed in between.
  index.Erase(v4(0));
  index[v4(3)] = 1;
  got.clear();
  index.AppendAfter(std::nullopt, 3, &got);
  EXPECT_TRUE(index.ordered());
  EXPECT_EQ(got, (std::vector<net::Prefix>{v4(1), v4(3), v4(4)}));
  std::vector<net::Prefix> all;
  index.AppendAfter(std::nullopt, 1000, &all);
  EXPECT_EQ(all.size(), index.size());
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
}

}  // namespace
}  // namespace sluice::bgp
