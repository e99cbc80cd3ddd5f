#include "bgp/stages/route_monitor.h"

namespace sluice::bgp {

void RouteMonitorSlot::Set(std::shared_ptr<RouteMonitor> monitor) {
  std::lock_guard lock(mu_);
  current_.store(monitor.get(), std::memory_order_release);
  kept_.push_back(std::move(monitor));
}

void RouteMonitorStage::Collect(const BgpRoute& route, bool withdrawn) {
  RouteMonitor* m = slot_->get();
  if (m == nullptr || !m->Wants(rib_)) return;
  batch_.push_back(RouteChange{route, withdrawn});
  if (batch_.size() >= kMaxBatch) Flush();
}

void RouteMonitorStage::Flush() {
  if (batch_.empty()) return;
  if (RouteMonitor* m = slot_->get()) m->OnRouteChanges(rib_, batch_);
  batch_.clear();
}

void RouteMonitorStage::add_route(const BgpRoute& route, BgpStage* caller) {
  Collect(route, false);
  BgpLinearStage::add_route(route, caller);
}

void RouteMonitorStage::delete_route(const BgpRoute& route, BgpStage* caller) {
  Collect(route, true);
  BgpLinearStage::delete_route(route, caller);
}

void RouteMonitorStage::replace_route(const BgpRoute& old_route, const BgpRoute& new_route,
                                      BgpStage* caller) {
  Collect(new_route, false);
  BgpLinearStage::replace_route(old_route, new_route, caller);
}

void RouteMonitorStage::push(BgpStage* caller) {
  Flush();
  BgpLinearStage::push(caller);
}

}  // namespace sluice::bgp
