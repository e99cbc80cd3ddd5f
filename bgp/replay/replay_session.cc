#include "bgp/replay/replay_session.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/log.h"

namespace sluice::bgp::replay {

double MonotonicSeconds() {
  // steady_clock is CLOCK_MONOTONIC with libstdc++ on Linux.
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// Bulk writes stop at UPDATE boundaries at most this far apart, so that a KEEPALIVE never waits
// long behind them.
constexpr size_t kChunk = 256 * 1024;
// RFC 4271 §8.2.2: a large hold time while waiting for the OPEN.
constexpr int kOpenHoldSeconds = 240;

}  // namespace

ReplaySession::ReplaySession(asio::io_context& io, SessionOptions options, Encoder encoder)
    : io_(io),
      options_(std::move(options)),
      encoder_(std::move(encoder)),
      socket_(io),
      hold_timer_(io),
      keepalive_timer_(io),
      pace_timer_(io),
      misc_timer_(io),
      restart_timer_(io) {
  assumed_ = OfferedParams();
  encoder_(assumed_, &table_, &withdraw_);
  stats_.skipped = table_.skipped;
}

SessionParams ReplaySession::OfferedParams() const {
  SessionParams p;
  p.four_octet_as = true;
  p.extended_message = options_.extended_messages;
  p.families = options_.families;
  p.external = true;
  return p;
}

void ReplaySession::SetState(State s) {
  state_ = s;
  static constexpr const char* kNames[] = {"Idle",        "Connect", "OpenSent", "OpenConfirm",
                                           "Established", "Closing", "Done"};
  stats_.state = kNames[int(s)];
}

double ReplaySession::Since(Clock::time_point t) const {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

void ReplaySession::Connect() {
  SetState(State::kConnect);
  connect_started_ = Clock::now();
  TryConnect();
}

void ReplaySession::TryConnect() {
  boost::system::error_code ec;
  if (socket_.is_open()) socket_.close(ec);
  socket_.open(options_.remote.protocol(), ec);
  if (!ec && options_.local) {
    socket_.set_option(asio::socket_base::reuse_address(true), ec);
    socket_.bind(tcp::endpoint(*options_.local, 0), ec);
  }
  if (ec) return Fail(absl::StrCat("cannot open a socket: ", ec.message()));
  socket_.async_connect(options_.remote,
                        [this, gen = generation_](const boost::system::error_code& ec) {
                          if (gen != generation_ || state_ != State::kConnect) return;
                          if (!ec) return OnConnected();
                          // After a drop, attempts go on (with back-off) until stopped.
                          const bool again = stats_.connections > 0;
                          if (!again && Since(connect_started_) >= options_.connect_timeout) {
                            stopping_ = true;
                            return Fail(absl::StrFormat("cannot connect to %s:%d: %s",
                                                        options_.remote.address().to_string(),
                                                        options_.remote.port(), ec.message()));
                          }
                          if (again) return ScheduleReconnect();
                          misc_timer_.expires_after(std::chrono::milliseconds(500));
                          misc_timer_.async_wait([this, gen](const boost::system::error_code& ec) {
                            if (!ec && gen == generation_ && state_ == State::kConnect)
                              TryConnect();
                          });
                        });
}

void ReplaySession::Accept(tcp::socket socket) {
  passive_ = true;
  socket_ = std::move(socket);
  OnConnected();
}

void ReplaySession::OnConnected() {
  boost::system::error_code ec;
  socket_.set_option(tcp::no_delay(true), ec);
  SetState(State::kOpenSent);
  const OpenMessage open = OpenMessage::Make(options_.local_as, options_.hold_time,
                                             options_.router_id, LocalCapabilities());
  std::vector<uint8_t> wire;
  absl::Status st = AppendOpen(open, &wire);
  if (!st.ok()) {
    stopping_ = true;  // the same OPEN would fail again
    return Fail(std::string(st.message()));
  }
  SendSmall(std::move(wire));
  hold_time_ = kOpenHoldSeconds;
  ArmHoldTimer();
  StartReading();
}

void ReplaySession::StartReading() {
  std::span<uint8_t> buf = framer_.Prepare(64 * 1024);
  socket_.async_read_some(
      asio::buffer(buf.data(), buf.size()),
      [this, gen = generation_](const boost::system::error_code& ec, size_t n) {
        if (gen != generation_ || state_ == State::kDone) return;
        if (ec) {
          if (state_ != State::kClosing) {
            Fail(absl::StrCat("connection closed: ", ec.message()));
          } else {
            Close();
          }
          return;
        }
        framer_.Commit(n);
        Bytes message;
        Notification error;
        MessageFramer::Result r;
        while (gen == generation_ && state_ != State::kDone &&
               (r = framer_.Next(&message, &error)) == MessageFramer::Result::kMessage) {
          OnMessage(message);
        }
        if (gen != generation_ || state_ == State::kDone) return;
        if (r == MessageFramer::Result::kError) {
          return Fail(absl::StrCat("bad message header from the peer: ", error.ToString()), error);
        }
        StartReading();
      });
}

void ReplaySession::OnMessage(Bytes message) {
  if (hold_time_ > 0) ArmHoldTimer();
  const Notification fsm_error{uint8_t(ErrorCode::kFsm), 0, {}};
  switch (MessageType(message[18])) {
    case MessageType::kOpen:
      if (state_ != State::kOpenSent) return Fail("unexpected OPEN", fsm_error);
      return OnOpen(message);
    case MessageType::kKeepalive:
      if (state_ == State::kOpenConfirm) OnEstablished();
      return;
    case MessageType::kUpdate:
      if (state_ == State::kEstablished || state_ == State::kClosing) return OnUpdate(message);
      return Fail("UPDATE before the session was established", fsm_error);
    case MessageType::kNotification: {
      Notification n;
      (void)DecodeNotification(message, &n);
      stats_.notification_received = n;
      const bool cease = n.code == uint8_t(ErrorCode::kCease);
      drop_ = cease && n.subcode == cease::kHardReset ? Drop::kHardReset : Drop::kNotification;
      // A Cease once everything is sent, or crossing ours, is the peer ending the session, not
      // a failure.
      if (!((streams_done_ || stopping_) && cease)) {
        drop_reason_ = absl::StrCat("the peer sent NOTIFICATION ", n.ToString());
      }
      return Close();
    }
    case MessageType::kRouteRefresh:
      return;  // the whole table is being sent anyway
  }
}

void ReplaySession::OnOpen(Bytes message) {
  OpenMessage open;
  Notification error;
  absl::Status st = DecodeOpen(message, &open, &error);
  if (!st.ok()) return Fail(absl::StrCat("bad OPEN from the peer: ", st.message()), error);
  if (options_.peer_as != 0 && open.AsNumber() != options_.peer_as) {
    uint8_t as[2];
    StoreU16(as, open.my_as);
    return Fail(
        absl::StrFormat("the peer is AS%d, AS%d expected", open.AsNumber(), options_.peer_as),
        Notification{uint8_t(ErrorCode::kOpenMessage), open_error::kBadPeerAs, {as[0], as[1]}});
  }
  stats_.negotiated = open.ToString();
  const OpenMessage mine = OpenMessage::Make(options_.local_as, options_.hold_time,
                                             options_.router_id, LocalCapabilities());
  negotiated_ = Negotiate(mine, open, open.AsNumber() != options_.local_as);
  had_open_ = true;
  SweepOnOpen(open);
  params_ = negotiated_.params;
  hold_time_ = negotiated_.hold_time;
  framer_.set_max_message_size(params_.max_message_size());
  decoder_ = std::make_unique<UpdateDecoder>(params_, &store_);
  eor_pending_ = AfiSafiSet();
  for (int i = 0; i < AfiSafi::kCount; ++i) {
    const AfiSafi f = AfiSafi::FromIndex(i);
    if (params_.families.Has(f) && f.safi == Safi::kUnicast) eor_pending_.Add(f);
  }
  std::vector<uint8_t> keepalive;
  AppendKeepalive(&keepalive);
  SendSmall(std::move(keepalive));
  SetState(State::kOpenConfirm);
  if (hold_time_ > 0) {
    ArmHoldTimer();
  } else {
    hold_timer_.cancel();
  }
}

void ReplaySession::OnEstablished() {
  SetState(State::kEstablished);
  established_at_ = Clock::now();
  backoff_ = 0;
  const bool differ = params_.four_octet_as != assumed_.four_octet_as ||
                      params_.families != assumed_.families ||
                      params_.add_path_send != assumed_.add_path_send ||
                      params_.extended_message != assumed_.extended_message;
  if (stats_.connections > 0 && reconnect_encoder_) {
    table_ = EncodedStream();
    withdraw_ = EncodedStream();
    reconnect_encoder_(params_, &table_, &withdraw_);
    stats_.skipped = table_.skipped;
  } else if (differ) {
    SLUICE_LOG(kInfo) << options_.name << ": re-encoding for the negotiated parameters";
    table_ = EncodedStream();
    withdraw_ = EncodedStream();
    encoder_(params_, &table_, &withdraw_);
    stats_.skipped = table_.skipped;
  }
  ++stats_.connections;
  if (extra_encoder_) extra_ = extra_encoder_(params_);
  stream_ = &table_;
  written_ = 0;
  mark_ = 0;
  ArmKeepalive();
  Pump();
}

void ReplaySession::OnUpdate(Bytes message) {
  decoder_->Decode(message, &update_);
  if (update_.errors.session_reset) {
    return Fail(absl::StrCat("bad UPDATE from the peer: ", update_.errors.reason),
                update_.errors.notification);
  }
  ++stats_.updates_received;
  const double now = Since(established_at_);
  if (stats_.first_update_received < 0) stats_.first_update_received = now;
  stats_.last_update_received = now;
  stats_.prefixes_received += update_.announced.size();
  stats_.withdrawals_received += update_.withdrawn.size();
  if (options_.track_held && (!update_.announced.empty() || !update_.withdrawn.empty())) {
    for (const Nlri& n : update_.withdrawn) held_.Withdraw(n.prefix);
    for (const Nlri& n : update_.announced) held_.Announce(n.prefix);
    HeldChanged();
  }
  if (update_.end_of_rib) {
    SweepOnEndOfRib(*update_.end_of_rib);
    eor_pending_.Remove(*update_.end_of_rib);
    if (eor_pending_.empty()) {
      stats_.end_of_rib_received = true;
      MaybeFinish();
    }
  }
}

void ReplaySession::SendSmall(std::vector<uint8_t> message) {
  small_.push_back(std::move(message));
  Pump();
}

void ReplaySession::Pump() {
  if (writing_ || state_ == State::kDone || !socket_.is_open()) return;
  if (!small_.empty()) {
    in_flight_small_ = std::move(small_.front());
    small_.pop_front();
    writing_ = true;
    asio::async_write(socket_, asio::buffer(in_flight_small_),
                      [this, gen = generation_](const boost::system::error_code& ec, size_t) {
                        if (gen != generation_) return;
                        writing_ = false;
                        if (state_ == State::kDone) return;
                        if (ec) return Fail(absl::StrCat("write failed: ", ec.message()));
                        if (state_ == State::kClosing && small_.empty()) return Close();
                        Pump();
                      });
    return;
  }
  if (state_ != State::kEstablished || stream_ == nullptr) return;
  const auto& marks = stream_->marks;
  if (written_ == stream_->bytes.size()) {
    // This stream is written.
    EncodedStream* done = stream_;
    stream_ = nullptr;
    stats_.messages_sent += done->messages;
    const bool flapping = options_.flap_every > 0 && !withdraw_.bytes.empty();
    if (done == &table_) {
      if (stats_.flaps == 0) stats_.table_seconds = Since(established_at_);
      if (!table_written_) {
        table_written_ = true;
        QueueExtra();
        if (!small_.empty()) asio::post(io_, [this] { Pump(); });
      }
      if (on_stream) on_stream(this, "table_sent");
      if (flapping && (options_.flaps == 0 || stats_.flaps < options_.flaps)) {
        return StreamAfter(&withdraw_, options_.flap_every / 2);
      }
      if (!flapping && options_.withdraw_after >= 0 && !withdraw_.bytes.empty()) {
        if (withdraw_requested_) {
          StartWithdrawStream();
          return;
        }
        awaiting_withdraw_ = true;
        misc_timer_.expires_after(std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(options_.withdraw_after)));
        misc_timer_.async_wait([this, gen = generation_](const boost::system::error_code& ec) {
          if (ec || gen != generation_ || state_ != State::kEstablished) return;
          StartWithdrawStream();
        });
        return;
      }
    } else {
      stats_.withdraw_seconds = Since(withdraw_started_);
      if (flapping) {
        ++stats_.flaps;
        return StreamAfter(&table_, options_.flap_every / 2);  // announce everything again
      }
    }
    return AfterStreams();
  }
  // How far may we write: whole marks (UPDATE boundaries), those due when pacing.
  size_t end = written_;
  size_t m = mark_;
  const double elapsed_us = Since(established_at_) * 1e6;
  const uint64_t first_us = marks.empty() ? 0 : marks.front().time_us;
  while (m < marks.size()) {
    if (options_.pace && stream_ == &table_ &&
        double(marks[m].time_us - first_us) / *options_.pace > elapsed_us) {
      break;
    }
    if (end > written_ && marks[m].end - written_ > kChunk) break;
    end = marks[m].end;
    ++m;
  }
  if (end == written_) {
    // Nothing due yet: wait for the next mark's time.
    const double wait_us = double(marks[mark_].time_us - first_us) / *options_.pace - elapsed_us;
    pace_timer_.expires_after(std::chrono::microseconds(int64_t(wait_us) + 1));
    pace_timer_.async_wait([this, gen = generation_](const boost::system::error_code& ec) {
      if (!ec && gen == generation_) Pump();
    });
    return;
  }
  if (stream_ == &table_ && written_ == 0 && stats_.table_started_mono < 0) {
    stats_.table_started_mono = MonotonicSeconds();
    if (on_stream) on_stream(this, "table_start");
  }
  writing_ = true;
  asio::async_write(socket_, asio::buffer(stream_->bytes.data() + written_, end - written_),
                    [this, end, gen = generation_](const boost::system::error_code& ec, size_t) {
                      if (gen != generation_) return;
                      writing_ = false;
                      if (state_ == State::kDone || stream_ == nullptr) return;
                      if (ec) return Fail(absl::StrCat("write failed: ", ec.message()));
                      written_ = end;
                      const auto& marks = stream_->marks;
                      while (mark_ < marks.size() && marks[mark_].end <= written_) {
                        if (stream_ == &table_) {
                          stats_.prefixes_sent = marks[mark_].prefixes;
                          stats_.withdrawals_sent = marks[mark_].withdrawals;
                        } else {
                          stats_.withdrawals_sent = table_.withdrawals() + marks[mark_].withdrawals;
                        }
                        ++mark_;
                      }
                      Pump();
                    });
}

void ReplaySession::StreamAfter(EncodedStream* stream, double seconds) {
  misc_timer_.expires_after(
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds)));
  misc_timer_.async_wait([this, stream, gen = generation_](const boost::system::error_code& ec) {
    if (ec || gen != generation_ || state_ != State::kEstablished) return;
    stream_ = stream;
    written_ = 0;
    mark_ = 0;
    if (stream == &withdraw_) withdraw_started_ = Clock::now();
    Pump();
  });
}

void ReplaySession::StartWithdrawStream() {
  awaiting_withdraw_ = false;
  stream_ = &withdraw_;
  written_ = 0;
  mark_ = 0;
  withdraw_started_ = Clock::now();
  stats_.withdraw_started_mono = MonotonicSeconds();
  if (on_stream) on_stream(this, "withdraw_start");
  Pump();
}

void ReplaySession::WithdrawNow() {
  if (options_.withdraw_after < 0 || state_ != State::kEstablished) return;
  if (awaiting_withdraw_) {
    misc_timer_.cancel();  // its handler sees operation_aborted
    StartWithdrawStream();
  } else if (stream_ == &table_ || stream_ == nullptr) {
    withdraw_requested_ = true;
  }
}

bool ReplaySession::AnnounceNext() {
  if (state_ != State::kEstablished || extra_asked_ >= extra_.size()) return false;
  ++extra_asked_;
  ++stats_.extra_sent;
  if (table_written_) {
    QueueExtra();
    Pump();
  }
  return true;
}

void ReplaySession::QueueExtra() {
  while (extra_next_ < extra_asked_) small_.push_back(extra_[extra_next_++]);
}

void ReplaySession::AfterStreams() {
  streams_done_ = true;
  if (on_sent) on_sent(this);
  MaybeFinish();
}

void ReplaySession::MaybeFinish() {
  if (!streams_done_ || state_ != State::kEstablished || lingering_) return;
  if (options_.wait_eor && !eor_pending_.empty()) return;
  if (options_.linger != 0) {
    lingering_ = true;
    if (options_.linger > 0) {
      misc_timer_.expires_after(std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(options_.linger)));
      misc_timer_.async_wait([this, gen = generation_](const boost::system::error_code& ec) {
        if (!ec && gen == generation_) Stop("done");
      });
    }
    return;
  }
  Stop("done");
}

void ReplaySession::Stop(const std::string& why) {
  if (state_ == State::kDone) return;
  stopping_ = true;
  if (state_ == State::kClosing) return;
  if (state_ == State::kIdle || state_ == State::kConnect) {
    if (why != "done" && stats_.error.empty()) stats_.error = why;
    return Close();
  }
  const Notification n = StopNotification();
  stats_.notification_sent = n;
  std::vector<uint8_t> wire;
  AppendNotification(n, &wire);
  SetState(State::kClosing);
  small_.clear();
  SendSmall(std::move(wire));
  misc_timer_.expires_after(std::chrono::seconds(2));  // do not wait forever on a stuck peer
  misc_timer_.async_wait([this, gen = generation_](const boost::system::error_code& ec) {
    if (!ec && gen == generation_ && state_ != State::kDone) Close();
  });
}

void ReplaySession::Fail(const std::string& error, std::optional<Notification> notify) {
  if (state_ == State::kDone) return;
  if (drop_reason_.empty()) drop_reason_ = error;
  SLUICE_LOG(kWarning) << options_.name << ": " << error;
  if (notify && socket_.is_open() && state_ != State::kClosing && state_ != State::kConnect) {
    drop_ = Drop::kNotification;
    stats_.notification_sent = *notify;
    std::vector<uint8_t> wire;
    AppendNotification(*notify, &wire);
    SetState(State::kClosing);
    small_.clear();
    SendSmall(std::move(wire));
    misc_timer_.expires_after(std::chrono::seconds(2));
    misc_timer_.async_wait([this, gen = generation_](const boost::system::error_code& ec) {
      if (!ec && gen == generation_ && state_ != State::kDone) Close();
    });
    return;
  }
  Close();
}

void ReplaySession::Close() {
  if (state_ == State::kDone) return;
  TearDown();
  if (!stopping_ && AfterDrop()) return;
  if (stats_.error.empty()) stats_.error = drop_reason_;
  restart_timer_.cancel();
  SetState(State::kDone);
  done_ = true;
  asio::post(io_, [this] {
    if (on_done) on_done(this);
  });
}

void ReplaySession::ArmHoldTimer() {
  hold_timer_.expires_after(std::chrono::seconds(hold_time_));
  hold_timer_.async_wait([this, gen = generation_](const boost::system::error_code& ec) {
    if (ec || gen != generation_ || state_ == State::kDone) return;
    Fail(absl::StrFormat("hold timer expired (%d s without a message)", hold_time_),
         Notification{uint8_t(ErrorCode::kHoldTimerExpired), 0, {}});
  });
}

void ReplaySession::ArmKeepalive() {
  if (negotiated_.keepalive_time == 0) return;
  keepalive_timer_.expires_after(std::chrono::seconds(negotiated_.keepalive_time));
  keepalive_timer_.async_wait([this, gen = generation_](const boost::system::error_code& ec) {
    if (ec || gen != generation_ || state_ != State::kEstablished) return;
    std::vector<uint8_t> keepalive;
    AppendKeepalive(&keepalive);
    SendSmall(std::move(keepalive));
    ArmKeepalive();
  });
}

}  // namespace sluice::bgp::replay
