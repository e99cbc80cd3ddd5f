#include "bgp/stages/route_monitor.h"

namespace sluice::bgp {

void RouteMonitorSlot::Set(std::shared_ptr<RouteMonitor> monitor) {
  std::lock_guard lock(mu_);
  current_.store(monitor.get(), std::memory_order_release);
  kept_.push_back(std::move(monitor));
}

void RouteMonitorStage::add_route(const BgpRoute& route, BgpStage* caller) {
  if (RouteMonitor* m = slot_->get()) m->OnLocRibAnnounce(route);
  BgpLinearStage::add_route(route, caller);
}

void RouteMonitorStage::delete_route(const BgpRoute& route, BgpStage* caller) {
  if (RouteMonitor* m = slot_->get()) m->OnLocRibWithdraw(route);
  BgpLinearStage::delete_route(route, caller);
}

void RouteMonitorStage::replace_route(const BgpRoute& old_route, const BgpRoute& new_route,
                                      BgpStage* caller) {
  if (RouteMonitor* m = slot_->get()) m->OnLocRibAnnounce(new_route);
  BgpLinearStage::replace_route(old_route, new_route, caller);
}

}  // namespace sluice::bgp
