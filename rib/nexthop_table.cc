#include "rib/nexthop_table.h"

namespace sluice::rib {

NexthopTable::NexthopTable() { entries_.emplace_back(); }  // id 0 is never handed out

uint32_t NexthopTable::Acquire(const std::optional<net::IPAddress>& nexthop, Symbol ifname) {
  // Routes come in runs with one nexthop (a BGP UPDATE's NLRI): try the last one first.
  if (last_ != 0 && entries_[last_].refs > 0 && entries_[last_].ifname == ifname &&
      entries_[last_].nexthop == nexthop) {
    ++entries_[last_].refs;
    return last_;
  }
  auto [it, added] = index_.try_emplace(Key{nexthop, ifname}, 0);
  if (!added) {
    ++entries_[it->second].refs;
    last_ = it->second;
    return it->second;
  }
  uint32_t id;
  if (!free_.empty()) {
    id = free_.back();
    free_.pop_back();
  } else {
    id = static_cast<uint32_t>(entries_.size());
    entries_.emplace_back();
  }
  entries_[id] = Entry{nexthop, ifname, 1};
  it->second = id;
  last_ = id;
  return id;
}

void NexthopTable::Release(uint32_t id) {
  Entry& e = entries_[id];
  if (--e.refs > 0) return;
  index_.erase(Key{e.nexthop, e.ifname});
  e = Entry{};
  free_.push_back(id);
}

}  // namespace sluice::rib
