// Rib: what happens to a protocol's routes when its component dies, restarts or stops
// (DESIGN.md § Restarts).
#include <boost/asio/post.hpp>
#include <memory>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "rib/rib.h"

namespace sluice::rib {

absl::Status Rib::ProtocolDied(std::string_view protocol) {
  RETURN_IF_ERROR(ValidateProtocolName(protocol));
  auto it = protocols_.find(std::string(protocol));
  if (it == protocols_.end()) return absl::OkStatus();  // it never added a route
  stale_timers_.erase(it->first);
  v4_->ProtocolDied(it->second.name);
  v6_->ProtocolDied(it->second.name);
  return absl::OkStatus();
}

absl::Status Rib::ProtocolStale(std::string_view protocol, std::chrono::seconds restart_time) {
  RETURN_IF_ERROR(ValidateProtocolName(protocol));
  auto it = protocols_.find(std::string(protocol));
  if (it == protocols_.end()) return absl::OkStatus();
  v4_->ProtocolStale(it->second.name);
  v6_->ProtocolStale(it->second.name);
  if (StaleRoutes(protocol) == 0) return absl::OkStatus();
  // A second death before the first restart time ended restarts the clock for all of them.
  auto& timer = stale_timers_[it->first];
  timer = std::make_unique<boost::asio::steady_timer>(plumber_.io(), restart_time);
  timer->async_wait([this, name = it->first](const boost::system::error_code& error) {
    if (error) return;
    size_t swept = SweepStale(name);
    SLUICE_LOG(kInfo) << "protocol " << name << ": restart time over; withdrawing " << swept
                      << " stale routes not re-sent";
  });
  return absl::OkStatus();
}

absl::StatusOr<size_t> Rib::EndOfRib(std::string_view protocol) {
  RETURN_IF_ERROR(ValidateProtocolName(protocol));
  size_t swept = SweepStale(std::string(protocol));
  SLUICE_LOG(kInfo) << "protocol " << protocol << ": end-of-RIB; withdrawing " << swept
                    << " stale routes not re-sent";
  if (options_.on_end_of_rib) options_.on_end_of_rib(protocol);
  return swept;
}

size_t Rib::StaleRoutes(std::string_view protocol) const {
  auto it = protocols_.find(std::string(protocol));
  if (it == protocols_.end()) return 0;
  return v4_->StaleCount(it->second.name) + v6_->StaleCount(it->second.name);
}

size_t Rib::SweepStale(const std::string& protocol) {
  auto timer = stale_timers_.find(protocol);
  if (timer != stale_timers_.end()) {
    // Erased from inside its own handler: destroy it after the handler returns.
    boost::asio::post(plumber_.io(), [t = std::move(timer->second)] {});
    stale_timers_.erase(timer);
  }
  auto it = protocols_.find(protocol);
  if (it == protocols_.end()) return 0;
  return v4_->SweepStale(it->second.name) + v6_->SweepStale(it->second.name);
}

}  // namespace sluice::rib
