#include "net/prefix_map.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sluice::net {
namespace {

Prefix P(const char* s) { return Prefix::Parse(s).value(); }

std::vector<std::string> Keys(PrefixMap<int>::Range r) {
  std::vector<std::string> out;
  for (auto it = r.begin(); it != r.end(); ++it) out.push_back(it.key().ToString());
  return out;
}

TEST(PrefixMap, BothFamiliesInOneTable) {
  PrefixMap<int> m;
  EXPECT_TRUE(m.insert(P("2001:db8::/32"), 6).second);
  EXPECT_TRUE(m.insert(P("10.0.0.0/8"), 4).second);
  EXPECT_TRUE(m.insert(P("10.1.0.0/16"), 5).second);
  EXPECT_FALSE(m.insert(P("10.1.0.0/16"), 9).second);
  EXPECT_TRUE(m.insert(P("::/0"), 0).second);
  EXPECT_EQ(m.size(), 4u);
  EXPECT_EQ(m.size(Family::kIPv6), 2u);
  EXPECT_EQ(Keys({m.begin(), m.end()}),
            (std::vector<std::string>{"10.0.0.0/8", "10.1.0.0/16", "::/0", "2001:db8::/32"}));
  EXPECT_EQ(Keys(m.subtree(P("10.0.0.0/8"))),
            (std::vector<std::string>{"10.0.0.0/8", "10.1.0.0/16"}));
  EXPECT_EQ(Keys(m.subtree(P("2001::/16"))), (std::vector<std::string>{"2001:db8::/32"}));
  EXPECT_EQ(*m.longest_match(IPAddress::Parse("10.1.2.3").value()), 5);
  EXPECT_EQ(*m.longest_match(IPAddress::Parse("2001:db8::1").value()), 6);
  EXPECT_EQ(*m.longest_match(IPAddress::Parse("2002::1").value()), 0);
  EXPECT_TRUE(m.longest_match(IPAddress::Parse("11.0.0.1").value()) == m.end());
  EXPECT_EQ(m.find_less_specific(P("10.1.0.0/16")).key(), P("10.0.0.0/8"));
  EXPECT_EQ(*m.find_value(P("::/0")), 0);
}

TEST(PrefixMap, SafeIteratorAcrossFamiliesWhileErasing) {
  PrefixMap<int> m;
  m.insert(P("10.0.0.0/8"), 1);
  m.insert(P("192.0.2.0/24"), 2);
  m.insert(P("2001:db8::/32"), 3);
  auto it = m.begin();
  EXPECT_TRUE(m.erase(P("10.0.0.0/8")));  // erase the entry the iterator stands on
  EXPECT_TRUE(it.erased());
  EXPECT_EQ(it.value(), 1);
  ++it;
  EXPECT_EQ(it.key(), P("192.0.2.0/24"));
  it = m.erase(it);
  EXPECT_EQ(it.key(), P("2001:db8::/32"));
  ++it;
  EXPECT_TRUE(it == m.end());
  EXPECT_EQ(m.size(), 1u);
}

}  // namespace
}  // namespace sluice::net
