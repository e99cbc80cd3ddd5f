#include "bgp/stages/send_budget.h"

#include <algorithm>

namespace sluice::bgp {

SendBudget::SendBudget(size_t total, size_t per_peer_min, size_t per_peer_max)
    : total_(total),
      per_peer_min_(std::min(per_peer_min, per_peer_max)),
      per_peer_max_(per_peer_max) {}

void SendBudget::Add(const void* session) { ++users_[session]; }

void SendBudget::Remove(const void* session) {
  auto it = users_.find(session);
  if (it == users_.end()) return;
  if (--it->second == 0) users_.erase(it);
}

size_t SendBudget::share() const {
  const size_t n = std::max<size_t>(1, users_.size());
  return std::clamp(total_ / n, per_peer_min_, per_peer_max_);
}

}  // namespace sluice::bgp
