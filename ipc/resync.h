#pragma once
// Resync: when a component brings a process it feeds up to date with everything it holds — the
// RIB, fed by sluice-bgp and sluice-static: registering its protocols and sending every route
// again (the owner's `sync`).
//
//   - At each birth of the fed process (the Finder's kBirth of its class): at once.
//   - After a call that did not reach it while it is up (base/lost_call.h: the connection failed or
//     timed out, e.g. while a restarted process's listener came up, or it was stopped): it may
//     have missed a registration or a change (a deletion among them), and no birth will come to
//     repair that. Then after a backoff: 1 s, doubling up to 30 s while such losses follow one
//     another within a minute; several losses before it fires make one re-synchronisation.
//     `sync` is told so (after_lost_call): the RIB is then asked to hold what it has of ours as
//     stale until our end-of-RIB (rib/1.0 register_protocol's `resync`), so that a lost deletion
//     is swept.
//   - After a death, nothing until the next birth (which re-synchronises).
//
// Everything on the event loop; the callback never outlives the object.

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "base/backoff.h"
#include "base/lost_call.h"

namespace sluice::ipc {

class Resync {
 public:
  // `peer` names the fed process in the log ("RIB").
  Resync(boost::asio::io_context& io, std::string peer,
         std::function<void(bool after_lost_call)> sync);
  ~Resync();
  Resync(const Resync&) = delete;
  Resync& operator=(const Resync&) = delete;

  void OnBirth();
  void OnDeath();
  // A call to the fed process was lost while it is up.
  void OnLostCall();
  // Stops: no further re-synchronisation.
  void Stop();

  bool pending() const { return pending_; }
  double backoff_s() const { return backoff_.last_s(); }

 private:
  void Sync(bool after_lost_call);

  boost::asio::steady_timer timer_;
  std::string peer_;
  std::function<void(bool after_lost_call)> sync_;
  bool alive_ = false;    // born and not dead since
  bool pending_ = false;  // the timer runs
  bool stopped_ = false;
  Backoff backoff_{1, 30, std::chrono::seconds(60)};
};

}  // namespace sluice::ipc
