#pragma once
// FibTable: the FEA's in-memory forwarding table, one route per prefix for both families,
// with exact and longest-prefix-match lookups and listing in prefix order.
//
// Storage is a net::PrefixMap (a Patricia trie per family, net/route_trie.h): O(address bits)
// finds and longest matches (IPv4 address lookups through the trie's index once the table is
// large), iteration in net::Prefix order (IPv4 first).

#include <cstdint>
#include <functional>
#include <optional>

#include "fea/fib_route.h"
#include "net/ip_address.h"
#include "net/prefix.h"
#include "net/prefix_map.h"

namespace sluice::fea {

class FibTable {
 public:
  // The route for exactly `prefix`, or nullptr. Pointers stay valid until that route is erased
  // or overwritten.
  const FibRoute* Find(const net::Prefix& prefix) const;
  // The route with the longest prefix containing `address`, or nullptr.
  const FibRoute* LongestMatch(const net::IPAddress& address) const;

  // Inserts or overwrites the route for route.prefix.
  void Set(FibRoute route);
  // Returns false when there was no route for `prefix`.
  bool Erase(const net::Prefix& prefix);
  void Clear();

  size_t size() const { return routes_.size(); }
  size_t size(net::Family family) const { return routes_.size(family); }

  // Calls `fn` for each route in prefix order (IPv4 first), of `family` only when given,
  // starting at the first prefix >= `from` when given. Stops early when `fn` returns false.
  void ForEach(std::optional<net::Family> family, std::optional<net::Prefix> from,
               const std::function<bool(const FibRoute&)>& fn) const;

 private:
  // Iteration (and the trie's lookup index, which even const lookups may refresh) needs a
  // non-const map; the table is single-threaded like the trie.
  mutable net::PrefixMap<FibRoute> routes_;
};

}  // namespace sluice::fea
