// PrefixIndex: prefixes that share their first bits, differ only in length or family, or are
// IPv6 past the 8-octet keys (over /56), each keep their own value.
#include "bgp/stages/prefix_index.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace sluice::bgp
