#include "policy/prefix_set.h"

#include <random>

#include "gtest/gtest.h"

namespace sluice::policy {
namespace {

net::Prefix P(const char* text) { return *net::Prefix::Parse(text); }
PrefixEntry E(const char* text, PrefixModifier m, int lo = 0, int hi = 0) {
  return PrefixEntry{P(text), m, lo, hi};
}

// The definition of each modifier, checked entry by entry.
bool Naive(const std::vector<PrefixEntry>& entries, const net::Prefix& r) {
  for (const auto& e : entries) {
    const int len = e.prefix.length();
    bool m = false;
    switch (e.modifier) {
      case PrefixModifier::kExact:
        m = r == e.prefix;
        break;
      case PrefixModifier::kLonger:
        m = e.prefix.Contains(r) && r.length() > len;
        break;
      case PrefixModifier::kOrLonger:
        m = e.prefix.Contains(r);
        break;
      case PrefixModifier::kShorter:
        m = r.Contains(e.prefix) && r.length() < len;
        break;
      case PrefixModifier::kOrShorter:
        m = r.Contains(e.prefix);
        break;
      case PrefixModifier::kRange:
        m = e.prefix.Contains(r) && r.length() >= e.min_length && r.length() <= e.max_length;
        break;
    }
    if (m) return true;
  }
  return false;
}

TEST(PrefixSet, EachModifier) {
  PrefixSet s({E("10.0.0.0/8", PrefixModifier::kExact)});
  EXPECT_TRUE(s.Matches(P("10.0.0.0/8")));
  EXPECT_FALSE(s.Matches(P("10.0.0.0/9")));
  EXPECT_FALSE(s.Matches(P("10.0.0.0/7")));
  PrefixSet longer({E("10.0.0.0/8", PrefixModifier::kLonger)});
  EXPECT_FALSE(longer.Matches(P("10.0.0.0/8")));
  EXPECT_TRUE(longer.Matches(P("10.255.255.255/32")));
  PrefixSet shorter({E("10.1.0.0/16", PrefixModifier::kShorter)});
  EXPECT_TRUE(shorter.Matches(P("0.0.0.0/0")));
  EXPECT_TRUE(shorter.Matches(P("10.0.0.0/15")));
  EXPECT_FALSE(shorter.Matches(P("10.1.0.0/16")));
  EXPECT_FALSE(shorter.Matches(P("10.2.0.0/15")));
  PrefixSet range({E("0.0.0.0/0", PrefixModifier::kRange, 25, 32)});
  EXPECT_TRUE(range.Matches(P("1.2.3.128/25")));
  EXPECT_FALSE(range.Matches(P("1.2.3.0/24")));
}

TEST(PrefixSet, FamiliesAreSeparate) {
  PrefixSet s({E("0.0.0.0/0", PrefixModifier::kOrLonger)});
  EXPECT_TRUE(s.Matches(P("192.0.2.0/24")));
  EXPECT_FALSE(s.Matches(P("2001:db8::/32")));
  PrefixSet v6({E("::/0", PrefixModifier::kOrLonger), E("ffff::/16", PrefixModifier::kExact)});
  EXPECT_TRUE(v6.Matches(P("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128")));
  EXPECT_FALSE(v6.Matches(P("10.0.0.0/8")));
}

TEST(PrefixSet, AddressesMatchAsHostRoutes) {
  PrefixSet s({E("192.0.2.0/24", PrefixModifier::kOrLonger)});
  EXPECT_TRUE(s.Matches(*net::IPAddress::Parse("192.0.2.200")));
  EXPECT_FALSE(s.Matches(*net::IPAddress::Parse("192.0.3.1")));
}

TEST(PrefixSet, EmptyMatchesNothing) {
  PrefixSet s;
  EXPECT_TRUE(s.empty());
  EXPECT_FALSE(s.Matches(P("0.0.0.0/0")));
}

// Random nested entries of every modifier against the definition, both families.
TEST(PrefixSet, AgreesWithTheDefinition) {
  std::mt19937 rng(7);
  for (int family = 0; family < 2; ++family) {
    const int bits = family == 0 ? 32 : 128;
    auto random_prefix = [&](int max_len) {
      // Few distinct high bits so that entries nest and overlap often.
      uint64_t hi =
          (uint64_t{rng() % 4} << 62) | (uint64_t{rng() % 4} << 56) | (uint64_t{rng()} << 20);
      uint64_t lo = family == 0 ? 0 : (uint64_t{rng()} << 32) | rng();
      net::IPAddress a = family == 0
                             ? net::IPAddress(net::IPv4Address(static_cast<uint32_t>(hi >> 32)))
                             : net::IPAddress(net::IPv6Address(hi, lo));
      return net::Prefix(a, static_cast<int>(rng() % (max_len + 1)));
    };
    for (int round = 0; round < 20; ++round) {
      std::vector<PrefixEntry> entries;
      for (int i = 0; i < 40; ++i) {
        PrefixEntry e;
        e.prefix = random_prefix(bits / 2);
        e.modifier = static_cast<PrefixModifier>(rng() % 6);
        if (e.modifier == PrefixModifier::kRange) {
          e.min_length = e.prefix.length() + static_cast<int>(rng() % 8);
          e.max_length = std::min(bits, e.min_length + static_cast<int>(rng() % 8));
        }
        entries.push_back(e);
      }
      PrefixSet set(entries);
      for (int q = 0; q < 2000; ++q) {
        net::Prefix r = q % 2 ? random_prefix(bits)
                              : entries[rng() % entries.size()].prefix.Truncated(
                                    static_cast<int>(rng() % (bits + 1)));
        if (q % 3 == 0) {
          const auto& base = entries[rng() % entries.size()].prefix;
          r = net::Prefix(base.address(),
                          std::min(bits, base.length() + static_cast<int>(rng() % 10)));
        }
        ASSERT_EQ(set.Matches(r), Naive(entries, r)) << r.ToString();
      }
    }
  }
}

}  // namespace
}  // namespace sluice::policy
