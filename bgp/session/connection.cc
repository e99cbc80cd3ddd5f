#include "bgp/session/connection.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/log.h"
#include "bgp/session/handler_fault.h"
#include "bgp/session/socket_options.h"
#include "bgp/wire/constants.h"

namespace sluice::bgp {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// Applies GTSM to a socket of `family`: TTL 255 out, at least 256 - hops in.
absl::Status ApplyGtsm(int fd, net::Family family, int hops) {
  if (hops <= 0) return absl::OkStatus();
  absl::Status st = SetOutgoingTtl(fd, family, 255);
  if (!st.ok()) return st;
  return SetMinimumTtl(fd, family, 256 - hops);
}

}  // namespace

asio::ip::address ToAsio(const net::IPAddress& address) {
  if (address.is_v4()) return asio::ip::address_v4(address.v4().value());
  asio::ip::address_v6::bytes_type bytes;
  address.v6().ToBytes(bytes.data());
  return asio::ip::address_v6(bytes);
}

net::IPAddress FromAsio(const asio::ip::address& address) {
  if (address.is_v4()) return net::IPv4Address(address.to_v4().to_uint());
  const auto v6 = address.to_v6();
  if (v6.is_v4_mapped()) {
    return net::IPv4Address(asio::ip::make_address_v4(asio::ip::v4_mapped, v6).to_uint());
  }
  const auto bytes = v6.to_bytes();
  return net::IPv6Address::FromBytes(bytes.data());
}

Connection::Connection(asio::io_context& io, ConnectionOwner* owner)
    : socket_(io), linger_timer_(io), send_hold_timer_(io), owner_(owner) {}

Connection::~Connection() {
  boost::system::error_code ec;
  socket_.close(ec);
}

template <typename Body>
void Connection::Guarded(Body&& body) {
  if (std::optional<HandlerFault> fault = CatchFault(body)) {
    SLUICE_LOG(kError) << "BGP connection to " << remote_.address().to_string() << ": "
                       << fault->ToString();
    Fail(fault->ToString());
  }
}

std::shared_ptr<Connection> Connection::Connect(asio::io_context& io, ConnectionOwner* owner,
                                                const tcp::endpoint& remote,
                                                const ConnectionOptions& options) {
  auto c = std::make_shared<Connection>(io, owner);
  if (options.send_hold_time) {
    c->send_hold_.set_duration(*options.send_hold_time);
    c->send_hold_chosen_ = true;
  }
  c->StartConnect(remote, options);
  return c;
}

std::shared_ptr<Connection> Connection::Accepted(asio::io_context& io, ConnectionOwner* owner,
                                                 tcp::socket socket,
                                                 const ConnectionOptions& options) {
  auto c = std::make_shared<Connection>(io, owner);
  if (options.send_hold_time) {
    c->send_hold_.set_duration(*options.send_hold_time);
    c->send_hold_chosen_ = true;
  }
  c->socket_ = std::move(socket);
  // The error_code overloads throughout: a connection the peer already reset (or a socket that
  // is not open) is a failed connection, not an exception.
  boost::system::error_code ec;
  const tcp::endpoint local = c->socket_.local_endpoint(ec);
  if (!ec && options.gtsm_hops > 0) {
    const net::Family family = local.address().is_v4() ? net::Family::kIPv4 : net::Family::kIPv6;
    absl::Status st = ApplyGtsm(c->socket_.native_handle(), family, options.gtsm_hops);
    if (!st.ok()) {
      SLUICE_LOG(kWarning) << "GTSM on an accepted connection: " << st.message();
    }
  }
  if (!ec && options.multihop_ttl > 0) {
    const net::Family family = local.address().is_v4() ? net::Family::kIPv4 : net::Family::kIPv6;
    absl::Status st = SetOutgoingTtl(c->socket_.native_handle(), family, options.multihop_ttl);
    if (!st.ok()) {
      SLUICE_LOG(kWarning) << "multihop TTL on an accepted connection: " << st.message();
    }
  }
  if (ec) {
    // Reported asynchronously like every other failure: callers never hear back from inside.
    asio::post(c->socket_.get_executor(), [c, reason = ec.message()] { c->Fail(reason); });
    return c;
  }
  c->OnSocketReady();
  return c;
}

void Connection::StartConnect(const tcp::endpoint& remote, const ConnectionOptions& options) {
  remote_ = remote;
  boost::system::error_code ec;
  socket_.open(remote.protocol(), ec);
  absl::Status st;
  const net::Family family = remote.address().is_v4() ? net::Family::kIPv4 : net::Family::kIPv6;
  if (!ec && !options.md5_password.empty()) {
    st = SetTcpMd5Key(socket_.native_handle(), FromAsio(remote.address()), options.md5_password);
  }
  if (!ec && st.ok()) st = ApplyGtsm(socket_.native_handle(), family, options.gtsm_hops);
  if (!ec && st.ok() && options.multihop_ttl > 0) {
    st = SetOutgoingTtl(socket_.native_handle(), family, options.multihop_ttl);
  }
  if (!ec && st.ok() && options.local_address) {
    socket_.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) socket_.bind(tcp::endpoint(ToAsio(*options.local_address), 0), ec);
  }
  std::string error;
  if (ec) error = ec.message();
  if (!st.ok()) error = std::string(st.message());
  if (!error.empty()) {
    // Report asynchronously: callers never hear back from inside Connect().
    asio::post(socket_.get_executor(), [self = shared_from_this(), error] {
      if (self->owner_ && !self->closing_) self->owner_->OnConnectFailed(self.get(), error);
    });
    return;
  }
  socket_.async_connect(remote, [self = shared_from_this()](const boost::system::error_code& ec) {
    if (self->closing_) return;
    if (ec) {
      if (self->owner_) self->owner_->OnConnectFailed(self.get(), ec.message());
      return;
    }
    self->Guarded([&] {
      self->OnSocketReady();
      if (self->owner_ && !self->closing_) self->owner_->OnConnected(self.get());
    });
  });
}

void Connection::OnSocketReady() {
  boost::system::error_code ec;
  socket_.set_option(tcp::no_delay(true), ec);
  socket_.non_blocking(true, ec);  // ReadReady reads what the socket holds, never waits
  local_ = socket_.local_endpoint(ec);
  remote_ = socket_.remote_endpoint(ec);
  connected_ = !ec;
  StartRead();
  Pump();
}

// ---- reading ----

// Reading waits for the socket to be readable with no buffer, then reads what is there into the
// framer: a connection between reads holds only a partial message (MessageFramer::
// ShrinkToBuffered), not a read buffer each.
void Connection::StartRead() {
  if (reading_ || closing_) return;
  reading_ = true;
  socket_.async_wait(tcp::socket::wait_read,
                     [self = shared_from_this()](const boost::system::error_code& ec) {
                       self->reading_ = false;
                       if (self->closing_) {
                         if (self->finished_) return;
                         if (ec) return self->FinishClose();
                         return self->Drain();
                       }
                       if (ec) return self->Fail(ec.message());
                       self->Guarded([&] { self->ReadReady(); });
                     });
}

void Connection::ReadReady() {
  std::span<uint8_t> buf = framer_.Prepare(kReadSize);
  boost::system::error_code ec;
  const size_t n = socket_.read_some(asio::buffer(buf.data(), buf.size()), ec);
  if (ec == asio::error::would_block || ec == asio::error::try_again) {
    framer_.ShrinkToBuffered();
    return StartRead();
  }
  if (ec) {
    return Fail(ec == asio::error::eof ? "the peer closed the connection" : ec.message());
  }
  framer_.Commit(n);
  HandleSlice();
}

void Connection::HandleSlice() {
  const auto start = std::chrono::steady_clock::now();
  int handled = 0;
  Bytes message;
  Notification error;
  while (owner_ != nullptr && !closing_ && !paused_) {
    switch (framer_.Next(&message, &error)) {
      case MessageFramer::Result::kNeedMore:
        EndSlice(handled);
        framer_.ShrinkToBuffered();
        return StartRead();
      case MessageFramer::Result::kError:
        owner_->OnHeaderError(this, error);
        return;
      case MessageFramer::Result::kMessage:
        owner_->OnMessage(this, message);
        break;
    }
    if (++handled >= kSliceMessages || std::chrono::steady_clock::now() - start >= kSliceTime) {
      // Yield: timers and other peers run before the rest of what was read.
      EndSlice(handled);
      return PostSlice();
    }
  }
  EndSlice(handled);
}

void Connection::EndSlice(int handled) {
  if (handled > 0 && owner_ != nullptr) owner_->OnSliceEnd(this);
}

void Connection::PostSlice() {
  if (slice_posted_) return;
  slice_posted_ = true;
  asio::post(socket_.get_executor(), [self = shared_from_this()] {
    self->slice_posted_ = false;
    if (!self->closing_) self->Guarded([&] { self->HandleSlice(); });
  });
}

// Paused, nothing is handed on and nothing more is read; resumed, what waits in the framer goes
// first (HandleSlice reads again when it runs out). A read already under way completes into the
// framer either way.
void Connection::PauseReading(bool paused) {
  if (paused_ == paused) return;
  paused_ = paused;
  if (!paused_ && !closing_) PostSlice();
}

// ---- writing ----

void Connection::SendUrgent(std::vector<uint8_t> message) {
  if (finished_) return;
  urgent_.push_back(std::move(message));
  Pump();
}

void Connection::SendBulk(std::vector<uint8_t> messages) {
  if (closing_ || messages.empty()) return;
  // The owner bounds backlog() (octets); the queue should hold no more memory than that. An
  // encoder that grows its buffer by doubling hands over up to twice what it filled.
  if (messages.capacity() - messages.size() > messages.size() / 8) messages.shrink_to_fit();
  backlog_ += messages.size();
  bulk_.push_back(std::move(messages));
  Pump();
}

size_t Connection::ChunkEnd(const std::vector<uint8_t>& buffer, size_t offset, size_t room,
                            bool at_least_one) const {
  size_t end = offset;
  while (end < buffer.size()) {
    if (buffer.size() - end < size_t(kHeaderSize)) return buffer.size();
    const size_t length = LoadU16(buffer.data() + end + 16);
    if (length < size_t(kHeaderSize)) return buffer.size();  // not whole messages: write it all
    if ((end > offset || !at_least_one) && end + length - offset > room) break;
    end += length;
  }
  return std::min(end, buffer.size());
}

size_t Connection::GatherBulk() {
  gather_.clear();
  size_t length = 0;
  size_t offset = bulk_offset_;
  for (const std::vector<uint8_t>& buffer : bulk_) {
    if (gather_.size() == kMaxGather || length >= kWriteChunk) break;
    size_t end = buffer.size();
    if (end - offset > kWriteChunk - length) {
      end = ChunkEnd(buffer, offset, kWriteChunk - length, gather_.empty());
    }
    if (end == offset) break;
    gather_.emplace_back(buffer.data() + offset, end - offset);
    length += end - offset;
    offset = 0;
    if (end < buffer.size()) break;
  }
  bulk_in_flight_ = gather_.size();
  return length;
}

void Connection::ConsumeBulk(size_t length) {
  backlog_ -= length;
  while (length > 0) {
    const size_t left = bulk_.front().size() - bulk_offset_;
    if (length < left) {
      bulk_offset_ += length;
      return;
    }
    length -= left;
    bulk_.pop_front();
    bulk_offset_ = 0;
  }
}

void Connection::Pump() {
  // Not connected yet (an outgoing connection in progress): wait.
  if (writing_ || finished_ || !socket_.is_open() || !connected_) return;
  if (!urgent_.empty()) {
    urgent_in_flight_.clear();
    for (const auto& m : urgent_)
      urgent_in_flight_.insert(urgent_in_flight_.end(), m.begin(), m.end());
    urgent_.clear();
    writing_ = true;
    SendHoldWaiting();
    asio::async_write(socket_, asio::buffer(urgent_in_flight_),
                      [self = shared_from_this()](const boost::system::error_code& ec, size_t) {
                        self->writing_ = false;
                        if (ec) return self->Fail(absl::StrCat("write failed: ", ec.message()));
                        self->SendHoldProgress();
                        self->Guarded([&] { self->Pump(); });
                      });
    return;
  }
  if (closing_) return FinishClose();
  if (bulk_.empty()) return;
  const size_t length = GatherBulk();
  writing_ = true;
  SendHoldWaiting();
  asio::async_write(
      socket_, gather_,
      [self = shared_from_this(), length](const boost::system::error_code& ec, size_t) {
        self->writing_ = false;
        self->bulk_in_flight_ = 0;
        if (ec) return self->Fail(absl::StrCat("write failed: ", ec.message()));
        if (self->closing_) {  // the bulk queue was dropped meanwhile, but for what was written
          self->bulk_.clear();
          return self->Pump();
        }
        self->ConsumeBulk(length);
        self->SendHoldProgress();
        self->Guarded([&] {
          if (self->owner_ && self->backlog_ <= kLowWater) self->owner_->OnWritable(self.get());
          self->Pump();
        });
      });
}

// ---- send hold timer (RFC 9687) ----

void Connection::SendHoldWaiting() {
  send_hold_.Waiting(SendHoldTimer::Clock::now());
  ArmSendHold();
}

void Connection::SendHoldProgress() {
  send_hold_.Progress(SendHoldTimer::Clock::now(), !urgent_.empty() || !bulk_.empty());
}

// One wait at a time: when it ends before the (moved) deadline, it waits again.
void Connection::ArmSendHold() {
  const auto deadline = send_hold_.deadline();
  if (send_hold_armed_ || !deadline || closing_) return;
  send_hold_armed_ = true;
  send_hold_timer_.expires_at(*deadline);
  // A weak reference: an idle connection is not kept alive for minutes by its timer.
  send_hold_timer_.async_wait([weak = weak_from_this()](const boost::system::error_code& ec) {
    auto self = weak.lock();
    if (!self) return;
    self->send_hold_armed_ = false;
    if (ec || self->closing_) return;
    if (!self->send_hold_.Expired(SendHoldTimer::Clock::now())) return self->ArmSendHold();
    const double seconds = std::chrono::duration<double>(self->send_hold_.duration()).count();
    self->Fail(absl::StrFormat(
        "Send Hold Timer Expired (RFC 9687): the peer took nothing for %.1f s", seconds));
  });
}

// ---- closing ----

void Connection::Fail(const std::string& reason) {
  if (finished_) return;
  ConnectionOwner* owner = owner_;
  const bool was_closing = closing_;
  owner_ = nullptr;
  closing_ = true;
  finished_ = true;
  boost::system::error_code ec;
  linger_timer_.cancel();
  send_hold_timer_.cancel();
  socket_.close(ec);
  if (owner && !was_closing) owner->OnClosed(this, reason);
}

void Connection::Close() {
  if (closing_) return;
  owner_ = nullptr;
  closing_ = true;
  // The write in flight still reads its buffers: they go when it completes.
  bulk_.erase(bulk_.begin() + static_cast<std::ptrdiff_t>(bulk_in_flight_), bulk_.end());
  bulk_offset_ = 0;
  backlog_ = 0;
  linger_timer_.expires_after(kCloseLinger);
  linger_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (ec || self->finished_) return;
    self->finished_ = true;
    boost::system::error_code ignored;
    self->socket_.close(ignored);
  });
  if (!connected_) {
    finished_ = true;
    linger_timer_.cancel();
    boost::system::error_code ec;
    socket_.close(ec);
    return;
  }
  Pump();
}

// The NOTIFICATION is out: send FIN and read until the peer closes too (closing with unread data
// would send a RST, which can make the peer drop the NOTIFICATION unread).
void Connection::FinishClose() {
  if (finished_) return;
  boost::system::error_code ec;
  socket_.shutdown(tcp::socket::shutdown_send, ec);
  Drain();
}

void Connection::Drain() {
  if (finished_ || reading_) return;
  reading_ = true;
  // Its own buffer: messages the owner is still looking at stay valid in the framer.
  drain_buffer_.resize(4096);
  socket_.async_read_some(asio::buffer(drain_buffer_),
                          [self = shared_from_this()](const boost::system::error_code& ec, size_t) {
                            self->reading_ = false;
                            if (self->finished_) return;
                            if (ec) {
                              self->finished_ = true;
                              self->linger_timer_.cancel();
                              boost::system::error_code ignored;
                              self->socket_.close(ignored);
                              return;
                            }
                            self->Drain();
                          });
}

}  // namespace sluice::bgp
