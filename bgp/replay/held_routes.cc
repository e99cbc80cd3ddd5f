#include "bgp/replay/held_routes.h"

namespace sluice::bgp::replay {

bool HeldRoutes::Announce(const net::Prefix& prefix) {
  auto [it, inserted] = routes_.try_emplace(prefix, false);
  if (!inserted && it->second) {
    it->second = false;
    --stale_;
  }
  return inserted;
}

bool HeldRoutes::Withdraw(const net::Prefix& prefix) {
  auto it = routes_.find(prefix);
  if (it == routes_.end()) return false;
  if (it->second) --stale_;
  routes_.erase(it);
  return true;
}

uint64_t HeldRoutes::MarkStale(AfiSafiSet families) {
  uint64_t removed = 0;
  for (auto it = routes_.begin(); it != routes_.end();) {
    if (!families.Has(FamilyOf(it->first))) {
      if (it->second) --stale_;
      routes_.erase(it++);
      ++removed;
      continue;
    }
    if (!it->second) {
      it->second = true;
      ++stale_;
    }
    ++it;
  }
  return removed;
}

uint64_t HeldRoutes::Sweep(AfiSafiSet families) {
  uint64_t removed = 0;
  for (auto it = routes_.begin(); it != routes_.end();) {
    if (it->second && families.Has(FamilyOf(it->first))) {
      routes_.erase(it++);
      --stale_;
      ++removed;
    } else {
      ++it;
    }
  }
  return removed;
}

uint64_t HeldRoutes::Clear() {
  const uint64_t n = routes_.size();
  routes_.clear();
  stale_ = 0;
  return n;
}

}  // namespace sluice::bgp::replay
