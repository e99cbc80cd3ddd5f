#pragma once
// RibResync: when sluice-bgp brings the RIB process up to date with everything it holds —
// registering its protocols and sending every route again (BgpDaemon's `sync`).
//
//   - At each birth of a RIB (the Finder's kBirth of its class): at once.
//   - After a call that did not reach a RIB that is still up (RibIpcClient's lost calls: the
//     connection failed or timed out, e.g. while a restarted RIB's listener came up): the RIB
//     may have missed a registration or a batch of routes, and no birth will come to repair it.
//     Then after a backoff: 1 s, doubling up to 30 s while such losses follow one another within
//     a minute; several losses before it fires make one re-synchronisation.
//   - After a death, nothing until the next birth (which re-synchronises).
//
// Everything on the event loop; the callback never outlives the object.

#include <chrono>
#include <functional>

#include "base/backoff.h"
#include "bgp/session/asio.h"

namespace sluice::bgp::process {

class RibResync {
 public:
  RibResync(boost::asio::io_context& io, std::function<void()> sync);
  ~RibResync();
  RibResync(const RibResync&) = delete;
  RibResync& operator=(const RibResync&) = delete;

  void OnBirth();
  void OnDeath();
  // A call to the RIB was lost while it is up.
  void OnLostCall();
  // Stops: no further re-synchronisation.
  void Stop();

  bool pending() const { return pending_; }
  double backoff_s() const { return backoff_.last_s(); }

 private:
  void Sync();

  boost::asio::steady_timer timer_;
  std::function<void()> sync_;
  bool alive_ = false;    // a RIB was born and has not died since
  bool pending_ = false;  // the timer runs
  bool stopped_ = false;
  Backoff backoff_{1, 30, std::chrono::seconds(60)};
};

}  // namespace sluice::bgp::process
