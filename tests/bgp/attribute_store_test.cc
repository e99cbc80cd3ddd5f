// AttributeStore: one shared copy per distinct set, reference counting, release on last
// reference, and concurrent interning from many threads (run under TSan in CI).
#include "bgp/wire/attribute_store.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "absl/hash/hash.h"

namespace sluice::bgp {
namespace {

PathAttributes Attrs(uint32_t origin_as, uint32_t med = 0) {
  PathAttributes a;
  a.origin = Origin::kIgp;
  a.as_path = AsPath::Sequence({65001, origin_as});
  a.next_hop = net::IPv4Address(0xc0000201);
  if (med) a.med = med;
  return a;
}

TEST(AttributeStoreTest, EqualSetsShareOneCopy) {
  AttributeStore store;
  AttrRef a = store.Intern(Attrs(1));
  AttrRef b = store.Intern(Attrs(1));
  AttrRef c = store.Intern(Attrs(2));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.get(), b.get());
  EXPECT_NE(a, c);
  EXPECT_EQ(store.size(), 2u);
  EXPECT_EQ(a.use_count(), 2u);
  EXPECT_EQ(a->as_path->ToString(), "65001 1");
  EXPECT_EQ(a.hash(), Attrs(1).Hash());
}

TEST(AttributeStoreTest, EqualSetsFromTwoStoresAreEqualHandles) {
  // The shard stage's stores (one per shard): two entries for one set compare and hash equal.
  AttributeStore one, two;
  AttrRef a = one.Intern(Attrs(1));
  AttrRef b = two.Intern(Attrs(1));
  AttrRef c = two.Intern(Attrs(2));
  EXPECT_NE(a.get(), b.get());
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_NE(a, c);
  EXPECT_NE(a, AttrRef());
  EXPECT_EQ(absl::HashOf(a), absl::HashOf(b));
}

TEST(AttributeStoreTest, AWorkersLocalStoreIsItsOwnAndLivesWithTheStore) {
  AttributeStore store;
  AttributeStore& zero = store.Local(0);
  AttributeStore& three = store.Local(3);
  EXPECT_EQ(&store.Local(0), &zero);  // made once
  EXPECT_NE(&zero, &three);
  EXPECT_NE(zero.id(), store.id());
  AttrRef shared = store.Intern(Attrs(1));
  AttrRef local = zero.Intern(Attrs(1));
  AttrRef other = three.Intern(Attrs(1));
  EXPECT_NE(local.get(), shared.get());  // a copy of its own...
  EXPECT_EQ(local, shared);              // ...equal by content
  EXPECT_EQ(local, other);
  EXPECT_EQ(local.store_id(), zero.id());
  EXPECT_EQ(store.size(), 1u);
  EXPECT_EQ(zero.size(), 1u);
  local.reset();
  EXPECT_EQ(zero.size(), 0u);
}

TEST(AttributeStoreTest, PresentButEmptyDiffersFromAbsent) {
  AttributeStore store;
  PathAttributes empty_path = Attrs(1);
  empty_path.as_path = AsPath();
  PathAttributes no_path = Attrs(1);
  no_path.as_path.reset();
  EXPECT_NE(store.Intern(empty_path), store.Intern(no_path));
  PathAttributes med0 = Attrs(1);
  med0.med = 0;
  EXPECT_NE(store.Intern(med0), store.Intern(Attrs(1)));
}

TEST(AttributeStoreTest, LastReferenceReleasesTheSet) {
  AttributeStore store;
  {
    AttrRef a = store.Intern(Attrs(1));
    AttrRef copy = a;
    AttrRef moved = std::move(copy);
    EXPECT_EQ(a.use_count(), 2u);
    EXPECT_EQ(store.size(), 1u);
  }
  EXPECT_EQ(store.size(), 0u);
  AttrRef again = store.Intern(Attrs(1));
  EXPECT_EQ(again.use_count(), 1u);
  again.reset();
  EXPECT_FALSE(again);
  EXPECT_EQ(store.size(), 0u);
}

TEST(AttributeStoreTest, TransientSetsAreEqualByContentAndNotInterned) {
  AttrRef transient, other;
  {
    AttributeStore store;
    AttrRef interned = store.Intern(Attrs(1));
    transient = store.MakeTransient(Attrs(1));
    other = store.MakeTransient(Attrs(1));
    EXPECT_NE(transient.get(), interned.get());
    EXPECT_NE(transient.get(), other.get());
    EXPECT_EQ(transient, interned);
    EXPECT_EQ(interned, transient);
    EXPECT_EQ(transient, other);
    EXPECT_NE(transient, store.MakeTransient(Attrs(2)));
    EXPECT_EQ(transient.hash(), interned.hash());
    EXPECT_EQ(absl::HashOf(transient), absl::HashOf(interned));
    EXPECT_EQ(store.size(), 1u);  // only the interned one
    AttrRef copy = transient;
    EXPECT_EQ(transient.use_count(), 2u);
  }
  // The store is gone (it did not abort: transient sets are not its references); they live on.
  EXPECT_EQ(transient.use_count(), 1u);
  EXPECT_EQ(transient->as_path->ToString(), "65001 1");
  transient.reset();
  EXPECT_EQ(other->as_path->ToString(), "65001 1");
}

TEST(AttributeStoreTest, HandleIsEightOctets) { EXPECT_EQ(sizeof(AttrRef), 8u); }

TEST(AttributeStoreTest, RareAttributesAreOutOfLineAndEmptyOnesAreAbsent) {
  // A set without rare attributes holds no allocation for them, however it was made.
  const PathAttributes plain = Attrs(1);
  PathAttributes emptied = Attrs(1);
  emptied.mutable_rare().large_communities = {LargeCommunity{65001, 1, 2}};
  EXPECT_NE(emptied, plain);
  EXPECT_NE(emptied.Hash(), plain.Hash());
  EXPECT_GT(emptied.HeapBytes(), plain.HeapBytes());
  emptied.mutable_rare().large_communities.clear();  // allocated, but empty
  EXPECT_EQ(emptied, plain);
  EXPECT_EQ(emptied.Hash(), plain.Hash());
  EXPECT_EQ(PathAttributes(emptied).HeapBytes(), plain.HeapBytes());

  AttributeStore store;
  AttrRef interned = store.Intern(std::move(emptied));
  EXPECT_EQ(interned->HeapBytes(), plain.HeapBytes());
  EXPECT_EQ(store.Intern(plain).get(), interned.get());

  // Reading them allocates nothing.
  PathAttributes read = Attrs(1);
  EXPECT_TRUE(read.rare().empty());
  EXPECT_EQ(read.HeapBytes(), plain.HeapBytes());
}

// A store entry (the set plus its hash, shard and counts) fits the allocator's 176-octet class,
// not 256: the rare attributes are out of line.
TEST(AttributeStoreTest, CommonSetIsSmall) { EXPECT_LE(sizeof(internal::AttrEntry), 176u); }

TEST(AttributeStoreTest, MemoryGrowsWithDistinctSets) {
  AttributeStore store;
  const size_t empty = store.MemoryBytes();
  std::vector<AttrRef> refs;
  for (uint32_t i = 0; i < 1000; ++i) refs.push_back(store.Intern(Attrs(i)));
  EXPECT_GT(store.MemoryBytes(), empty + 1000 * sizeof(PathAttributes));
}

TEST(AttributeStoreTest, ConcurrentInterningAndReleaseKeepsOneCopyPerSet) {
  AttributeStore store(8);
  constexpr int kThreads = 4, kSets = 200, kRounds = 50;
  std::vector<std::vector<AttrRef>> kept(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        std::vector<AttrRef> local;
        for (int i = 0; i < kSets; ++i) local.push_back(store.Intern(Attrs(uint32_t(i), 5)));
        // Copies and releases race with other threads' interning of the same sets.
        std::vector<AttrRef> copies = local;
        copies.clear();
        if (round == kRounds - 1) kept[t] = std::move(local);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(store.size(), size_t(kSets));
  for (int i = 0; i < kSets; ++i) {
    for (int t = 1; t < kThreads; ++t) EXPECT_EQ(kept[0][i], kept[t][i]);
    EXPECT_EQ(kept[0][i].use_count(), uint32_t(kThreads));
  }
  kept.clear();
  EXPECT_EQ(store.size(), 0u);
}

}  // namespace
}  // namespace sluice::bgp
