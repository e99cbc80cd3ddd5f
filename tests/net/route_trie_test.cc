// Unit tests of net::RouteTrie: each operation, edge lengths (/0, /32, /128), both families,
// the wrong family, and the safe-iterator rules (XORP NSDI'05 §5.3).
#include "net/route_trie.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace sluice::net {
namespace {

Prefix P(const char* text) { return Prefix::Parse(text).value(); }
IPAddress Addr(const char* text) { return IPAddress::Parse(text).value(); }

template <class Trie>
std::vector<std::string> Keys(Trie& trie) {
  std::vector<std::string> out;
  for (auto it = trie.begin(); it != trie.end(); ++it) out.push_back(it.key().ToString());
  return out;
}

template <class Range>
std::vector<std::string> Keys(const Range& range) {
  std::vector<std::string> out;
  for (auto it = range.begin(); it != range.end(); ++it) out.push_back(it.key().ToString());
  return out;
}

using Strings = std::vector<std::string>;

TEST(RouteTrie, EmptyTrie) {
  RouteTrie4<int> trie;
  EXPECT_TRUE(trie.empty());
  EXPECT_EQ(trie.size(), 0u);
  EXPECT_TRUE(trie.begin() == trie.end());
  EXPECT_TRUE(trie.find(P("10.0.0.0/8")) == trie.end());
  EXPECT_EQ(trie.find_value(P("0.0.0.0/0")), nullptr);
  EXPECT_TRUE(trie.longest_match(Addr("10.1.2.3")) == trie.end());
  EXPECT_TRUE(trie.subtree(P("0.0.0.0/0")).empty());
  EXPECT_FALSE(trie.erase(P("10.0.0.0/8")));
  EXPECT_TRUE(trie.CheckInvariants().ok());
}

TEST(RouteTrie, InsertDoesNotOverwriteInsertOrAssignDoes) {
  RouteTrie4<int> trie;
  auto [it, added] = trie.insert(P("10.0.0.0/8"), 1);
  EXPECT_TRUE(added);
  EXPECT_EQ(it.key(), P("10.0.0.0/8"));
  EXPECT_EQ(it.value(), 1);
  auto [it2, added2] = trie.insert(P("10.0.0.0/8"), 2);
  EXPECT_FALSE(added2);
  EXPECT_EQ(*it2, 1);
  EXPECT_TRUE(it == it2);
  auto [it3, added3] = trie.insert_or_assign(P("10.0.0.0/8"), 3);
  EXPECT_FALSE(added3);
  EXPECT_EQ(*trie.find_value(P("10.0.0.0/8")), 3);
  auto [it4, added4] = trie.insert_or_assign(P("10.0.0.0/9"), 4);
  EXPECT_TRUE(added4);
  EXPECT_EQ(trie.size(), 2u);
  *trie.find_value(P("10.0.0.0/9")) = 5;
  EXPECT_EQ(trie.find(P("10.0.0.0/9")).value(), 5);
  EXPECT_TRUE(trie.find(P("10.0.0.0/10")) == trie.end());
  EXPECT_TRUE(trie.find(P("10.0.0.0/7")) == trie.end());
  EXPECT_TRUE(trie.contains(P("10.0.0.0/9")));
}

TEST(RouteTrie, LongestMatchWithDefaultAndHostRoutes) {
  RouteTrie4<std::string> trie;
  trie.insert(P("0.0.0.0/0"), "default");
  trie.insert(P("10.0.0.0/8"), "ten");
  trie.insert(P("10.1.0.0/16"), "ten-one");
  trie.insert(P("10.1.2.3/32"), "host");
  trie.insert(P("255.255.255.255/32"), "broadcast");
  EXPECT_EQ(trie.longest_match(Addr("192.0.2.1")).value(), "default");
  EXPECT_EQ(trie.longest_match(Addr("10.200.0.1")).value(), "ten");
  EXPECT_EQ(trie.longest_match(Addr("10.1.2.4")).value(), "ten-one");
  EXPECT_EQ(trie.longest_match(Addr("10.1.2.3")).value(), "host");
  EXPECT_EQ(trie.longest_match(IPv4Address::Parse("10.1.2.3").value()).value(), "host");
  EXPECT_EQ(trie.longest_match(Addr("255.255.255.255")).value(), "broadcast");
  EXPECT_EQ(*trie.longest_match_value(Addr("10.1.9.9")), "ten-one");
  EXPECT_EQ(trie.longest_match(Addr("0.0.0.0")).key(), P("0.0.0.0/0"));

  // The prefix form includes the prefix itself; find_less_specific excludes it.
  EXPECT_EQ(trie.longest_match(P("10.1.0.0/16")).value(), "ten-one");
  EXPECT_EQ(trie.longest_match(P("10.1.0.0/17")).value(), "ten-one");
  EXPECT_EQ(trie.longest_match(P("10.0.0.0/15")).value(), "ten");
  EXPECT_EQ(trie.find_less_specific(P("10.1.0.0/16")).value(), "ten");
  EXPECT_EQ(trie.find_less_specific(P("10.1.2.3/32")).value(), "ten-one");
  EXPECT_EQ(trie.find_less_specific(P("10.0.0.0/8")).value(), "default");
  EXPECT_TRUE(trie.find_less_specific(P("0.0.0.0/0")) == trie.end());
  Strings chain;
  for (auto& it : trie.less_specifics(P("10.1.2.3/32"))) chain.push_back(it.key().ToString());
  EXPECT_EQ(chain, (Strings{"0.0.0.0/0", "10.0.0.0/8", "10.1.0.0/16"}));

  trie.erase(P("0.0.0.0/0"));
  EXPECT_TRUE(trie.longest_match(Addr("192.0.2.1")) == trie.end());
  EXPECT_EQ(trie.longest_match_value(Addr("192.0.2.1")), nullptr);
}

TEST(RouteTrie, IteratesInPrefixOrder) {
  std::vector<std::string> texts = {"10.0.0.0/8",    "10.0.0.0/16",       "10.0.0.0/24",
                                    "10.128.0.0/9",  "0.0.0.0/0",         "0.0.0.0/32",
                                    "192.0.2.0/24",  "10.1.0.0/16",       "9.0.0.0/8",
                                    "10.0.0.128/25", "255.255.255.255/32"};
  std::vector<Prefix> sorted;
  for (auto& t : texts) sorted.push_back(P(t.c_str()));
  std::sort(sorted.begin(), sorted.end());
  Strings expected;
  for (auto& p : sorted) expected.push_back(p.ToString());
  std::mt19937 rng(7);
  for (int round = 0; round < 20; ++round) {
    std::shuffle(texts.begin(), texts.end(), rng);
    RouteTrie4<int> trie;
    for (auto& t : texts) trie.insert(P(t.c_str()), 0);
    ASSERT_TRUE(trie.CheckInvariants().ok()) << trie.CheckInvariants();
    EXPECT_EQ(Keys(trie), expected);
  }
}

TEST(RouteTrie, SubtreeOfPresentAbsentAndEmptyPrefixes) {
  RouteTrie4<int> trie;
  for (const char* t : {"10.0.0.0/8", "10.1.0.0/16", "10.1.1.0/24", "10.1.2.0/24", "10.2.0.0/16",
                        "11.0.0.0/8", "0.0.0.0/0"}) {
    trie.insert(P(t), 0);
  }
  EXPECT_EQ(Keys(trie.subtree(P("10.1.0.0/16"))),
            (Strings{"10.1.0.0/16", "10.1.1.0/24", "10.1.2.0/24"}));
  // 10.0.0.0/14 is absent but covers 10.1/16 and 10.2/16.
  EXPECT_EQ(Keys(trie.subtree(P("10.0.0.0/14"))),
            (Strings{"10.1.0.0/16", "10.1.1.0/24", "10.1.2.0/24", "10.2.0.0/16"}));
  // 10.1.0.0/23 is absent and covers only 10.1.1/24 (the branch point is 10.1.0.0/22).
  EXPECT_EQ(Keys(trie.subtree(P("10.1.0.0/23"))), (Strings{"10.1.1.0/24"}));
  EXPECT_TRUE(trie.subtree(P("12.0.0.0/8")).empty());
  EXPECT_TRUE(trie.subtree(P("10.1.3.0/24")).empty());
  EXPECT_EQ(Keys(trie.subtree(P("10.1.1.0/24"))), (Strings{"10.1.1.0/24"}));
  EXPECT_EQ(Keys(trie.subtree(P("0.0.0.0/0"))), Keys(trie));
  EXPECT_TRUE(trie.subtree(P("10.1.1.1/32")).empty());
  trie.insert(P("10.1.1.1/32"), 0);
  EXPECT_EQ(Keys(trie.subtree(P("10.1.1.1/32"))), (Strings{"10.1.1.1/32"}));
}

TEST(RouteTrie, EraseRestructuresAndKeepsInvariants) {
  RouteTrie4<int> trie;
  const std::vector<const char*> texts = {"10.0.0.0/8",  "10.1.0.0/16", "10.2.0.0/16",
                                          "10.3.0.0/16", "10.1.1.0/24", "0.0.0.0/0"};
  for (const char* t : texts) trie.insert(P(t), 0);
  EXPECT_TRUE(trie.erase(P("10.0.0.0/8")));  // two children: stays as a branch point
  EXPECT_FALSE(trie.erase(P("10.0.0.0/8")));
  EXPECT_TRUE(trie.CheckInvariants().ok()) << trie.CheckInvariants();
  EXPECT_TRUE(trie.find(P("10.0.0.0/8")) == trie.end());
  EXPECT_EQ(trie.longest_match(Addr("10.9.9.9")).key(), P("0.0.0.0/0"));
  EXPECT_TRUE(trie.erase(P("10.1.0.0/16")));  // one child
  EXPECT_TRUE(trie.erase(P("10.3.0.0/16")));  // a leaf whose parent is a branch point
  EXPECT_TRUE(trie.CheckInvariants().ok()) << trie.CheckInvariants();
  EXPECT_EQ(Keys(trie), (Strings{"0.0.0.0/0", "10.1.1.0/24", "10.2.0.0/16"}));
  for (const char* t : texts) trie.erase(P(t));
  trie.erase(P("10.1.1.0/24"));
  EXPECT_TRUE(trie.empty());
  EXPECT_EQ(trie.node_count(), 0u);
  EXPECT_TRUE(trie.CheckInvariants().ok()) << trie.CheckInvariants();
}

TEST(RouteTrie, WrongFamilyFailsCleanly) {
  RouteTrie4<int> v4;
  v4.insert(P("0.0.0.0/0"), 1);
  auto [it, added] = v4.insert(P("2001:db8::/32"), 2);
  EXPECT_FALSE(added);
  EXPECT_TRUE(it == v4.end());
  EXPECT_TRUE(v4.find(P("::/0")) == v4.end());
  EXPECT_EQ(v4.find_value(P("::/0")), nullptr);
  EXPECT_FALSE(v4.erase(P("::/0")));
  EXPECT_TRUE(v4.longest_match(Addr("2001:db8::1")) == v4.end());
  EXPECT_TRUE(v4.longest_match(P("2001:db8::/64")) == v4.end());
  EXPECT_TRUE(v4.subtree(P("::/0")).empty());
  EXPECT_TRUE(v4.find_less_specific(P("2001:db8::/64")) == v4.end());
  EXPECT_TRUE(v4.less_specifics(P("2001:db8::/64")).empty());
  EXPECT_TRUE(v4.lower_bound(P("::/0")) == v4.end());
  EXPECT_TRUE(v4.upper_bound(P("::/0")) == v4.end());
  EXPECT_FALSE(v4.insert_or_assign(P("::/0"), 3).second);
  EXPECT_EQ(v4.size(), 1u);

  RouteTrie6<int> v6;
  EXPECT_FALSE(v6.insert(P("10.0.0.0/8"), 1).second);
  v6.insert(P("::/0"), 1);
  EXPECT_TRUE(v6.longest_match(Addr("10.0.0.1")) == v6.end());
  EXPECT_TRUE(v6.longest_match(Addr("::ffff:10.0.0.1")) != v6.end());
}

TEST(RouteTrie, IPv6LengthsAcrossTheWordBoundary) {
  RouteTrie6<std::string> trie;
  trie.insert(P("::/0"), "default");
  trie.insert(P("2001:db8::/32"), "doc");
  trie.insert(P("2001:db8::/64"), "net64");
  trie.insert(P("2001:db8:0:0:8000::/65"), "net65");
  trie.insert(P("2001:db8::1/128"), "host");
  trie.insert(P("2001:db8::8000:0:0:1/128"), "host65");
  ASSERT_TRUE(trie.CheckInvariants().ok()) << trie.CheckInvariants();
  EXPECT_EQ(trie.longest_match(Addr("2001:db8::1")).value(), "host");
  EXPECT_EQ(trie.longest_match(Addr("2001:db8::2")).value(), "net64");
  EXPECT_EQ(trie.longest_match(Addr("2001:db8::8000:0:0:2")).value(), "net65");
  EXPECT_EQ(trie.longest_match(Addr("2001:db8::8000:0:0:1")).value(), "host65");
  EXPECT_EQ(trie.longest_match(Addr("2001:db8:1::")).value(), "doc");
  EXPECT_EQ(trie.longest_match(Addr("fe80::1")).value(), "default");
  EXPECT_EQ(trie.longest_match(P("2001:db8::/96")).value(), "net64");
  EXPECT_EQ(trie.find_less_specific(P("2001:db8::/64")).value(), "doc");
  EXPECT_EQ(Keys(trie.subtree(P("2001:db8::/64"))),
            (Strings{"2001:db8::/64", "2001:db8::1/128", "2001:db8:0:0:8000::/65",
                     "2001:db8::8000:0:0:1/128"}));
  EXPECT_EQ(Keys(trie).size(), 6u);
  EXPECT_TRUE(trie.erase(P("2001:db8::/64")));
  EXPECT_EQ(trie.longest_match(Addr("2001:db8::2")).value(), "doc");
  EXPECT_TRUE(trie.CheckInvariants().ok()) << trie.CheckInvariants();
}

TEST(RouteTrie, LowerAndUpperBound) {
  RouteTrie4<int> trie;
  for (const char* t : {"10.0.0.0/8", "10.0.0.0/16", "10.1.0.0/16", "11.0.0.0/8"}) {
    trie.insert(P(t), 0);
  }
  EXPECT_EQ(trie.lower_bound(P("10.0.0.0/8")).key(), P("10.0.0.0/8"));
  EXPECT_EQ(trie.upper_bound(P("10.0.0.0/8")).key(), P("10.0.0.0/16"));
  EXPECT_EQ(trie.lower_bound(P("10.0.0.0/9")).key(), P("10.0.0.0/16"));
  EXPECT_EQ(trie.lower_bound(P("10.0.128.0/17")).key(), P("10.1.0.0/16"));
  EXPECT_EQ(trie.lower_bound(P("0.0.0.0/0")).key(), P("10.0.0.0/8"));
  EXPECT_TRUE(trie.upper_bound(P("11.0.0.0/8")) == trie.end());
  EXPECT_TRUE(trie.lower_bound(P("12.0.0.0/8")) == trie.end());
}

// --- safe iterators -------------------------------------------------------------------------

TEST(RouteTrieSafeIterator, ErasingTheEntryAnIteratorStandsOn) {
  RouteTrie4<std::string> trie;
  for (const char* t : {"10.0.0.0/8", "10.0.0.0/9", "10.128.0.0/9", "11.0.0.0/8"}) {
    trie.insert(P(t), t);
  }
  auto it = trie.find(P("10.0.0.0/8"));  // a node with two children
  const size_t nodes = trie.node_count();
  EXPECT_TRUE(trie.erase(P("10.0.0.0/8")));
  EXPECT_TRUE(it.erased());
  EXPECT_EQ(it.key(), P("10.0.0.0/8"));
  EXPECT_EQ(it.value(), "10.0.0.0/8");  // still readable until the iterator leaves
  EXPECT_TRUE(trie.find(P("10.0.0.0/8")) == trie.end());
  EXPECT_EQ(trie.size(), 3u);
  EXPECT_EQ(Keys(trie), (Strings{"10.0.0.0/9", "10.128.0.0/9", "11.0.0.0/8"}));
  EXPECT_TRUE(trie.CheckInvariants().ok()) << trie.CheckInvariants();
  EXPECT_EQ(trie.node_count(), nodes + 1);  // a branch point replaced the pinned node
  ++it;
  EXPECT_FALSE(it.erased());
  EXPECT_EQ(it.key(), P("10.0.0.0/9"));
  EXPECT_EQ(trie.node_count(), nodes);  // the erase completed when the iterator left
  EXPECT_TRUE(trie.CheckInvariants().ok()) << trie.CheckInvariants();
}

TEST(RouteTrieSafeIterator, ErasingEverythingUnderAnIterator) {
  RouteTrie4<std::shared_ptr<int>> trie;
  auto value = std::make_shared<int>(42);
  trie.insert(P("10.0.0.0/8"), value);
  trie.insert(P("10.1.0.0/16"), std::make_shared<int>(1));
  trie.insert(P("10.2.0.0/16"), std::make_shared<int>(2));
  {
    auto it = trie.begin();
    auto copy = it;                // two pins
    auto moved = std::move(copy);  // still two
    trie.clear();
    EXPECT_TRUE(trie.empty());
    EXPECT_TRUE(trie.begin() == trie.end());
    EXPECT_EQ(value.use_count(), 2);  // kept alive by the pinned, erased node
    EXPECT_EQ(**it, 42);
    ++it;
    EXPECT_TRUE(it == trie.end());
    EXPECT_EQ(value.use_count(), 2);  // `moved` still stands there
    EXPECT_EQ(*moved.value(), 42);
  }
  EXPECT_EQ(value.use_count(), 1);  // the erase completed
  EXPECT_EQ(trie.node_count(), 0u);
  trie.insert(P("10.0.0.0/8"), value);
  EXPECT_EQ(trie.size(), 1u);
}

TEST(RouteTrieSafeIterator, PlusPlusFromErasedEntryGoesToNextLive) {
  RouteTrie4<int> trie;
  for (int i = 0; i < 8; ++i) trie.insert(Prefix(IPv4Address(0x0a000000u + (i << 16)), 16), i);
  auto it = trie.find(P("10.2.0.0/16"));
  // Erase it and the next two; add one right after it.
  trie.erase(P("10.2.0.0/16"));
  trie.erase(P("10.3.0.0/16"));
  trie.erase(P("10.4.0.0/16"));
  trie.insert(P("10.2.0.0/24"), 99);
  ++it;
  EXPECT_EQ(it.key(), P("10.2.0.0/24"));
  trie.erase(P("10.2.0.0/24"));
  ++it;
  EXPECT_EQ(it.key(), P("10.5.0.0/16"));
  // Re-adding the erased prefix makes a new entry; the old iterator keeps the old value.
  auto it5 = trie.find(P("10.5.0.0/16"));
  trie.erase(it5.key());
  trie.insert(P("10.5.0.0/16"), 55);
  EXPECT_TRUE(it5.erased());
  EXPECT_EQ(*it5, 5);
  EXPECT_EQ(*trie.find_value(P("10.5.0.0/16")), 55);
  ++it5;  // strictly after 10.5/16: the new 10.5/16 entry is not visited again
  EXPECT_EQ(it5.key(), P("10.6.0.0/16"));
  EXPECT_TRUE(trie.CheckInvariants().ok()) << trie.CheckInvariants();
}

TEST(RouteTrieSafeIterator, EraseByIteratorReturnsNext) {
  RouteTrie4<int> trie;
  for (const char* t : {"10.0.0.0/8", "10.1.0.0/16", "10.2.0.0/16", "11.0.0.0/8", "12.0.0.0/8"}) {
    trie.insert(P(t), 0);
  }
  auto it = trie.begin();
  while (it != trie.end()) {
    if (it.key().length() == 16) {
      it = trie.erase(it);
    } else {
      ++it;
    }
  }
  EXPECT_EQ(Keys(trie), (Strings{"10.0.0.0/8", "11.0.0.0/8", "12.0.0.0/8"}));
  EXPECT_EQ(trie.node_count(), 5u);  // plus branch points 10.0.0.0/7 and 8.0.0.0/5
  EXPECT_TRUE(trie.CheckInvariants().ok()) << trie.CheckInvariants();
  // Erasing through a subtree range stops at the subtree's end.
  trie.insert(P("10.9.0.0/16"), 0);
  auto range = trie.subtree(P("10.0.0.0/8"));
  for (auto s = range.begin(); s != range.end();) s = trie.erase(s);
  EXPECT_EQ(Keys(trie), (Strings{"11.0.0.0/8", "12.0.0.0/8"}));
}

TEST(RouteTrieSafeIterator, SubtreeIteratorStopsAtItsEndWhileNeighboursChange) {
  RouteTrie4<int> trie;
  for (const char* t : {"10.0.0.0/8", "10.1.0.0/16", "10.2.0.0/16", "11.0.0.0/8", "12.0.0.0/8"}) {
    trie.insert(P(t), 0);
  }
  auto range = trie.subtree(P("10.0.0.0/8"));
  auto it = range.begin();
  ++it;
  EXPECT_EQ(it.key(), P("10.1.0.0/16"));
  trie.erase(P("11.0.0.0/8"));  // the entry right after the subtree
  trie.erase(P("10.2.0.0/16"));
  trie.erase(P("10.1.0.0/16"));  // the entry the iterator stands on
  ++it;
  EXPECT_TRUE(it == range.end());
}

TEST(RouteTrieSafeIterator, ManyPinsOnOneNode) {
  RouteTrie4<int> trie;
  trie.insert(P("10.0.0.0/8"), 7);
  trie.insert(P("11.0.0.0/8"), 8);
  std::vector<RouteTrie4<int>::iterator> its(70000, trie.begin());  // past the 16-bit counter
  trie.erase(P("10.0.0.0/8"));
  EXPECT_EQ(trie.node_count(), 2u);
  while (its.size() > 1) its.pop_back();
  EXPECT_EQ(*its[0], 7);
  EXPECT_EQ(trie.node_count(), 2u);
  its.clear();
  EXPECT_EQ(trie.node_count(), 1u);
  EXPECT_TRUE(trie.CheckInvariants().ok()) << trie.CheckInvariants();
}

TEST(RouteTrie, MemoryIsReleasedByClear) {
  RouteTrie4<void*> trie;
  std::mt19937 rng(1);
  for (int i = 0; i < 10000; ++i) trie.insert(Prefix(IPv4Address(rng()), 24), nullptr);
  EXPECT_GT(trie.memory_bytes(), trie.size() * 20);
  EXPECT_LE(trie.node_count(), 2 * trie.size() - 1);
  trie.clear();
  EXPECT_EQ(trie.memory_bytes(), 0u);
  EXPECT_EQ(trie.node_count(), 0u);
}

// --- the IPv4 lookup index ------------------------------------------------------------------

TEST(RouteTrieLookupIndex, AnswersLikeTheTrieWalk) {
  RouteTrie4<int> trie;
  std::mt19937 rng(5);
  std::vector<Prefix> prefixes;
  while (trie.size() < 70000) {
    // Clustered under a few /12s so that most /18 slots have deep entries.
    const uint32_t a = (0x0a000000u + (rng() % 16) * 0x100000u) | (rng() & 0xfffffu);
    const Prefix p(IPv4Address(a), 12 + static_cast<int>(rng() % 21));
    if (p.length() > 18 && trie.insert(p, static_cast<int>(trie.size())).second) {
      prefixes.push_back(p);
    }
  }
  trie.insert(P("10.0.0.0/8"), -1);
  ASSERT_GE(trie.size(), trie.lookup_index_min_entries());
  EXPECT_FALSE(trie.has_lookup_index());  // made on the first address lookup only
  trie.longest_match(Addr("10.1.2.3"));
  EXPECT_TRUE(trie.has_lookup_index());
  for (int i = 0; i < 200000; ++i) {
    const IPv4Address a((0x0a000000u + (rng() % 17) * 0x100000u) | (rng() & 0xfffffu));
    auto indexed = trie.longest_match(IPAddress(a));
    auto walked = trie.longest_match(Prefix(a, 32));  // the prefix form walks the trie
    ASSERT_TRUE(indexed == walked) << a.ToString();
  }
  // Updates invalidate; later lookups and finds still agree.
  for (int i = 0; i < 20000; ++i) trie.erase(prefixes[i]);
  trie.insert(P("10.1.0.0/18"), 7);
  trie.insert(P("10.1.2.0/24"), 8);
  EXPECT_EQ(*trie.longest_match(Addr("10.1.2.3")), 8);
  EXPECT_EQ(*trie.find_value(P("10.1.0.0/18")), 7);
  for (int i = 0; i < 40000; ++i) {
    EXPECT_EQ(trie.find(prefixes[i]) != trie.end(),
              i >= 20000 || prefixes[i] == P("10.1.0.0/18") || prefixes[i] == P("10.1.2.0/24"))
        << prefixes[i].ToString();
  }
  const absl::Status s = trie.CheckInvariants();  // compares the index at every entry's ends
  EXPECT_TRUE(s.ok()) << s;
  const size_t with_index = trie.memory_bytes();
  trie.set_lookup_index_min_entries(SIZE_MAX);  // dropped: lookups walk the trie again
  EXPECT_FALSE(trie.has_lookup_index());
  EXPECT_LT(trie.memory_bytes(), with_index);
  EXPECT_EQ(*trie.longest_match(Addr("10.1.2.3")), 8);
}

TEST(RouteTrieLookupIndex, DroppedWhenTheTrieShrinks) {
  RouteTrie4<int> trie;
  trie.set_lookup_index_min_entries(100);
  for (int i = 0; i < 200; ++i) trie.insert(Prefix(IPv4Address(0x0a000000u + (i << 8)), 24), i);
  EXPECT_EQ(*trie.longest_match(Addr("10.0.5.1")), 5);
  EXPECT_TRUE(trie.has_lookup_index());
  for (int i = 0; i < 180; ++i) trie.erase(Prefix(IPv4Address(0x0a000000u + (i << 8)), 24));
  EXPECT_FALSE(trie.has_lookup_index());  // below a quarter of the threshold
  EXPECT_TRUE(trie.longest_match(Addr("10.0.5.1")) == trie.end());
  EXPECT_EQ(*trie.longest_match(Addr("10.0.190.1")), 190);
}

}  // namespace
}  // namespace sluice::net
