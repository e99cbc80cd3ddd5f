#pragma once
// Backoff: how long to wait before repairing something that failed again — `first` seconds,
// doubling up to `max` while failures follow one another less than `calm` apart; a failure after
// a calm period waits `first` again. Not thread-safe.

#include <algorithm>
#include <chrono>

namespace sluice {

class Backoff {
 public:
  using Clock = std::chrono::steady_clock;

  Backoff(double first_s, double max_s, Clock::duration calm)
      : first_s_(first_s), max_s_(max_s), calm_(calm) {}

  // The wait, in seconds, for a failure at `now`.
  double Next(Clock::time_point now = Clock::now()) {
    const bool calm = last_s_ == 0 || now - last_failure_ > calm_;
    last_s_ = calm ? first_s_ : std::min(last_s_ * 2, max_s_);
    last_failure_ = now;
    return last_s_;
  }
  // The wait Next returned last (0 before the first failure).
  double last_s() const { return last_s_; }
  // Next() as a duration for timers.
  static Clock::duration Duration(double seconds) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  }

 private:
  double first_s_, max_s_;
  Clock::duration calm_;
  double last_s_ = 0;
  Clock::time_point last_failure_{};
};

}  // namespace sluice
