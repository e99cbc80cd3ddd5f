#include "bgp/bmp/station.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "base/log.h"

namespace sluice::bgp::bmp {

namespace asio = boost::asio;
using boost::system::error_code;

Station::Station(asio::io_context& io, StationConfig config,
                 std::function<void(uint64_t generation)> on_connected)
    : io_(io),
      config_(std::move(config)),
      on_connected_(std::move(on_connected)),
      socket_(io),
      timer_(io),
      flush_timer_(io),
      backoff_s_(config_.initial_backoff_s) {}

Station::~Station() = default;

void Station::Start() {
  asio::post(io_, [self = shared_from_this()] { self->Connect(); });
}

void Station::Connect() {
  if (finishing_) return;
  asio::ip::tcp::endpoint ep(ToAsio(config_.address), config_.port);
  error_code ignored;
  socket_.close(ignored);
  socket_.async_connect(ep,
                        [self = shared_from_this()](const error_code& ec) { self->OnConnect(ec); });
}

void Station::OnConnect(const error_code& ec) {
  if (finishing_) return;
  if (ec) {
    ScheduleReconnect();
    return;
  }
  error_code ignored;
  socket_.set_option(asio::ip::tcp::no_delay(true), ignored);
  uint64_t generation;
  {
    std::lock_guard lock(mu_);
    state_ = State::kSyncing;
    generation = ++generation_;
    out_.Release();
    held_.Release();
    stats_.connected = true;
    stats_.synced = false;
    ++stats_.connects;
  }
  SLUICE_LOG(kInfo) << "BMP station " << config_.address.ToString() << " port " << config_.port
                    << ": connected (generation " << generation << ")";
  WatchForClose(generation);
  on_connected_(generation);
}

void Station::WatchForClose(uint64_t generation) {
  socket_.async_read_some(asio::buffer(read_buffer_),
                          [self = shared_from_this(), generation](const error_code& ec, size_t) {
                            self->OnRead(generation, ec);
                          });
}

void Station::OnRead(uint64_t generation, const error_code& ec) {
  if (finishing_ || ec == asio::error::operation_aborted) return;  // we closed it
  if (!ec) {  // a station sends nothing (RFC 7854 §3.2): whatever it sends is ignored
    WatchForClose(generation);
    return;
  }
  {
    std::lock_guard lock(mu_);
    if (generation != generation_ || state_ == State::kDisconnected) return;
    DisconnectLocked();
  }
  SLUICE_LOG(kWarning) << "BMP station " << config_.address.ToString() << " port " << config_.port
                       << ": connection closed by the station (" << ec.message()
                       << "), to be re-synchronised";
  CloseSocket();
}

void Station::DisconnectLocked() {
  state_ = State::kDisconnected;
  ++generation_;
  out_.Release();
  held_.Release();
  stats_.connected = false;
  stats_.synced = false;
}

void Station::ScheduleReconnect() {
  if (finishing_) return;
  timer_.expires_after(std::chrono::milliseconds(int64_t(backoff_s_ * 1000)));
  backoff_s_ = std::min(backoff_s_ * 2, config_.max_backoff_s);
  timer_.async_wait([self = shared_from_this()](const error_code& ec) {
    if (!ec) self->Connect();
  });
}

void Station::OverflowLocked() {
  SLUICE_LOG(kWarning) << "BMP station " << config_.address.ToString() << " port " << config_.port
                       << ": " << out_.size() + held_.size()
                       << " octets queued, over its buffer of " << config_.buffer_bytes
                       << ": dropped, to be re-synchronised";
  DisconnectLocked();
  ++stats_.overflows;
  asio::post(io_, [self = shared_from_this()] { self->CloseSocket(); });
}

void Station::CloseSocket() {
  error_code ignored;
  socket_.close(ignored);  // a write in progress completes with an error, which reconnects
  if (!writing_now_) ScheduleReconnect();
}

void Station::KickLocked(bool now) {
  // A write in progress takes what was appended meanwhile when it completes (OnWrite).
  if (write_posted_ || writing_now_ || out_.empty()) return;
  write_posted_ = true;
  now = now || out_.size() >= kWriteNowBytes;
  asio::post(io_, [self = shared_from_this(), now] {
    if (now) {
      self->Write();
    } else {
      self->WriteSoon();
    }
  });
}

void Station::WriteSoon() {
  flush_timer_.expires_after(kCoalesce);
  flush_timer_.async_wait([self = shared_from_this()](const error_code& ec) {
    if (!ec) self->Write();
  });
}

bool Station::QueueLocked(OctetQueue& to, std::span<const uint8_t> octets) {
  if (out_.size() + held_.size() + octets.size() > config_.buffer_bytes) {
    OverflowLocked();
    return false;
  }
  to.Append(octets);
  KickLocked();
  return true;
}

bool Station::Append(std::span<const uint8_t> message) {
  std::lock_guard lock(mu_);
  if (state_ == State::kDisconnected) return false;
  return QueueLocked(state_ == State::kSyncing ? held_ : out_, message);
}

bool Station::AppendSync(uint64_t generation, std::span<const uint8_t> messages) {
  std::lock_guard lock(mu_);
  if (state_ != State::kSyncing || generation != generation_) return false;
  return QueueLocked(out_, messages);
}

void Station::EndSync(uint64_t generation) {
  std::lock_guard lock(mu_);
  if (state_ != State::kSyncing || generation != generation_) return;
  out_.Splice(held_);
  held_.Release();
  state_ = State::kLive;
  stats_.synced = true;
  SLUICE_LOG(kInfo) << "BMP station " << config_.address.ToString() << " port " << config_.port
                    << ": synchronised (generation " << generation << ")";
  backoff_s_ = config_.initial_backoff_s;
  KickLocked();
}

size_t Station::queued_bytes() const {
  std::lock_guard lock(mu_);
  return out_.size() + held_.size();
}

size_t Station::unsent_bytes() const {
  std::lock_guard lock(mu_);
  return out_.size();
}

StationStats Station::stats() const {
  std::lock_guard lock(mu_);
  StationStats s = stats_;
  s.queued_bytes = out_.size() + held_.size();
  return s;
}

void Station::Write() {
  {
    std::lock_guard lock(mu_);
    write_posted_ = false;
    if (writing_now_ || out_.empty() || state_ == State::kDisconnected) return;
    writing_.Splice(out_);
    writing_now_ = true;
  }
  iov_ = writing_.Buffers();
  asio::async_write(socket_, iov_, [self = shared_from_this()](const error_code& ec, size_t n) {
    self->OnWrite(ec, n);
  });
}

void Station::OnWrite(const error_code& ec, size_t n) {
  iov_.clear();
  bool more, now;
  {
    std::lock_guard lock(mu_);
    writing_now_ = false;
    stats_.bytes_sent += n;
    if (ec && state_ != State::kDisconnected) DisconnectLocked();
    if (state_ == State::kDisconnected) {
      writing_.Release();
    } else {
      out_.Recycle(writing_);  // the next appends reuse its chunks
    }
    more = !out_.empty() && state_ != State::kDisconnected;
    now = out_.size() >= kWriteNowBytes;
    write_posted_ = more;  // what follows writes it
  }
  if (ec) {
    error_code ignored;
    socket_.close(ignored);
    if (finishing_) {
      finished_ = true;
      return;
    }
    ScheduleReconnect();
    return;
  }
  if (more) {
    if (finishing_ || now) {
      Write();
    } else {
      WriteSoon();
    }
  } else if (finishing_) {
    error_code ignored;
    socket_.close(ignored);
    finished_ = true;
  }
}

void Station::Finish(std::vector<uint8_t> message, double grace_s) {
  asio::post(io_, [self = shared_from_this(), message = std::move(message), grace_s] {
    {
      // Last, after whatever is queued (a snapshot in progress is cut short).
      std::lock_guard lock(self->mu_);
      if (self->state_ != State::kDisconnected) {
        self->out_.Append(message);
        self->KickLocked(/*now=*/true);
      }
    }
    self->finishing_ = true;
    self->timer_.cancel();
    bool idle;
    {
      std::lock_guard lock(self->mu_);
      idle = self->out_.empty() && !self->writing_now_ && !self->write_posted_;
    }
    if (idle) {
      error_code ignored;
      self->socket_.close(ignored);
      self->finished_ = true;
      return;
    }
    self->timer_.expires_after(std::chrono::milliseconds(int64_t(grace_s * 1000)));
    self->timer_.async_wait([self](const error_code& ec) {
      if (ec) return;
      error_code ignored;
      self->socket_.close(ignored);
      self->finished_ = true;
    });
  });
}

}  // namespace sluice::bgp::bmp
