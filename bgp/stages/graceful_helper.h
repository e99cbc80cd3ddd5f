#pragma once
// GracefulHelper: the receiving speaker's side of BGP graceful restart (RFC 4724 §4.2, with
// RFC 8538 §4) for one peer — which of its families hold stale routes, and the two timers that
// bound how long they stay:
//
//   restart timer      from a graceful session end to the next Established: the Restart Time
//                      the peer advertised in the session that ended (seconds). If the peer does
//                      not come back in time, every stale route goes.
//   stale-routes timer from the new Established to the peer's End-of-RIB of each family:
//                      `stale_routes_time_s` (configured, default 360 s). Families whose
//                      End-of-RIB has not come by then are swept.
//
// On the new Established, a family whose F bit is clear, that the new capability does not list,
// or every family when the peer sent no capability at all, is swept at once (RFC 4724 §4.2).
// A family's End-of-RIB sweeps that family. The helper never withdraws a route itself: it asks
// `sweep(slot)` (slot 0 IPv4 unicast, 1 IPv6 unicast), which starts the pipeline's background
// deletion of what is still stale (FamilyRouting::SweepStale).
//
// Everything runs on the event loop `io`.

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "bgp/wire/open_message.h"

namespace sluice::bgp {

class GracefulHelper {
 public:
  using Sweep = std::function<void(int slot)>;
  // `name`: the peer, in the log lines (one per decision: kept, swept and why).
  GracefulHelper(boost::asio::io_context& io, std::string name, Sweep sweep);
  ~GracefulHelper();
  GracefulHelper(const GracefulHelper&) = delete;
  GracefulHelper& operator=(const GracefulHelper&) = delete;

  // Seconds to wait for End-of-RIB after the peer is back (RFC 4724 §4.2 "stale routes time").
  void set_stale_routes_time(double seconds) { stale_routes_time_s_ = seconds; }
  double stale_routes_time() const { return stale_routes_time_s_; }

  // The session ended gracefully; `stale[slot]`: the family's routes were kept, stale. Starts
  // (or restarts) the restart timer with `restart_time_s` (0 sweeps at once).
  void SessionDown(std::array<bool, 2> stale, double restart_time_s);
  // The peer is Established again with capability `gr` (nullopt: none) and the families
  // `negotiated`: families not preserved (or not negotiated: no End-of-RIB can come) are swept
  // now, the others wait for their End-of-RIB until the stale-routes timer.
  void Established(const std::optional<GracefulRestart>& gr, AfiSafiSet negotiated);
  // The peer's End-of-RIB for the family in `slot`.
  void EndOfRib(int slot);
  // Whatever was stale is gone (a session end without graceful restart, the peer removed):
  // timers stop, nothing is swept by the helper.
  void Clear();

  bool stale(int slot) const { return stale_[slot]; }
  bool helping() const { return stale_[0] || stale_[1]; }
  // While helping: the peer is away (restart timer) or back and sending its table (stale-routes
  // timer); the seconds left on whichever runs.
  bool waiting_for_peer() const { return helping() && phase_ == Phase::kRestart; }
  double seconds_left() const;

 private:
  enum class Phase : uint8_t { kNone, kRestart, kStaleRoutes };
  using Clock = std::chrono::steady_clock;

  void Arm(Phase phase, double seconds);
  void Expired();
  void SweepSlot(int slot, const char* why);

  boost::asio::steady_timer timer_;
  std::string name_;
  Sweep sweep_;
  double stale_routes_time_s_ = 360;
  std::array<bool, 2> stale_{false, false};
  Phase phase_ = Phase::kNone;
  Clock::time_point deadline_;
  uint64_t generation_ = 0;  // a timer wait counts only while it is the latest
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace sluice::bgp
