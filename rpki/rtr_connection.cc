#include "rpki/rtr_connection.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/write.hpp>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/log.h"

namespace sluice::rpki {
namespace {

using Clock = RtrSession::Clock;
constexpr size_t kReadChunk = 64 * 1024;

boost::asio::ip::tcp::endpoint Endpoint(const CacheConfig& c) {
  return {boost::asio::ip::make_address(c.address.ToString()), c.port};
}

}  // namespace

std::string CacheConfig::Name() const {
  return address.is_v6() ? absl::StrCat("[", address.ToString(), "]:", port)
                         : absl::StrCat(address.ToString(), ":", port);
}

RtrConnection::RtrConnection(boost::asio::io_context& io, CacheConfig config, VrpStore* store,
                             VrpStore::CacheId id, std::function<void()> on_event)
    : config_(std::move(config)),
      store_(store),
      id_(id),
      on_event_(std::move(on_event)),
      session_(store, id, config_.intervals),
      socket_(io),
      reconnect_timer_(io),
      deadline_timer_(io),
      read_buffer_(kReadChunk) {}

RtrConnection::~RtrConnection() {
  *alive_ = false;
  boost::system::error_code ignored;
  socket_.close(ignored);
}

void RtrConnection::Start() {
  if (running_) return;
  running_ = true;
  backoff_ = std::chrono::seconds(1);
  Connect();
}

void RtrConnection::Stop() {
  if (!running_) return;
  running_ = false;
  ++generation_;
  boost::system::error_code ignored;
  socket_.close(ignored);
  reconnect_timer_.cancel();
  deadline_timer_.cancel();
  write_queue_.clear();
  connected_ = false;
  session_.Disconnected();
  store_->DropCache(id_);
  on_event_();
}

void RtrConnection::Connect() {
  boost::system::error_code ignored;
  socket_.close(ignored);
  const uint64_t generation = ++generation_;
  socket_.async_connect(Endpoint(config_), [this, alive = std::weak_ptr<bool>(alive_),
                                            generation](const boost::system::error_code& error) {
    if (alive.expired() || generation != generation_) return;
    OnConnected(error);
  });
}

void RtrConnection::OnConnected(const boost::system::error_code& error) {
  if (error) {
    last_error_ = absl::StrCat("connect: ", error.message());
    SLUICE_LOG(kInfo) << "RTR cache " << config_.Name() << ": " << last_error_;
    ScheduleReconnect(backoff_);
    return;
  }
  connected_ = true;
  ++connects_;
  SLUICE_LOG(kInfo) << "RTR cache " << config_.Name() << ": connected";
  Apply(session_.Connected(Clock::now()));
  ReadSome();
}

void RtrConnection::ReadSome() {
  if (!connected_) return;
  socket_.async_read_some(
      boost::asio::buffer(read_buffer_),
      [this, alive = std::weak_ptr<bool>(alive_), generation = generation_](
          const boost::system::error_code& error, size_t n) {
        if (alive.expired() || generation != generation_) return;
        if (error) {
          Close(error == boost::asio::error::eof ? "the cache closed the connection"
                                                 : absl::StrCat("read: ", error.message()),
                false);
          return;
        }
        Apply(session_.Received(std::span(read_buffer_).first(n), Clock::now()));
        ReadSome();
      });
}

void RtrConnection::Apply(RtrSession::Output out) {
  const auto synced_before = session_.last_sync();
  if (out.close) {
    if (!out.send.empty()) {
      // An Error Report of a few octets before the close: written at once, best effort.
      boost::system::error_code ignored;
      boost::asio::write(socket_, boost::asio::buffer(out.send), ignored);
    }
    Close(out.error.empty() ? "session closed" : out.error, out.reconnect_now);
  } else if (!out.send.empty()) {
    Write(std::move(out.send));
  }
  if (session_.last_sync() != synced_before && session_.last_sync()) {
    backoff_ = std::chrono::seconds(1);  // a response completed
  }
  ArmDeadline();
  on_event_();
}

void RtrConnection::Write(std::vector<uint8_t> octets) {
  write_queue_.push_back(std::move(octets));
  if (write_queue_.size() == 1) WriteNext();
}

void RtrConnection::WriteNext() {
  if (write_queue_.empty() || !connected_) return;
  boost::asio::async_write(socket_, boost::asio::buffer(write_queue_.front()),
                           [this, alive = std::weak_ptr<bool>(alive_), generation = generation_](
                               const boost::system::error_code& error, size_t) {
                             if (alive.expired() || generation != generation_) return;
                             if (error)
                               return Close(absl::StrCat("write: ", error.message()), false);
                             write_queue_.pop_front();
                             WriteNext();
                           });
}

void RtrConnection::Close(const std::string& why, bool reconnect_now) {
  ++generation_;
  boost::system::error_code ignored;
  socket_.close(ignored);
  write_queue_.clear();
  connected_ = false;
  session_.Disconnected();
  last_error_ = why;
  SLUICE_LOG(kWarning) << "RTR cache " << config_.Name() << ": " << why
                       << (session_.has_data() ? "; its VRPs stay until they expire" : "");
  ScheduleReconnect(reconnect_now ? std::chrono::seconds(0) : backoff_);
  ArmDeadline();
  on_event_();
}

void RtrConnection::ScheduleReconnect(std::chrono::seconds delay) {
  if (!running_) return;
  const std::chrono::seconds retry(session_.intervals().retry);
  backoff_ = std::min(retry, backoff_ * 2);
  reconnect_timer_.expires_after(delay);
  reconnect_timer_.async_wait(
      [this, alive = std::weak_ptr<bool>(alive_)](const boost::system::error_code& error) {
        if (error || alive.expired() || !running_) return;
        Connect();
      });
}

void RtrConnection::ArmDeadline() {
  const std::optional<Clock::time_point> due = session_.Deadline();
  if (!due || !running_) {
    deadline_timer_.cancel();
    return;
  }
  deadline_timer_.expires_at(*due);
  deadline_timer_.async_wait(
      [this, alive = std::weak_ptr<bool>(alive_)](const boost::system::error_code& error) {
        if (error || alive.expired()) return;
        const bool had_data = session_.has_data();
        const uint32_t expire = session_.intervals().expire;
        Apply(session_.Tick(Clock::now()));
        if (had_data && !session_.has_data()) {
          SLUICE_LOG(kWarning) << "RTR cache " << config_.Name()
                               << ": its VRPs expired (no End of Data for " << expire << " s)";
        }
      });
}

}  // namespace sluice::rpki
