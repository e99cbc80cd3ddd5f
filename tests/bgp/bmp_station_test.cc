// A BMP station's connection (bgp/bmp/station.h) against a local acceptor: a snapshot goes
// before the live messages that arrived during it; a station that stops reading is dropped
// once its buffer is full, and is connected again (a new generation, to be re-synchronised).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>

#include "bgp/bmp/station.h"

namespace sluice::bgp::bmp {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

std::span<const uint8_t> S(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

class StationTest : public ::testing::Test {
 protected:
  StationTest()
      : acceptor_(accept_io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)),
        work_(asio::make_work_guard(io_)),
        thread_([this] { io_.run(); }) {}
  ~StationTest() override {
    if (station_) station_->Finish({}, 0.1);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    work_.reset();
    io_.stop();
    thread_.join();
  }

  std::shared_ptr<Station> MakeStation(size_t buffer_bytes) {
    StationConfig c;
    c.address = *net::IPAddress::Parse("127.0.0.1");
    c.port = acceptor_.local_endpoint().port();
    c.buffer_bytes = buffer_bytes;
    c.initial_backoff_s = 0.05;
    c.max_backoff_s = 0.05;
    station_ = std::make_shared<Station>(io_, c, [this](uint64_t g) {
      std::lock_guard lock(mu_);
      generations_.push_back(g);
    });
    return station_;
  }

  // Waits up to 10 s for the station to have connected `n` times; its last generation.
  uint64_t WaitConnected(size_t n) {
    for (int i = 0; i < 1000; ++i) {
      {
        std::lock_guard lock(mu_);
        if (generations_.size() >= n) return generations_[n - 1];
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ADD_FAILURE() << "the station did not connect " << n << " times";
    return 0;
  }

  asio::io_context accept_io_;
  tcp::acceptor acceptor_;
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::thread thread_;
  std::shared_ptr<Station> station_;
  std::mutex mu_;
  std::vector<uint64_t> generations_;
};

TEST_F(StationTest, SnapshotGoesBeforeLiveMessagesHeldDuringIt) {
  auto station = MakeStation(1 << 20);
  EXPECT_FALSE(station->Append(S("dropped;")));  // not connected yet: nothing queued
  station->Start();
  tcp::socket peer(accept_io_);
  acceptor_.accept(peer);
  uint64_t g = WaitConnected(1);
  EXPECT_TRUE(station->Append(S("live;")));
  EXPECT_TRUE(station->AppendSync(g, S("snapshot;")));
  EXPECT_FALSE(station->AppendSync(g + 1, S("other;")));  // not this connection's
  station->EndSync(g);
  std::string want = "snapshot;live;";
  std::string got(want.size(), '\0');
  asio::read(peer, asio::buffer(got));
  EXPECT_EQ(got, want);
  EXPECT_TRUE(station->stats().synced);
}

TEST_F(StationTest, AStationThatStopsReadingIsDroppedAndReconnected) {
  constexpr size_t kBuffer = 256 << 10;
  auto station = MakeStation(kBuffer);
  station->Start();
  tcp::socket stalled(accept_io_);
  acceptor_.accept(stalled);  // never read from
  uint64_t g = WaitConnected(1);
  station->EndSync(g);
  std::string chunk(1024, 'x');
  size_t appended = 0;
  bool dropped = false;
  // The socket buffers take a few MiB; past them the station's own buffer fills.
  for (int i = 0; i < 64 * 1024 && !dropped; ++i) {
    if (station->Append(S(chunk))) {
      appended += chunk.size();
      EXPECT_LE(station->queued_bytes(), kBuffer);
    } else {
      dropped = true;
    }
    if (i % 256 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(dropped) << "appended " << appended << " octets without overflowing";
  EXPECT_EQ(station->stats().overflows, 1u);
  EXPECT_EQ(station->queued_bytes(), 0u);  // the buffer was dropped
  // Connected again: a new generation, which must be re-synchronised.
  tcp::socket second(accept_io_);
  acceptor_.accept(second);
  uint64_t g2 = WaitConnected(2);
  EXPECT_GT(g2, g);
  EXPECT_FALSE(station->AppendSync(g, S("stale;")));
  EXPECT_TRUE(station->AppendSync(g2, S("fresh;")));
  station->EndSync(g2);
  std::string got(6, '\0');
  asio::read(second, asio::buffer(got));
  EXPECT_EQ(got, "fresh;");
}

}  // namespace
}  // namespace sluice::bgp::bmp
