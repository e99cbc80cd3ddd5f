#include "rib/fea_view.h"

namespace sluice::rib {

FeaView::FeaView(std::function<void(const FeaInterfacesView&)> on_change)
    : on_change_(std::move(on_change)),
      connected_(
          [this](const net::Prefix& prefix, const std::optional<std::string>& ifname) {
            if (ifname) {
              subnets_[prefix] = *ifname;
            } else {
              subnets_.erase(prefix);
            }
          },
          [this] { Commit(); }) {}

void FeaView::Commit() {
  FeaInterfacesView next;
  next.subnets.assign(subnets_.begin(), subnets_.end());
  next.interfaces_up = connected_.InterfacesUp();
  if (known_ && next == view_) return;
  known_ = true;
  view_ = std::move(next);
  on_change_(view_);
}

}  // namespace sluice::rib
