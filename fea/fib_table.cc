#include "fea/fib_table.h"

namespace sluice::fea {

void FibTable::Fill(const net::Prefix& prefix, const Entry& entry, FibRoute& out) const {
  const NexthopGroupTable::Group& group = groups_.Get(entry.group);
  out.prefix = prefix;
  out.nexthops.assign(group.nexthops.begin(), group.nexthops.end());
  out.metric = entry.metric;
  out.protocol.assign(group.protocol);
}

std::optional<FibRoute> FibTable::Route(const net::Prefix& prefix, const Entry* entry) const {
  if (entry == nullptr) return std::nullopt;
  FibRoute route;
  Fill(prefix, *entry, route);
  return route;
}

std::optional<FibRoute> FibTable::Find(const net::Prefix& prefix) const {
  return Route(prefix, routes_.find_value(prefix));
}

bool FibTable::Contains(const net::Prefix& prefix) const { return routes_.contains(prefix); }

std::optional<FibRoute> FibTable::LongestMatch(const net::IPAddress& address) const {
  auto it = routes_.longest_match(address);
  if (it == routes_.end()) return std::nullopt;
  return Route(it.key(), &*it);
}

void FibTable::Set(const FibRoute& route) {
  // The new group first, so that a route keeping its nexthops never frees and rebuilds them.
  const Entry entry{groups_.Acquire(route.nexthops, route.protocol), route.metric};
  auto [it, added] = routes_.insert(route.prefix, entry);
  if (!added) {
    groups_.Release(it->group);
    *it = entry;
  }
}

bool FibTable::Erase(const net::Prefix& prefix) {
  auto it = routes_.find(prefix);
  if (it == routes_.end()) return false;
  groups_.Release(it->group);
  routes_.erase(it);
  return true;
}

std::optional<FibRoute> FibTable::Exchange(const FibRoute& route) {
  const Entry entry{groups_.Acquire(route.nexthops, route.protocol), route.metric};
  auto [it, added] = routes_.insert(route.prefix, entry);
  if (added) return std::nullopt;
  std::optional<FibRoute> old = Route(route.prefix, &*it);
  groups_.Release(it->group);
  *it = entry;
  return old;
}

std::optional<FibRoute> FibTable::Take(const net::Prefix& prefix) {
  auto it = routes_.find(prefix);
  if (it == routes_.end()) return std::nullopt;
  std::optional<FibRoute> old = Route(prefix, &*it);
  groups_.Release(it->group);
  routes_.erase(it);
  return old;
}

void FibTable::Clear() {
  for (auto it = routes_.begin(); it != routes_.end(); ++it) groups_.Release(it->group);
  routes_.clear();
}

void FibTable::ForEach(std::optional<net::Family> family, std::optional<net::Prefix> from,
                       const std::function<bool(const FibRoute&)>& fn) const {
  auto it = routes_.begin();
  if (from.has_value()) {
    it = routes_.lower_bound(*from);
  } else if (family == net::Family::kIPv6) {
    it = routes_.lower_bound(net::Prefix(net::IPv6Address(), 0));
  }
  FibRoute route;  // reused: copying a group into it allocates only when it outgrows it
  for (; it != routes_.end(); ++it) {
    if (family.has_value() && it.key().family() != *family) {
      if (*family == net::Family::kIPv4) break;  // IPv4 orders first: nothing more to see
      continue;
    }
    Fill(it.key(), *it, route);
    if (!fn(route)) break;
  }
}

}  // namespace sluice::fea
