#include "fea/fib_table.h"

namespace sluice::fea {

const FibRoute* FibTable::Find(const net::Prefix& prefix) const {
  return routes_.find_value(prefix);
}

const FibRoute* FibTable::LongestMatch(const net::IPAddress& address) const {
  return routes_.longest_match_value(address);
}

void FibTable::Set(FibRoute route) {
  const net::Prefix prefix = route.prefix;
  routes_.insert_or_assign(prefix, std::move(route));
}

bool FibTable::Erase(const net::Prefix& prefix) { return routes_.erase(prefix); }

void FibTable::Clear() { routes_.clear(); }

void FibTable::ForEach(std::optional<net::Family> family, std::optional<net::Prefix> from,
                       const std::function<bool(const FibRoute&)>& fn) const {
  auto it = routes_.begin();
  if (from.has_value()) {
    it = routes_.lower_bound(*from);
  } else if (family == net::Family::kIPv6) {
    it = routes_.lower_bound(net::Prefix(net::IPv6Address(), 0));
  }
  for (; it != routes_.end(); ++it) {
    if (family.has_value() && it.key().family() != *family) {
      if (*family == net::Family::kIPv4) break;  // IPv4 orders first: nothing more to see
      continue;
    }
    if (!fn(*it)) break;
  }
}

}  // namespace sluice::fea
