#pragma once
// RestartCoordinator: sluice-bgp as the restarting speaker of BGP graceful restart (RFC 4724
// §4.1), and the end-of-RIB it owes the RIB.
//
// When sluice-bgp dies without deregistering (a crash, SIGKILL, an exit for a restart), the RIB
// keeps its routes, stale, for the restart time it registered with, and GR-capable peers keep the
// routes we sent them. The new process learns it is restarting from the RIB's answer to
// register_protocol (stale routes > 0). Then:
//   - its OPENs carry the R bit (PeerManager::SetGracefulRestart);
//   - End-of-RIB to each peer waits (EndOfRibGate) until every enabled peer is Established and,
//     when graceful restart was negotiated with it, has sent End-of-RIB for each of its families
//     (a peer with the R bit too) — or until the selection-deferral time (the restart time)
//     passes; until then nothing leaves the Loc-RIB (selection deferral, end_of_rib_gate.h);
//   - then the gate opens (End-of-RIB to every peer), the R bit goes, and once the RIB branch has
//     handed the RIB every route, rib/1.0/end_of_rib: the RIB withdraws what was not re-sent.
// A fresh start (no stale routes) opens the gate at once and still calls end_of_rib after the
// first dump (cheap; harmless). Until the RIB answers, the gate is closed (we may be restarting);
// with no answer by the deferral time it opens anyway. A RIB born again later gets end_of_rib
// once it has been re-fed.
//
// Status for `show bgp peers`: phase(). Everything on the event loop.

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "bgp/session/peer_manager.h"
#include "bgp/stages/bgp_routing.h"
#include "bgp/stages/end_of_rib_gate.h"

namespace sluice::bgp::process {

class RestartCoordinator {
 public:
  enum class Phase : uint8_t {
    kWaitingForRib,  // register_protocol not answered yet: End-of-RIB held
    kDeferring,      // restarting: waiting for the peers' End-of-RIB
    kDone,           // End-of-RIB flows
  };
  // `rib_end_of_rib`: calls rib/1.0/end_of_rib (null: no RIB). The others outlive this.
  RestartCoordinator(boost::asio::io_context& io, PeerManager* peers, BgpRouting* routing,
                     EndOfRibGate* gate, std::function<void()> rib_end_of_rib);
  ~RestartCoordinator();

  // At start: with a RIB, hold End-of-RIB until it answers, at most `deferral_s` seconds.
  void Start(bool has_rib, double deferral_s);
  // The RIB answered register_protocol with `stale_routes`.
  void OnRibRegistered(uint32_t stale_routes);

  Phase phase() const { return phase_; }
  std::string PhaseText() const;  // "waiting for the RIB", "restarting: ...", "done"
  double seconds_left() const;    // of the deferral, while not done

 private:
  using Clock = std::chrono::steady_clock;
  // Every enabled peer is up and, with graceful restart, has sent End-of-RIB everywhere.
  bool PeersDone() const;
  void Poll();
  void Finish(const char* why);
  void RibEndOfRibWhenSynced();
  void PollRibSynced();  // RibEndOfRibWhenSynced again after kPollInterval

  boost::asio::io_context& io_;
  PeerManager* peers_;
  BgpRouting* routing_;
  EndOfRibGate* gate_;
  std::function<void()> rib_end_of_rib_;
  Phase phase_ = Phase::kDone;
  Clock::time_point deadline_;
  boost::asio::steady_timer poll_;
  boost::asio::steady_timer rib_poll_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace sluice::bgp::process
