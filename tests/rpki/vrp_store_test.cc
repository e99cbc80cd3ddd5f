// The VRP union sluice-rpki serves: several caches, net changes, a cache's data going at once.

#include "rpki/vrp_store.h"

#include <gtest/gtest.h>

namespace sluice::rpki {
namespace {

Vrp V(const char* prefix, int max_length, uint32_t asn) {
  return Vrp{*net::Prefix::Parse(prefix), static_cast<uint8_t>(max_length), asn};
}

TEST(VrpStoreTest, AnnounceAndWithdrawChangeTheUnion) {
  VrpStore s;
  EXPECT_TRUE(s.Announce(1, V("10.0.0.0/8", 16, 65001)));
  EXPECT_TRUE(s.Announce(1, V("2001:db8::/32", 48, 65001)));
  EXPECT_FALSE(s.Announce(1, V("10.0.0.0/8", 16, 65001)));  // held already
  EXPECT_EQ(s.size_v4(), 1u);
  EXPECT_EQ(s.size_v6(), 1u);
  VrpChanges c = s.TakeChanges();
  EXPECT_EQ(c.announced.size(), 2u);
  EXPECT_TRUE(c.withdrawn.empty());
  EXPECT_TRUE(s.Withdraw(1, V("10.0.0.0/8", 16, 65001)));
  EXPECT_FALSE(s.Withdraw(1, V("10.0.0.0/8", 16, 65001)));
  c = s.TakeChanges();
  ASSERT_EQ(c.withdrawn.size(), 1u);
  EXPECT_EQ(c.withdrawn[0], V("10.0.0.0/8", 16, 65001));
  EXPECT_EQ(s.size_v4(), 0u);
}

TEST(VrpStoreTest, MalformedMaxLengthIsRefused) {
  VrpStore s;
  EXPECT_FALSE(s.Announce(1, V("10.0.0.0/16", 8, 65001)));
  EXPECT_FALSE(s.Announce(1, V("10.0.0.0/16", 33, 65001)));
  EXPECT_TRUE(s.TakeChanges().empty());
}

TEST(VrpStoreTest, AVrpStaysWhileAnyCacheHoldsIt) {
  VrpStore s;
  const Vrp v = V("192.0.2.0/24", 24, 64496);
  ASSERT_TRUE(s.Announce(1, v));
  ASSERT_TRUE(s.Announce(2, v));
  s.TakeChanges();
  EXPECT_TRUE(s.Withdraw(1, v));
  EXPECT_TRUE(s.Contains(v));
  EXPECT_TRUE(s.TakeChanges().empty());
  EXPECT_EQ(s.DropCache(2), 1u);
  EXPECT_FALSE(s.Contains(v));
  EXPECT_EQ(s.TakeChanges().withdrawn.size(), 1u);
}

TEST(VrpStoreTest, ChangesAreNet) {
  VrpStore s;
  const Vrp v = V("192.0.2.0/24", 24, 64496);
  ASSERT_TRUE(s.Announce(1, v));
  ASSERT_TRUE(s.Withdraw(1, v));
  EXPECT_TRUE(s.TakeChanges().empty());  // came and went
  ASSERT_TRUE(s.Announce(1, v));
  s.TakeChanges();
  ASSERT_TRUE(s.Withdraw(1, v));
  ASSERT_TRUE(s.Announce(1, v));
  EXPECT_TRUE(s.TakeChanges().empty());  // went and came back
}

TEST(VrpStoreTest, DropCacheTakesOnlyThatCache) {
  VrpStore s;
  ASSERT_TRUE(s.Announce(1, V("10.0.0.0/8", 8, 1)));
  ASSERT_TRUE(s.Announce(1, V("11.0.0.0/8", 8, 1)));
  ASSERT_TRUE(s.Announce(2, V("12.0.0.0/8", 8, 2)));
  s.TakeChanges();
  EXPECT_EQ(s.DropCache(1), 2u);
  EXPECT_EQ(s.DropCache(1), 0u);
  EXPECT_EQ(s.CacheSize(2), 1u);
  const std::vector<Vrp> left = s.Snapshot();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0], V("12.0.0.0/8", 8, 2));
  EXPECT_EQ(s.TakeChanges().withdrawn.size(), 2u);
}

// With no one to send them to, changes are not kept; the union and its counts are.
TEST(VrpStoreTest, WithoutTrackingNoChangesAreKept) {
  VrpStore s;
  s.set_tracking(false);
  EXPECT_TRUE(s.Announce(1, V("10.0.0.0/8", 16, 65001)));
  EXPECT_TRUE(s.TakeChanges().empty());
  EXPECT_EQ(s.size_v4(), 1u);
  EXPECT_TRUE(s.Contains(V("10.0.0.0/8", 16, 65001)));
  s.set_tracking(true);
  EXPECT_TRUE(s.Withdraw(1, V("10.0.0.0/8", 16, 65001)));
  EXPECT_EQ(s.TakeChanges().withdrawn.size(), 1u);
}

}  // namespace
}  // namespace sluice::rpki
