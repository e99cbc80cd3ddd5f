// sluice-bgp's side of rpki_client/1.0: dumps that keep every VRP until they are complete, then
// sweep; changes; a restarted sluice-rpki (a new epoch) changing nothing it still holds.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "bgp/rpki/vrp_feed.h"

namespace sluice::bgp::rpki {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

Vrp V(const char* prefix, int max_length, uint32_t asn) {
  return Vrp{*net::Prefix::Parse(prefix), static_cast<uint8_t>(max_length), asn};
}

VrpBatch Dump(uint64_t epoch, std::vector<Vrp> vrps, bool done) {
  return VrpBatch{epoch, true, done, std::move(vrps), {}};
}

class VrpFeedTest : public ::testing::Test {
 protected:
  // The VRPs the batch added or removed.
  absl::StatusOr<std::vector<Vrp>> Apply(const VrpBatch& batch) {
    absl::StatusOr<VrpDelta> delta = feed_.Apply(batch);
    if (!delta.ok()) return delta.status();
    std::vector<Vrp> changed = delta->added;
    changed.insert(changed.end(), delta->removed.begin(), delta->removed.end());
    return changed;
  }

  OriginValidator table_;
  VrpFeed feed_{&table_};
};

TEST_F(VrpFeedTest, ADumpThenChanges) {
  auto changed = Apply(Dump(7, {V("10.0.0.0/8", 8, 1), V("11.0.0.0/8", 8, 2)}, true));
  ASSERT_TRUE(changed.ok());
  EXPECT_EQ(changed->size(), 2u);
  EXPECT_EQ(table_.Validate(*net::Prefix::Parse("10.0.0.0/8"), 1), RpkiState::kValid);
  changed = Apply(VrpBatch{7, false, false, {V("12.0.0.0/8", 8, 3)}, {V("11.0.0.0/8", 8, 2)}});
  ASSERT_TRUE(changed.ok());
  EXPECT_THAT(*changed, UnorderedElementsAre(V("12.0.0.0/8", 8, 3), V("11.0.0.0/8", 8, 2)));
  EXPECT_EQ(table_.Validate(*net::Prefix::Parse("11.0.0.0/8"), 2), RpkiState::kNotFound);
}

TEST_F(VrpFeedTest, ANewProcessesDumpKeepsEverythingUntilDoneThenSweeps) {
  ASSERT_TRUE(Apply(Dump(7, {V("10.0.0.0/8", 8, 1), V("11.0.0.0/8", 8, 2)}, true)).ok());
  // sluice-rpki restarted: its dump comes in two batches and no longer has 11/8.
  auto changed = Apply(Dump(9, {V("10.0.0.0/8", 8, 1)}, false));
  ASSERT_TRUE(changed.ok());
  EXPECT_THAT(*changed, IsEmpty());  // 10/8 was there already; 11/8 stays for now
  EXPECT_EQ(table_.size(), 2u);
  EXPECT_TRUE(feed_.dumping());
  changed = Apply(Dump(9, {V("12.0.0.0/8", 8, 3)}, true));
  ASSERT_TRUE(changed.ok());
  EXPECT_THAT(*changed, UnorderedElementsAre(V("12.0.0.0/8", 8, 3), V("11.0.0.0/8", 8, 2)));
  EXPECT_EQ(table_.size(), 2u);
  EXPECT_EQ(feed_.swept(), 1u);
  EXPECT_FALSE(feed_.dumping());
  EXPECT_EQ(feed_.epoch(), 9u);
}

// sluice-rpki sends the whole set again when a batch may have been lost (the same epoch). What
// the unfinished dump carried, and this one does not, goes at its end.
TEST_F(VrpFeedTest, ADumpSentAgainStartsAfresh) {
  ASSERT_TRUE(Apply(Dump(7, {V("10.0.0.0/8", 8, 1)}, true)).ok());
  VrpBatch first = Dump(7, {V("11.0.0.0/8", 8, 2)}, false);
  first.dump_start = true;
  ASSERT_TRUE(Apply(first).ok());  // its other batches are lost
  VrpBatch again = Dump(7, {V("10.0.0.0/8", 8, 1)}, true);
  again.dump_start = true;
  auto changed = Apply(again);
  ASSERT_TRUE(changed.ok());
  EXPECT_THAT(*changed, ElementsAre(V("11.0.0.0/8", 8, 2)));
  EXPECT_EQ(table_.size(), 1u);
  EXPECT_EQ(table_.Validate(*net::Prefix::Parse("11.0.0.0/8"), 2), RpkiState::kNotFound);
}

TEST_F(VrpFeedTest, AnEmptyDumpSweepsEverything) {
  ASSERT_TRUE(Apply(Dump(7, {V("10.0.0.0/8", 8, 1)}, true)).ok());
  auto changed = Apply(Dump(8, {}, true));
  ASSERT_TRUE(changed.ok());
  EXPECT_THAT(*changed, ElementsAre(V("10.0.0.0/8", 8, 1)));
  EXPECT_EQ(table_.size(), 0u);
}

TEST_F(VrpFeedTest, BadBatchesChangeNothing) {
  ASSERT_TRUE(Apply(Dump(7, {V("10.0.0.0/8", 8, 1)}, true)).ok());
  VrpBatch withdraw_in_dump = Dump(7, {}, true);
  withdraw_in_dump.withdrawn = {V("10.0.0.0/8", 8, 1)};
  EXPECT_EQ(Apply(withdraw_in_dump).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Apply(VrpBatch{5, false, false, {}, {V("10.0.0.0/8", 8, 1)}}).status().code(),
            absl::StatusCode::kFailedPrecondition);  // a gone process's changes
  EXPECT_EQ(table_.size(), 1u);
  auto changed = Apply(VrpBatch{7, false, false, {V("10.0.0.0/16", 8, 1)}, {}});
  ASSERT_TRUE(changed.ok());
  EXPECT_THAT(*changed, IsEmpty());  // maxLength below the prefix length: skipped
  EXPECT_EQ(feed_.malformed(), 1u);
}

// Plan leaves the set as it is, so that the stages can read the states before the change.
TEST_F(VrpFeedTest, PlanChangesNothingUntilApplied) {
  ASSERT_TRUE(Apply(Dump(7, {V("10.0.0.0/8", 8, 1)}, true)).ok());
  auto delta =
      feed_.Plan(VrpBatch{7, false, false, {V("11.0.0.0/8", 8, 2)}, {V("10.0.0.0/8", 8, 1)}});
  ASSERT_TRUE(delta.ok());
  EXPECT_THAT(delta->added, ElementsAre(V("11.0.0.0/8", 8, 2)));
  EXPECT_THAT(delta->removed, ElementsAre(V("10.0.0.0/8", 8, 1)));
  EXPECT_EQ(table_.Validate(*net::Prefix::Parse("10.0.0.0/8"), 1), RpkiState::kValid);
  table_.Apply(*delta);
  EXPECT_EQ(table_.Validate(*net::Prefix::Parse("10.0.0.0/8"), 1), RpkiState::kNotFound);
  EXPECT_EQ(table_.Validate(*net::Prefix::Parse("11.0.0.0/8"), 2), RpkiState::kValid);
}

// A VRP withdrawn and announced again in one batch, or announced twice, changes nothing twice.
TEST_F(VrpFeedTest, ABatchIsNet) {
  ASSERT_TRUE(Apply(Dump(7, {V("10.0.0.0/8", 8, 1)}, true)).ok());
  auto delta =
      feed_.Plan(VrpBatch{7,
                          false,
                          false,
                          {V("10.0.0.0/8", 8, 1), V("12.0.0.0/8", 8, 3), V("12.0.0.0/8", 8, 3)},
                          {V("10.0.0.0/8", 8, 1)}});
  ASSERT_TRUE(delta.ok());
  EXPECT_THAT(delta->added, ElementsAre(V("12.0.0.0/8", 8, 3)));
  EXPECT_THAT(delta->removed, IsEmpty());
}

}  // namespace
}  // namespace sluice::bgp::rpki
