#include "bgp/stages/graceful_helper.h"

#include <algorithm>

#include "base/log.h"

namespace sluice::bgp {

namespace {
const char* FamilyName(int slot) { return slot == 0 ? "ipv4" : "ipv6"; }
}  // namespace

GracefulHelper::GracefulHelper(boost::asio::io_context& io, std::string name, Sweep sweep)
    : timer_(io), name_(std::move(name)), sweep_(std::move(sweep)) {}

GracefulHelper::~GracefulHelper() {
  alive_.reset();
  timer_.cancel();
}

void GracefulHelper::SessionDown(std::array<bool, 2> stale, double restart_time_s) {
  for (int slot = 0; slot < 2; ++slot) stale_[slot] = stale_[slot] || stale[slot];
  if (!helping()) return Clear();
  SLUICE_LOG(kInfo) << "peer " << name_ << ": graceful restart: its routes stay, stale ("
                    << (stale_[0] ? "ipv4 " : "") << (stale_[1] ? "ipv6 " : "")
                    << "), for its restart time of " << restart_time_s << " s";
  Arm(Phase::kRestart, restart_time_s);
}

void GracefulHelper::Established(const std::optional<GracefulRestart>& gr, AfiSafiSet negotiated) {
  if (!helping()) return;
  for (int slot = 0; slot < 2; ++slot) {
    if (!stale_[slot]) continue;
    const AfiSafi family = slot == 0 ? kIPv4Unicast : kIPv6Unicast;
    bool kept = false;
    if (gr && negotiated.Has(family)) {
      for (const GracefulRestart::Family& f : gr->families) {
        if (f.family == family) kept = f.forwarding_preserved;
      }
    }
    // RFC 4724 §4.2: F clear, family not listed, no capability.
    if (!kept) SweepSlot(slot, "back without its forwarding state: stale routes withdrawn now");
  }
  if (!helping()) return Clear();
  Arm(Phase::kStaleRoutes, stale_routes_time_s_);
}

void GracefulHelper::EndOfRib(int slot) {
  if (phase_ != Phase::kStaleRoutes || !stale_[slot]) return;
  SweepSlot(slot, "End-of-RIB: the routes still stale are withdrawn");
  if (!helping()) Clear();
}

void GracefulHelper::Clear() {
  stale_ = {false, false};
  phase_ = Phase::kNone;
  ++generation_;
  timer_.cancel();
}

double GracefulHelper::seconds_left() const {
  if (phase_ == Phase::kNone) return 0;
  const double left = std::chrono::duration<double>(deadline_ - Clock::now()).count();
  return std::max(0.0, left);
}

void GracefulHelper::Arm(Phase phase, double seconds) {
  phase_ = phase;
  const uint64_t generation = ++generation_;
  deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(std::max(0.0, seconds)));
  timer_.expires_at(deadline_);
  timer_.async_wait(
      [this, alive = std::weak_ptr<bool>(alive_), generation](const boost::system::error_code& ec) {
        if (ec || alive.expired() || generation_ != generation) return;
        Expired();
      });
}

void GracefulHelper::Expired() {
  for (int slot = 0; slot < 2; ++slot) {
    if (stale_[slot]) {
      SweepSlot(slot, phase_ == Phase::kRestart
                          ? "not back within its restart time: stale routes withdrawn"
                          : "no End-of-RIB within stale-routes-time: stale routes withdrawn");
    }
  }
  Clear();
}

void GracefulHelper::SweepSlot(int slot, const char* why) {
  SLUICE_LOG(kInfo) << "peer " << name_ << ": graceful restart, " << FamilyName(slot) << ": "
                    << why;
  stale_[slot] = false;
  if (sweep_) sweep_(slot);
}

}  // namespace sluice::bgp
