#include "fea/fib_table.h"

namespace sluice::fea {

const FibRoute* FibTable::Find(const net::Prefix& prefix) const {
  auto it = routes_.find(prefix);
  return it == routes_.end() ? nullptr : &it->second;
}

const FibRoute* FibTable::LongestMatch(const net::IPAddress& address) const {
  const std::array<uint32_t, 129>& counts = address.is_v4() ? v4_ : v6_;
  for (int length = address.bits(); length >= 0; --length) {
    if (counts[length] == 0) continue;
    if (const FibRoute* r = Find(net::Prefix(address, length))) return r;
  }
  return nullptr;
}

void FibTable::Set(FibRoute route) {
  net::Prefix prefix = route.prefix;
  auto [it, inserted] = routes_.insert_or_assign(prefix, std::move(route));
  if (inserted) ++counts(prefix.family())[prefix.length()];
}

bool FibTable::Erase(const net::Prefix& prefix) {
  if (routes_.erase(prefix) == 0) return false;
  --counts(prefix.family())[prefix.length()];
  return true;
}

void FibTable::Clear() {
  routes_.clear();
  v4_.fill(0);
  v6_.fill(0);
}

size_t FibTable::size(net::Family family) const {
  const std::array<uint32_t, 129>& c = family == net::Family::kIPv4 ? v4_ : v6_;
  size_t n = 0;
  for (uint32_t x : c) n += x;
  return n;
}

void FibTable::ForEach(std::optional<net::Family> family, std::optional<net::Prefix> from,
                       const std::function<bool(const FibRoute&)>& fn) const {
  auto it = routes_.begin();
  if (from.has_value()) {
    it = routes_.lower_bound(*from);
  } else if (family == net::Family::kIPv6) {
    it = routes_.lower_bound(net::Prefix(net::IPv6Address(), 0));
  }
  for (; it != routes_.end(); ++it) {
    if (family.has_value() && it->first.family() != *family) {
      if (*family == net::Family::kIPv4) break;  // IPv4 orders first: nothing more to see
      continue;
    }
    if (!fn(it->second)) break;
  }
}

}  // namespace sluice::fea
