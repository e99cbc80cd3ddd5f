#pragma once
// LogLimiter: at most one log line per interval for a stream of like events — one peer's
// malformed UPDATEs (RFC 7606 actions) — so that a flood of them costs one line per interval,
// not one per UPDATE. The first event logs at once; the events held back meanwhile are counted
// and the next line written says how many there were. (The peer's counters have every event.)

#include <chrono>
#include <cstdint>
#include <optional>

namespace sluice::bgp {

class LogLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  explicit LogLimiter(Clock::duration interval) : interval_(interval) {}

  // True when a line may be written for an event at `now`; `*held_back` is then the number of
  // events since the last line that wrote none. False: the event is counted for the next line.
  bool Allow(Clock::time_point now, uint64_t* held_back);

 private:
  Clock::duration interval_;
  std::optional<Clock::time_point> last_;
  uint64_t held_back_ = 0;
};

}  // namespace sluice::bgp
