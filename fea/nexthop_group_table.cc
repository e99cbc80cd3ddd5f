#include "fea/nexthop_group_table.h"

#include <algorithm>
#include <utility>

#include "absl/hash/hash.h"

namespace sluice::fea {

NexthopGroupTable::NexthopGroupTable() : index_(0, Hash{this}, Eq{this}) {}

size_t NexthopGroupTable::Hash::operator()(Id id) const { return (*this)(table->KeyOf(id)); }

size_t NexthopGroupTable::Hash::operator()(const Key& key) const {
  size_t h = absl::HashOf(key.protocol, key.nexthops.size());
  for (const Nexthop& nh : key.nexthops) {
    h = absl::HashOf(h, nh.gateway.has_value(), nh.interface, nh.onlink, nh.weight);
    if (nh.gateway.has_value()) h = absl::HashOf(h, *nh.gateway);
  }
  return h;
}

bool NexthopGroupTable::Eq::operator()(Id a, const Key& b) const {
  const Key held = table->KeyOf(a);
  return held.protocol == b.protocol && std::equal(held.nexthops.begin(), held.nexthops.end(),
                                                   b.nexthops.begin(), b.nexthops.end());
}

NexthopGroupTable::Id NexthopGroupTable::Acquire(std::span<const Nexthop> nexthops,
                                                 std::string_view protocol) {
  const Key key{nexthops, protocol};
  if (auto it = index_.find(key); it != index_.end()) {
    ++slots_[*it].refs;
    return *it;
  }
  Id id;
  if (!free_.empty()) {
    id = free_.back();
    free_.pop_back();
  } else {
    id = static_cast<Id>(slots_.size());
    slots_.emplace_back();
  }
  Slot& slot = slots_[id];
  slot.group.nexthops.assign(nexthops.begin(), nexthops.end());
  slot.group.protocol.assign(protocol);
  slot.refs = 1;
  index_.insert(id);
  return id;
}

void NexthopGroupTable::Release(Id id) {
  Slot& slot = slots_[id];
  if (--slot.refs > 0) return;
  index_.erase(id);
  slot.group = Group{};
  free_.push_back(id);
}

}  // namespace sluice::fea
