// ReplaySession's restarts: tearing a connection down, opening it again, and the graceful
// restart helper's stale routes (RFC 4724 §4.2, RFC 8538 §4).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "bgp/replay/replay_session.h"

namespace sluice::bgp::replay {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

Capabilities ReplaySession::LocalCapabilities() const {
  Capabilities caps;
  for (int i = 0; i < AfiSafi::kCount; ++i) {
    if (options_.families.Has(AfiSafi::FromIndex(i))) {
      caps.multiprotocol.push_back(AfiSafi::FromIndex(i));
    }
  }
  caps.route_refresh = true;
  caps.extended_message = options_.extended_messages;
  if (options_.graceful_restart) {
    GracefulRestart gr;
    // RFC 4724 §3: R in the OPENs of a speaker that is coming back; here, after a reconnect.
    gr.restart_state = options_.reconnect && stats_.connections > 0;
    gr.notification = true;  // RFC 8538: Hard Reset for a deliberate end
    gr.restart_time = std::min(*options_.graceful_restart, kGrMaxRestartTime);
    const bool sends = table_.prefixes() > 0;  // F: what we send survives our restarts
    for (const AfiSafi& f : caps.multiprotocol) gr.families.push_back({f, sends});
    caps.graceful_restart = gr;
  }
  return caps;
}

Notification ReplaySession::StopNotification() const {
  // RFC 4486 §4: Administrative Shutdown; RFC 8538 §3: wrapped in a Hard Reset when both sides
  // set N, so that the peer does not keep our routes.
  const uint8_t cease_code = uint8_t(ErrorCode::kCease);
  const auto& peer_gr = negotiated_.peer_graceful_restart;
  if (options_.graceful_restart && had_open_ && peer_gr && peer_gr->notification) {
    return Notification{
        cease_code, cease::kHardReset, {cease_code, cease::kAdministrativeShutdown}};
  }
  return Notification{cease_code, cease::kAdministrativeShutdown, {}};
}

void ReplaySession::DropConnection() {
  if (state_ == State::kDone || state_ == State::kIdle || state_ == State::kConnect ||
      state_ == State::kClosing) {
    return;
  }
  drop_ = Drop::kTransport;
  drop_reason_ = "connection dropped without NOTIFICATION";
  Close();
}

void ReplaySession::TearDown() {
  ++generation_;
  boost::system::error_code ec;
  hold_timer_.cancel();
  keepalive_timer_.cancel();
  pace_timer_.cancel();
  misc_timer_.cancel();
  if (socket_.is_open()) {
    socket_.shutdown(tcp::socket::shutdown_both, ec);
    socket_.close(ec);
  }
}

AfiSafiSet ReplaySession::RetainedFamilies() const {
  const auto& peer_gr = negotiated_.peer_graceful_restart;
  if (!options_.graceful_restart || !options_.track_held || !had_open_ || !peer_gr) return {};
  // RFC 8538 §4: a Hard Reset ends graceful restart; another NOTIFICATION only when the peer
  // set N too (we always do).
  if (drop_ == Drop::kHardReset) return {};
  if (drop_ == Drop::kNotification && !peer_gr->notification) return {};
  AfiSafiSet families;
  for (const GracefulRestart::Family& f : peer_gr->families) {
    if (params_.families.Has(f.family)) families.Add(f.family);
  }
  return families;
}

bool ReplaySession::AfterDrop() {
  const AfiSafiSet retained = RetainedFamilies();
  if (!options_.reconnect && retained.empty()) return false;
  if (options_.track_held && had_open_) {
    if (retained.empty()) {
      stats_.flushed += held_.Clear();
    } else {
      const uint64_t stale_before = held_.stale();
      stats_.flushed += held_.MarkStale(retained);
      stats_.stale_kept += held_.stale() - stale_before;
      // RFC 4724 §4.2: the peer's restart time to come back, else its routes go.
      restart_timer_.expires_after(
          std::chrono::seconds(negotiated_.peer_graceful_restart->restart_time));
      restart_timer_.async_wait([this](const boost::system::error_code& ec) {
        if (!ec && state_ != State::kDone && !had_open_) OnRestartTimer();
      });
    }
    HeldChanged();
  }
  ++stats_.drops;
  stats_.last_drop = drop_reason_.empty() ? "connection closed" : drop_reason_;
  SLUICE_LOG(kInfo) << options_.name << ": " << stats_.last_drop << "; "
                    << (passive_ ? "waiting for the peer" : "reconnecting")
                    << (retained.empty() ? "" : ", its routes kept as stale");
  ResetConnection();
  if (passive_) {
    SetState(State::kIdle);
  } else {
    ScheduleReconnect();
  }
  return true;
}

void ReplaySession::ResetConnection() {
  socket_ = tcp::socket(io_);
  framer_ = MessageFramer();
  decoder_.reset();
  eor_pending_ = AfiSafiSet();
  stream_ = nullptr;
  written_ = 0;
  mark_ = 0;
  writing_ = false;
  small_.clear();
  in_flight_small_.clear();
  streams_done_ = false;
  lingering_ = false;
  withdraw_requested_ = false;
  awaiting_withdraw_ = false;
  extra_.clear();
  extra_next_ = 0;
  extra_asked_ = 0;
  table_written_ = false;
  had_open_ = false;
  hold_time_ = 0;
  drop_ = Drop::kTransport;
  drop_reason_.clear();
  stats_.end_of_rib_received = false;
}

void ReplaySession::ScheduleReconnect() {
  backoff_ = backoff_ == 0 ? 0.2 : std::min(2.0, backoff_ * 2);
  SetState(State::kConnect);
  misc_timer_.expires_after(
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(backoff_)));
  misc_timer_.async_wait([this, gen = generation_](const boost::system::error_code& ec) {
    if (!ec && gen == generation_ && state_ == State::kConnect) TryConnect();
  });
}

void ReplaySession::OnRestartTimer() {
  stats_.stale_swept += held_.Sweep(AfiSafiSet::All());
  HeldChanged();
}

void ReplaySession::SweepOnOpen(const OpenMessage& open) {
  restart_timer_.cancel();  // the peer is back within its restart time
  if (!options_.track_held || held_.stale() == 0) return;
  // RFC 4724 §4.2: families the new OPEN does not list with F set lose their stale routes now.
  AfiSafiSet gone = AfiSafiSet::All();
  if (open.capabilities.graceful_restart) {
    for (const GracefulRestart::Family& f : open.capabilities.graceful_restart->families) {
      if (f.forwarding_preserved) gone.Remove(f.family);
    }
  }
  stats_.stale_swept += held_.Sweep(gone);
  HeldChanged();
}

void ReplaySession::SweepOnEndOfRib(AfiSafi family) {
  if (!options_.track_held || held_.stale() == 0) return;
  AfiSafiSet f;
  f.Add(family);
  stats_.stale_swept += held_.Sweep(f);
  HeldChanged();
}

void ReplaySession::HeldChanged() {
  stats_.prefixes_stale = held_.stale();
  if (held_.size() == stats_.prefixes_held) return;
  stats_.prefixes_held = held_.size();
  stats_.held_changed_mono = MonotonicSeconds();
  if (on_held_change) on_held_change(this);
}

}  // namespace sluice::bgp::replay
