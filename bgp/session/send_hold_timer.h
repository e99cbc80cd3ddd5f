#pragma once
// SendHoldTimer: RFC 9687's guard against a peer that stops reading. While we have something to
// write and the peer takes none of it for the send hold time, the session is useless (our
// KEEPALIVEs cannot reach it, yet its own keep ours alive): the connection is torn down with
// Send Hold Timer Expired (error code 8). The timer runs only while data waits to be written,
// and restarts at every write that makes progress (RFC 9687 §3).
//
// Pure logic on SteadyTime, no clock or socket: Connection calls Waiting() when it starts a write,
// Progress() when one completes, and asks Expired() at deadline().

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>

namespace sluice::bgp {

class SendHoldTimer {
 public:
  using Clock = std::chrono::steady_clock;
  // RFC 9687 §3: the larger of 8 minutes and twice the hold time.
  static constexpr std::chrono::seconds kMinimum{480};
  static Clock::duration For(uint16_t hold_time_s) {
    return std::max<Clock::duration>(kMinimum, std::chrono::seconds(2 * uint32_t(hold_time_s)));
  }

  explicit SendHoldTimer(Clock::duration send_hold_time = kMinimum) : duration_(send_hold_time) {}

  // Zero or less disables the timer.
  void set_duration(Clock::duration d) { duration_ = d; }
  Clock::duration duration() const { return duration_; }

  // A write starts (data waits for the peer): starts the timer unless it already runs.
  void Waiting(Clock::time_point now) {
    if (!since_) since_ = now;
  }
  // A write completed: progress. The timer restarts if more waits, else stops.
  void Progress(Clock::time_point now, bool more_waiting) {
    since_ = more_waiting ? std::optional<Clock::time_point>(now) : std::nullopt;
  }
  // When the timer expires, if it runs.
  std::optional<Clock::time_point> deadline() const {
    if (!since_ || duration_ <= Clock::duration::zero()) return std::nullopt;
    return *since_ + duration_;
  }
  bool Expired(Clock::time_point now) const {
    const auto d = deadline();
    return d && now >= *d;
  }

 private:
  Clock::duration duration_;
  std::optional<Clock::time_point> since_;  // when the peer last took data, while data waits
};

}  // namespace sluice::bgp
