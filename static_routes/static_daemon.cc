#include "static_routes/static_daemon.h"

#include <utility>

#include "base/log.h"

namespace sluice::static_routes {

StaticDaemon::StaticDaemon(boost::asio::io_context& io, ipc::XrlRouter* router,
                           StaticDaemonOptions options)
    : router_(router),
      options_(std::move(options)),
      rib_(router, options_.rib, options_.restart_time),
      routes_(&rib_, &rib_),
      resync_(io, "RIB", [this](bool after_lost_call) { SyncWithRib(after_lost_call); }),
      synced_(!options_.wait_for_sync) {
  rib_.set_on_lost_call([this] { resync_.OnLostCall(); });
}

absl::Status StaticDaemon::Start() {
  absl::Status served = ServeStatic(*router_, routes_, [this] {
    synced_ = true;
    MaybeEndOfRib();
  });
  if (!served.ok()) return served;
  router_->WatchClass(options_.rib, [this](const ipc::TargetEvent& e) {
    if (e.kind == ipc::TargetEvent::kBirth) {
      SLUICE_LOG(kInfo) << "RIB " << e.instance_name << " is up: sending " << routes_.List().size()
                        << " static routes";
      resync_.OnBirth();
      if (options_.on_rib_up) options_.on_rib_up(e.instance_name);
    } else {
      SLUICE_LOG(kWarning) << "RIB " << e.instance_name << " died";
      resync_.OnDeath();
    }
  });
  return absl::OkStatus();
}

void StaticDaemon::Deregister(std::function<void()> done) {
  resync_.Stop();
  rib_.DeregisterProtocol(std::move(done));
}

// Register "static" as ours, ask the nexthops again, send every route, then end-of-RIB.
void StaticDaemon::SyncWithRib(bool after_lost_call) {
  rib_.NewSession();
  rib_.RegisterProtocol(after_lost_call);
  routes_.RibBorn();
  end_of_rib_due_ = true;
  MaybeEndOfRib();
}

void StaticDaemon::MaybeEndOfRib() {
  if (!end_of_rib_due_ || !synced_) return;
  end_of_rib_due_ = false;
  rib_.EndOfRib();
}

}  // namespace sluice::static_routes
