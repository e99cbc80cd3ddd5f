// UpdateBatch: the UPDATEs of one read, copied and decoded together off the event loop, come out
// in the order they were added, each with its own RFC 7606 outcome.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "bgp/session/update_batch.h"
#include "bgp/wire/attribute_store.h"
#include "net/prefix.h"

namespace sluice::bgp {
namespace {

using Bytes8 = std::vector<uint8_t>;

// An UPDATE: Withdrawn Routes `withdrawn`, Path Attributes `attrs`, NLRI `nlri`.
Bytes8 Update(const Bytes8& withdrawn, const Bytes8& attrs, const Bytes8& nlri) {
  Bytes8 m(16, 0xff);
  const size_t length = 19 + 2 + withdrawn.size() + 2 + attrs.size() + nlri.size();
  m.insert(m.end(), {uint8_t(length >> 8), uint8_t(length), 2});
  m.insert(m.end(), {uint8_t(withdrawn.size() >> 8), uint8_t(withdrawn.size())});
  m.insert(m.end(), withdrawn.begin(), withdrawn.end());
  m.insert(m.end(), {uint8_t(attrs.size() >> 8), uint8_t(attrs.size())});
  m.insert(m.end(), attrs.begin(), attrs.end());
  m.insert(m.end(), nlri.begin(), nlri.end());
  return m;
}

// ORIGIN `origin`, AS_PATH 65001, NEXT_HOP 192.0.2.1.
Bytes8 Attributes(uint8_t origin) {
  return {0x40, 1, 1, origin,                       // ORIGIN
          0x40, 2, 6, 2,      1, 0, 0, 0xfd, 0xe9,  // AS_PATH: AS_SEQUENCE 65001
          0x40, 3, 4, 192,    0, 2, 1};             // NEXT_HOP
}

const Bytes8 kPrefix1 = {24, 10, 0, 1};  // 10.0.1.0/24
const Bytes8 kPrefix2 = {24, 10, 0, 2};  // 10.0.2.0/24

TEST(UpdateBatch, DecodesEveryMessageInOrderEachWithItsOwnOutcome) {
  UpdateBatch batch;
  Bytes8 first = Update({}, Attributes(0), kPrefix1);
  batch.Add(first);
  first.assign(first.size(), 0);                   // the batch holds its own copy
  batch.Add(Update({}, Attributes(7), kPrefix2));  // ORIGIN 7: treat-as-withdraw (RFC 7606 §7.1)
  batch.Add(Update(kPrefix1, {}, {}));
  ASSERT_EQ(batch.size(), 3u);

  AttributeStore store;
  UpdateDecoder decoder(SessionParams(), &store);
  UpdateBatch::Decoded d = batch.Decode(decoder);
  ASSERT_FALSE(d.fault.has_value()) << d.fault->ToString();
  ASSERT_EQ(d.updates.size(), 3u);

  EXPECT_TRUE(d.updates[0].errors.ok());
  ASSERT_EQ(d.updates[0].announced.size(), 1u);
  EXPECT_EQ(d.updates[0].announced[0].prefix, *net::Prefix::Parse("10.0.1.0/24"));

  EXPECT_EQ(d.updates[1].errors.action(), UpdateAction::kTreatAsWithdraw);
  EXPECT_TRUE(d.updates[1].announced.empty());
  ASSERT_EQ(d.updates[1].withdrawn.size(), 1u);
  EXPECT_EQ(d.updates[1].withdrawn[0].prefix, *net::Prefix::Parse("10.0.2.0/24"));

  EXPECT_TRUE(d.updates[2].errors.ok());
  ASSERT_EQ(d.updates[2].withdrawn.size(), 1u);
  EXPECT_EQ(d.updates[2].withdrawn[0].prefix, *net::Prefix::Parse("10.0.1.0/24"));
}

TEST(UpdateBatch, AnEmptyBatchDecodesToNothing) {
  UpdateBatch batch;
  EXPECT_TRUE(batch.empty());
  AttributeStore store;
  UpdateDecoder decoder(SessionParams(), &store);
  UpdateBatch::Decoded d = batch.Decode(decoder);
  EXPECT_TRUE(d.updates.empty());
  EXPECT_FALSE(d.fault.has_value());
}

}  // namespace
}  // namespace sluice::bgp
