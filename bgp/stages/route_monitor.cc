#include "bgp/stages/route_monitor.h"

#include <utility>

namespace sluice::bgp {

void RouteMonitorSlot::Set(std::shared_ptr<RouteMonitor> monitor) {
  std::lock_guard lock(mu_);
  current_.store(monitor.get(), std::memory_order_release);
  kept_.push_back(std::move(monitor));
}

RouteMonitorStage::~RouteMonitorStage() {
  if (flushed_to_ != nullptr) flushed_to_->OnPushDone();  // removed between a flush and its push
}

void RouteMonitorStage::Collect(const BgpRoute& route, bool withdrawn) {
  RouteMonitor* m = slot_->get();
  if (m == nullptr || !m->Wants(rib_)) return;
  batch_.push_back(RouteChange{route, withdrawn});
  if (batch_.size() >= kMaxBatch) Flush();
}

void RouteMonitorStage::Flush() {
  if (batch_.empty()) return;
  if (RouteMonitor* m = slot_->get()) {
    m->OnRouteChanges(rib_, batch_);
    flushed_to_ = m;
  }
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
  if (flushed_to_ != nullptr) std::exchange(flushed_to_, nullptr)->OnPushDone();
}

}  // namespace sluice::bgp
