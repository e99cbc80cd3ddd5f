// RFC 9687 send hold timer: its rules, and a Connection to a peer that stops reading.
#include "bgp/session/send_hold_timer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bgp/session/connection.h"
#include "tests/bgp/session_test_util.h"

namespace sluice::bgp {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using std::chrono::seconds;

TEST(SendHoldTimerTest, RunsOnlyWhileDataWaitsAndRestartsOnProgress) {
  EXPECT_EQ(SendHoldTimer::For(90), seconds(480));   // 8 minutes at least
  EXPECT_EQ(SendHoldTimer::For(0), seconds(480));    // no keepalives: still guarded
  EXPECT_EQ(SendHoldTimer::For(300), seconds(600));  // else twice the hold time
  const SendHoldTimer::Clock::time_point t0;
  SendHoldTimer timer(seconds(10));
  EXPECT_FALSE(timer.deadline());  // nothing to write
  timer.Waiting(t0);
  timer.Waiting(t0 + seconds(5));  // still the same wait
  EXPECT_EQ(timer.deadline(), t0 + seconds(10));
  EXPECT_FALSE(timer.Expired(t0 + seconds(9)));
  EXPECT_TRUE(timer.Expired(t0 + seconds(10)));
  timer.Progress(t0 + seconds(8), true);  // the peer took some; more waits
  EXPECT_FALSE(timer.Expired(t0 + seconds(12)));
  EXPECT_TRUE(timer.Expired(t0 + seconds(18)));
  timer.Progress(t0 + seconds(9), false);  // all written
  EXPECT_FALSE(timer.Expired(t0 + seconds(100)));
  timer.set_duration(seconds(0));  // disabled
  timer.Waiting(t0);
  EXPECT_FALSE(timer.Expired(t0 + seconds(100)));
}

TEST(SendHoldTimerTest, AConnectionToAPeerThatStopsReadingFails) {
  struct Owner : ConnectionOwner {
    void OnConnected(Connection*) override {}
    void OnConnectFailed(Connection*, const std::string&) override {}
    void OnMessage(Connection*, Bytes) override {}
    void OnHeaderError(Connection*, const Notification&) override {}
    void OnClosed(Connection*, const std::string& why) override { reason = why; }
    void OnWritable(Connection*) override {}
    std::string reason;
  };
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  tcp::socket silent(io);  // connected, never read
  silent.connect(acceptor.local_endpoint());
  ConnectionOptions options;
  options.send_hold_time = std::chrono::milliseconds(300);
  Owner owner;
  auto writer = Connection::Accepted(io, &owner, acceptor.accept(), options);
  // 64 MiB of 4,096-octet UPDATE-shaped messages: more than both socket buffers hold.
  std::vector<uint8_t> m(4096, 0);
  std::fill(m.begin(), m.begin() + 16, 0xff);
  StoreU16(m.data() + 16, 4096);
  m[18] = uint8_t(MessageType::kUpdate);
  std::vector<uint8_t> updates;
  for (int i = 0; i < 16 * 1024; ++i) updates.insert(updates.end(), m.begin(), m.end());
  writer->SendBulk(updates);
  ASSERT_TRUE(testing::RunUntil(
      io, [&] { return !owner.reason.empty(); }, 30));
  EXPECT_NE(owner.reason.find("Send Hold Timer Expired"), std::string::npos) << owner.reason;
  EXPECT_GT(writer->backlog(), 0u) << "the peer read nothing, yet all was written";
}

}  // namespace
}  // namespace sluice::bgp
