// PrefixIndex: prefixes that share their first bits, differ only in length or family, or are
// IPv6 past the 8-octet keys (over /56), each keep their own value; AppendAfter lists them in
// net::Prefix order from any point, present in the index or not.
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

}  // namespace
}  // namespace sluice::bgp
