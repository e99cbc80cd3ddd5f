#include "bgp/session/log_limiter.h"

namespace sluice::bgp {

bool LogLimiter::Allow(Clock::time_point now, uint64_t* held_back) {
  if (last_ && now - *last_ < interval_) {
    ++held_back_;
    return false;
  }
  last_ = now;
  *held_back = held_back_;
  held_back_ = 0;
  return true;
}

}  // namespace sluice::bgp
