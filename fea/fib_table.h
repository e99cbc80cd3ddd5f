#pragma once
// FibTable: the FEA's in-memory forwarding table, one route per prefix for both families,
// with exact and longest-prefix-match lookups and listing in prefix order.
//
// Storage is a net::PrefixMap (a Patricia trie per family, net/route_trie.h): O(address bits)
// finds and longest matches (IPv4 address lookups through the trie's index once the table is
// large), iteration in net::Prefix order (IPv4 first). A route is kept as its metric and the id
// of its nexthop group (fea/nexthop_group_table.h), which the routes with the same nexthops and
// protocol share: a full table costs octets per route for the trie, not a copy of its nexthops.
// Lookups therefore return a copy of the route, built from its group.

#include <cstdint>
#include <functional>
#include <optional>

#include "fea/fib_route.h"
#include "fea/nexthop_group_table.h"
#include "net/ip_address.h"
#include "net/prefix.h"
#include "net/prefix_map.h"

namespace sluice::fea {

class FibTable {
 public:
  // The route for exactly `prefix`, or nullopt.
  std::optional<FibRoute> Find(const net::Prefix& prefix) const;
  bool Contains(const net::Prefix& prefix) const;
  // The route with the longest prefix containing `address`, or nullopt.
  std::optional<FibRoute> LongestMatch(const net::IPAddress& address) const;

  // Inserts or overwrites the route for route.prefix.
  void Set(const FibRoute& route);
  // Returns false when there was no route for `prefix`.
  bool Erase(const net::Prefix& prefix);
  // Set and Erase that also return the route they overwrote or removed (nullopt: none), in one
  // walk of the trie.
  std::optional<FibRoute> Exchange(const FibRoute& route);
  std::optional<FibRoute> Take(const net::Prefix& prefix);
  void Clear();

  size_t size() const { return routes_.size(); }
  size_t size(net::Family family) const { return routes_.size(family); }
  // Distinct nexthop groups the routes use.
  size_t nexthop_groups() const { return groups_.size(); }

  // Calls `fn` for each route in prefix order (IPv4 first), of `family` only when given,
  // starting at the first prefix >= `from` when given. Stops early when `fn` returns false.
  // The route passed is valid only during the call.
  void ForEach(std::optional<net::Family> family, std::optional<net::Prefix> from,
               const std::function<bool(const FibRoute&)>& fn) const;

 private:
  struct Entry {
    NexthopGroupTable::Id group;
    uint32_t metric;
  };
  // `entry`'s route for `prefix`, written over `out` (reusing its storage).
  void Fill(const net::Prefix& prefix, const Entry& entry, FibRoute& out) const;
  std::optional<FibRoute> Route(const net::Prefix& prefix, const Entry* entry) const;

  // Iteration (and the trie's lookup index, which even const lookups may refresh) needs a
  // non-const map; the table is single-threaded like the trie.
  mutable net::PrefixMap<Entry> routes_;
  NexthopGroupTable groups_;
};

}  // namespace sluice::fea
