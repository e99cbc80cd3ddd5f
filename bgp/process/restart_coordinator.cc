#include "bgp/process/restart_coordinator.h"

#include <algorithm>
#include <boost/asio/post.hpp>

#include "absl/strings/str_cat.h"
#include "base/log.h"

namespace sluice::bgp::process {
namespace {

constexpr std::chrono::milliseconds kPollInterval{100};

}  // namespace

RestartCoordinator::RestartCoordinator(boost::asio::io_context& io, PeerManager* peers,
                                       BgpRouting* routing, EndOfRibGate* gate,
                                       std::function<void()> rib_end_of_rib)
    : io_(io),
      peers_(peers),
      routing_(routing),
      gate_(gate),
      rib_end_of_rib_(std::move(rib_end_of_rib)),
      poll_(io),
      rib_poll_(io) {}

RestartCoordinator::~RestartCoordinator() {
  alive_.reset();
  poll_.cancel();
  rib_poll_.cancel();
}

void RestartCoordinator::Start(bool has_rib, double deferral_s) {
  if (!has_rib) {
    phase_ = Phase::kDone;
    gate_->Open();
    return;
  }
  phase_ = Phase::kWaitingForRib;
  gate_->Close();
  deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(std::max(0.0, deferral_s)));
  Poll();
}

void RestartCoordinator::OnRibRegistered(uint32_t stale_routes) {
  if (phase_ == Phase::kDone) {  // a RIB born again: re-fed by OnRibBorn's dump
    RibEndOfRibWhenSynced();
    return;
  }
  if (stale_routes == 0) return Finish("a fresh start: the RIB holds no routes of ours");
  SLUICE_LOG(kInfo) << "graceful restart: the RIB kept " << stale_routes
                    << " of our routes; deferring End-of-RIB until the peers have sent theirs";
  phase_ = Phase::kDeferring;
  GracefulRestartConfig gr = peers_->graceful_restart();
  gr.restarting = true;  // R bit (RFC 4724 §3)
  peers_->SetGracefulRestart(gr);
}

std::string RestartCoordinator::PhaseText() const {
  switch (phase_) {
    case Phase::kWaitingForRib:
      return "waiting for the RIB";
    case Phase::kDeferring:
      return "restarting: waiting for the peers' End-of-RIB";
    case Phase::kDone:
      return "done";
  }
  return "";
}

double RestartCoordinator::seconds_left() const {
  if (phase_ == Phase::kDone) return 0;
  return std::max(0.0, std::chrono::duration<double>(deadline_ - Clock::now()).count());
}

bool RestartCoordinator::PeersDone() const {
  int enabled = 0;
  for (const PeerStatus& s : peers_->ListPeers()) {
    if (!s.enabled) continue;
    ++enabled;
    BgpPeer* p = routing_->peer(s.address);
    if (p == nullptr || !p->established()) return false;
    if (!p->info().graceful_restart) continue;  // no End-of-RIB promised
    // A peer restarting too (R bit) is waited for as well, although RFC 4724 §4.1 lets us skip
    // it: a peer whose session merely dropped may set it (sluice-replay --reconnect does), and
    // the RIB's sweep must not run before its table is back. Two restarting speakers that both
    // wait are released by the deferral time.
    for (int slot = 0; slot < 2; ++slot) {
      const BgpPeer::FamilyState& f = p->family(slot);
      if (f.up && !f.disabled && !f.end_of_rib_received) return false;
    }
  }
  return enabled > 0;  // no peer configured yet: wait for them (or the deferral time)
}

void RestartCoordinator::Poll() {
  if (phase_ == Phase::kDone) return;
  if (Clock::now() >= deadline_) return Finish("the selection deferral time passed");
  if (phase_ == Phase::kDeferring && PeersDone()) {
    return Finish("every peer sent End-of-RIB");
  }
  poll_.expires_after(kPollInterval);
  poll_.async_wait([this, alive = std::weak_ptr<bool>(alive_)](const boost::system::error_code& e) {
    if (!e && !alive.expired()) Poll();
  });
}

void RestartCoordinator::Finish(const char* why) {
  const bool was_restarting = phase_ == Phase::kDeferring;
  phase_ = Phase::kDone;
  poll_.cancel();
  SLUICE_LOG(kInfo) << "graceful restart: sending End-of-RIB (" << why << ")";
  if (was_restarting) {
    GracefulRestartConfig gr = peers_->graceful_restart();
    gr.restarting = false;
    peers_->SetGracefulRestart(gr);
  }
  gate_->Open();
  RibEndOfRibWhenSynced();
}

void RestartCoordinator::RibEndOfRibWhenSynced() {
  if (!rib_end_of_rib_) return;
  routing_->RibSyncedAsync([this, alive = std::weak_ptr<bool>(alive_)](bool synced) {
    if (alive.expired()) return;
    if (!synced) return PollRibSynced();
    // Routes a shard handed to the loop just before it said "synced" are still in the loop's
    // queue: check again behind them before saying end-of-RIB.
    boost::asio::post(io_, [this, alive] {
      if (alive.expired()) return;
      routing_->RibSyncedAsync([this, alive](bool again) {
        if (alive.expired()) return;
        if (again) return rib_end_of_rib_();
        RibEndOfRibWhenSynced();
      });
    });
  });
}

void RestartCoordinator::PollRibSynced() {
  rib_poll_.expires_after(kPollInterval);
  rib_poll_.async_wait(
      [this, alive = std::weak_ptr<bool>(alive_)](const boost::system::error_code& e) {
        if (!e && !alive.expired()) RibEndOfRibWhenSynced();
      });
}

}  // namespace sluice::bgp::process
