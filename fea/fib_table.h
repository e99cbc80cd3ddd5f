#pragma once
// FibTable: the FEA's in-memory forwarding table, one route per prefix for both families,
// with exact and longest-prefix-match lookups and listing in prefix order.
//
// Storage is an ordered map plus a count of routes per prefix length; a longest match probes
// each length present, longest first (at most 33 probes for IPv4, 129 for IPv6). This stands
// in until net/route_trie.h (RouteTrie<A, T> with longest_match) is available; the interface
// stays the same.

#include <array>
#include <cstdint>
#include <functional>
#include <optional>

#include "absl/container/btree_map.h"
#include "fea/fib_route.h"
#include "net/ip_address.h"
#include "net/prefix.h"

namespace sluice::fea {

class FibTable {
 public:
  // The route for exactly `prefix`, or nullptr. Pointers stay valid until the table next
  // changes (the ordered map moves its elements).
  const FibRoute* Find(const net::Prefix& prefix) const;
  // The route with the longest prefix containing `address`, or nullptr.
  const FibRoute* LongestMatch(const net::IPAddress& address) const;

  // Inserts or overwrites the route for route.prefix.
  void Set(FibRoute route);
  // Returns false when there was no route for `prefix`.
  bool Erase(const net::Prefix& prefix);
  void Clear();

  size_t size() const { return routes_.size(); }
  size_t size(net::Family family) const;

  // Calls `fn` for each route in prefix order (IPv4 first), of `family` only when given,
  // starting at the first prefix >= `from` when given. Stops early when `fn` returns false.
  void ForEach(std::optional<net::Family> family, std::optional<net::Prefix> from,
               const std::function<bool(const FibRoute&)>& fn) const;

 private:
  std::array<uint32_t, 129>& counts(net::Family f) { return f == net::Family::kIPv4 ? v4_ : v6_; }

  absl::btree_map<net::Prefix, FibRoute> routes_;
  std::array<uint32_t, 129> v4_{};  // routes per prefix length (only 0..32 used)
  std::array<uint32_t, 129> v6_{};
};

}  // namespace sluice::fea
