// Connection's writing of queued UPDATEs on loopback: many small batches queued while a write is
// in flight go out gathered, whole and in order; a Close() while a write is stuck half-way lets
// that write finish from the batches it was given, then sends the NOTIFICATION.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "bgp/session/connection.h"
#include "bgp/wire/notification.h"
#include "tests/bgp/session_test_util.h"

namespace sluice::bgp {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using testing::RunUntil;

// Records what a connection hands over: each message's type, length and (UPDATE-shaped ones)
// the sequence number in its first four body octets.
struct Recorder : ConnectionOwner {
  void OnConnected(Connection*) override {}
  void OnConnectFailed(Connection*, const std::string&) override {}
  void OnMessage(Connection*, Bytes m) override {
    types.push_back(m[18]);
    lengths.push_back(m.size());
    if (m.size() >= size_t(kHeaderSize) + 4) sequence.push_back(LoadU32(m.data() + kHeaderSize));
  }
  void OnSliceEnd(Connection*) override { ++slices; }
  void OnHeaderError(Connection*, const Notification&) override { ++header_errors; }
  void OnClosed(Connection*, const std::string&) override { closed = true; }
  void OnWritable(Connection*) override {}
  std::vector<uint8_t> types;
  std::vector<size_t> lengths;
  std::vector<uint32_t> sequence;
  int slices = 0;
  int header_errors = 0;
  bool closed = false;
};

// An UPDATE-shaped message of `length` octets (at least 23) carrying `seq`.
void AppendNumbered(uint32_t seq, size_t length, std::vector<uint8_t>* out) {
  const size_t at = out->size();
  out->resize(at + length, 0);
  std::fill(out->begin() + at, out->begin() + at + 16, 0xff);
  StoreU16(out->data() + at + 16, uint16_t(length));
  (*out)[at + 18] = uint8_t(MessageType::kUpdate);
  StoreU32(out->data() + at + kHeaderSize, seq);
}

struct Pair {
  asio::io_context io;
  tcp::acceptor acceptor{io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)};
  tcp::socket client{io};
  Recorder writer_owner, reader_owner;
  std::shared_ptr<Connection> writer, reader;

  Pair() {
    client.connect(acceptor.local_endpoint());
    writer = Connection::Accepted(io, &writer_owner, acceptor.accept(), ConnectionOptions());
  }
  // The other end starts reading.
  void StartReader() {
    reader = Connection::Accepted(io, &reader_owner, std::move(client), ConnectionOptions());
  }
};

// 2,000 batches of 1 to 7 messages of 23 to 4,018 octets, and every 100th a batch of 100
// messages of 1,000 octets (more than a write chunk, so the chunk is cut inside it), queued at
// once: the peer reads every message whole and in order.
TEST(ConnectionWriteTest, QueuedBatchesArriveWholeAndInOrder) {
  Pair p;
  uint32_t seq = 0;
  std::vector<size_t> lengths;
  size_t octets = 0;
  for (int b = 0; b < 2000; ++b) {
    std::vector<uint8_t> batch;
    const bool big = b % 100 == 50;
    const int count = big ? 100 : 1 + b % 7;
    for (int i = 0; i < count; ++i) {
      const size_t length = big ? 1000 : 23 + (seq * 37) % 3996;
      AppendNumbered(seq++, length, &batch);
      lengths.push_back(length);
    }
    octets += batch.size();
    p.writer->SendBulk(std::move(batch));
  }
  EXPECT_LE(p.writer->backlog(), octets);
  p.StartReader();
  ASSERT_TRUE(RunUntil(
      p.io, [&] { return p.reader_owner.types.size() == seq; }, 20));
  EXPECT_EQ(p.reader_owner.header_errors, 0);
  EXPECT_EQ(p.reader_owner.lengths, lengths);
  ASSERT_EQ(p.reader_owner.sequence.size(), seq);
  for (uint32_t i = 0; i < seq; ++i) ASSERT_EQ(p.reader_owner.sequence[i], i) << "out of order";
  EXPECT_EQ(p.writer->backlog(), 0u);
  EXPECT_GT(p.reader_owner.slices, 0) << "the owner was never told a slice ended";
  p.writer->Close();
  p.reader->Close();
}

// The peer reads nothing while 16 MiB are queued, so a write is stuck half-way; then Close():
// the queued batches not being written are dropped, the one being written is finished, and the
// NOTIFICATION follows. The peer reads whole UPDATEs, in order, then the NOTIFICATION.
TEST(ConnectionWriteTest, CloseDuringAStuckWriteFinishesItThenSendsTheNotification) {
  Pair p;
  uint32_t seq = 0;
  for (int b = 0; b < 64; ++b) {
    std::vector<uint8_t> batch;
    for (int i = 0; i < 64; ++i) AppendNumbered(seq++, 4096, &batch);
    p.writer->SendBulk(std::move(batch));
  }
  const size_t queued = p.writer->backlog();
  RunUntil(
      p.io, [] { return false; }, 0.3);
  ASSERT_GT(p.writer->backlog(), 0u) << "loopback took 16 MiB unread";
  ASSERT_LT(p.writer->backlog(), queued) << "nothing was written";
  std::vector<uint8_t> cease;
  AppendNotification(Notification{6, 2, {}}, &cease);
  p.writer->SendUrgent(cease);
  p.writer->Close();
  p.StartReader();
  ASSERT_TRUE(RunUntil(
      p.io, [&] { return p.reader_owner.closed; }, 10));
  EXPECT_EQ(p.reader_owner.header_errors, 0);
  ASSERT_GE(p.reader_owner.types.size(), 2u);
  EXPECT_EQ(p.reader_owner.types.back(), uint8_t(MessageType::kNotification));
  const size_t updates = p.reader_owner.types.size() - 1;
  EXPECT_LT(updates, size_t(seq)) << "the dropped batches were sent";
  for (size_t i = 0; i < updates; ++i) {
    ASSERT_EQ(p.reader_owner.types[i], uint8_t(MessageType::kUpdate));
    ASSERT_EQ(p.reader_owner.lengths[i], 4096u);
    ASSERT_EQ(p.reader_owner.sequence[i], i) << "out of order";
  }
  p.reader->Close();
}

}  // namespace
}  // namespace sluice::bgp
