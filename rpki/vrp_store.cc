#include "rpki/vrp_store.h"

#include <algorithm>

namespace sluice::rpki {

bool VrpStore::Announce(CacheId cache, const Vrp& vrp) {
  if (vrp.max_length < vrp.prefix.length() || vrp.max_length > vrp.prefix.max_length()) {
    return false;
  }
  if (!by_cache_[cache].insert(vrp).second) return false;
  if (++holders_[vrp] == 1) Enter(vrp);
  return true;
}

bool VrpStore::Withdraw(CacheId cache, const Vrp& vrp) {
  auto it = by_cache_.find(cache);
  if (it == by_cache_.end() || it->second.erase(vrp) == 0) return false;
  auto h = holders_.find(vrp);
  if (--h->second == 0) {
    holders_.erase(h);
    Leave(vrp);
  }
  return true;
}

size_t VrpStore::DropCache(CacheId cache) {
  auto it = by_cache_.find(cache);
  if (it == by_cache_.end()) return 0;
  const absl::flat_hash_set<Vrp> held = std::move(it->second);
  by_cache_.erase(it);
  for (const Vrp& vrp : held) {
    auto h = holders_.find(vrp);
    if (--h->second == 0) {
      holders_.erase(h);
      Leave(vrp);
    }
  }
  return held.size();
}

void VrpStore::Enter(const Vrp& vrp) {
  ++(vrp.prefix.is_v4() ? size_v4_ : size_v6_);
  if (!tracking_) return;
  auto [it, inserted] = pending_.try_emplace(vrp, true);
  if (!inserted) pending_.erase(it);  // withdrawn earlier, back now: no net change
}

void VrpStore::Leave(const Vrp& vrp) {
  --(vrp.prefix.is_v4() ? size_v4_ : size_v6_);
  if (!tracking_) return;
  auto [it, inserted] = pending_.try_emplace(vrp, false);
  if (!inserted) pending_.erase(it);  // announced earlier, gone now: no net change
}

void VrpStore::set_tracking(bool on) {
  tracking_ = on;
  if (!on) pending_ = {};  // its memory too
}

VrpChanges VrpStore::TakeChanges() {
  VrpChanges changes;
  for (const auto& [vrp, announced] : pending_) {
    (announced ? changes.announced : changes.withdrawn).push_back(vrp);
  }
  pending_.clear();
  std::sort(changes.announced.begin(), changes.announced.end());
  std::sort(changes.withdrawn.begin(), changes.withdrawn.end());
  return changes;
}

std::vector<Vrp> VrpStore::Snapshot() const {
  std::vector<Vrp> out;
  out.reserve(holders_.size());
  for (const auto& [vrp, count] : holders_) out.push_back(vrp);
  std::sort(out.begin(), out.end());
  return out;
}

size_t VrpStore::CacheSize(CacheId cache) const {
  auto it = by_cache_.find(cache);
  return it == by_cache_.end() ? 0 : it->second.size();
}

bool VrpStore::Holds(CacheId cache, const Vrp& vrp) const {
  auto it = by_cache_.find(cache);
  return it != by_cache_.end() && it->second.contains(vrp);
}

std::vector<Vrp> VrpStore::CacheVrps(CacheId cache) const {
  auto it = by_cache_.find(cache);
  if (it == by_cache_.end()) return {};
  return std::vector<Vrp>(it->second.begin(), it->second.end());
}

}  // namespace sluice::rpki
