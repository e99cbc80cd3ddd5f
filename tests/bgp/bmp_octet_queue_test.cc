// OctetQueue (bgp/bmp/octet_queue.h): octets come out in the order they went in, across chunks
// and splices, and chunks written out are reused by the next appends.

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "bgp/bmp/octet_queue.h"

namespace sluice::bgp::bmp {
namespace {

std::vector<uint8_t> Pattern(size_t n, uint8_t first) {
  std::vector<uint8_t> v(n);
  std::iota(v.begin(), v.end(), first);
  return v;
}

std::vector<uint8_t> Contents(const OctetQueue& q) {
  std::vector<uint8_t> out;
  for (const boost::asio::const_buffer& b : q.Buffers()) {
    const auto* p = static_cast<const uint8_t*>(b.data());
    out.insert(out.end(), p, p + b.size());
  }
  return out;
}

TEST(OctetQueueTest, AppendsAcrossChunksComeOutInOrder) {
  OctetQueue q;
  const std::vector<uint8_t> a = Pattern(OctetQueue::kChunkBytes - 10, 1);
  const std::vector<uint8_t> b = Pattern(OctetQueue::kChunkBytes + 25, 7);  // spans three chunks
  q.Append(a);
  q.Append(b);
  EXPECT_EQ(q.size(), a.size() + b.size());
  EXPECT_EQ(q.Buffers().size(), 3u);
  std::vector<uint8_t> want = a;
  want.insert(want.end(), b.begin(), b.end());
  EXPECT_EQ(Contents(q), want);
}

TEST(OctetQueueTest, SpliceMovesEverythingAfterWhatIsQueued) {
  OctetQueue q, held;
  q.Append(Pattern(100, 0));
  held.Append(Pattern(50, 100));
  q.Splice(held);
  EXPECT_TRUE(held.empty());
  EXPECT_EQ(Contents(q), Pattern(150, 0));
  q.Append(Pattern(10, 150));  // after the spliced octets
  EXPECT_EQ(Contents(q), Pattern(160, 0));
}

TEST(OctetQueueTest, WrittenChunksAreReusedAndReleaseEmptiesTheQueue) {
  OctetQueue q, writing;
  q.Append(Pattern(1000, 0));
  writing.Splice(q);
  const void* chunk = writing.Buffers().front().data();
  q.Recycle(writing);
  EXPECT_TRUE(writing.empty());
  q.Append(Pattern(10, 3));
  EXPECT_EQ(q.Buffers().front().data(), chunk);
  EXPECT_EQ(Contents(q), Pattern(10, 3));
  q.Release();
  EXPECT_TRUE(q.empty());
  EXPECT_TRUE(q.Buffers().empty());
}

}  // namespace
}  // namespace sluice::bgp::bmp
