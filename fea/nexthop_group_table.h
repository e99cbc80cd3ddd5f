#pragma once
// NexthopGroupTable: the nexthop groups the routes of the FIB share, interned and counted.
//
// A full table has hundreds of thousands of routes but only as many distinct forwarding
// decisions as the router has neighbours: FRR's zebra (nexthop hash entries) and the Linux
// kernel (RTM_NEWNEXTHOP objects) both store a set of nexthops once and let routes name it.
// The FibTable does the same: a route holds the id of its group, here, and the group holds the
// nexthops and the protocol tag (part of the identity, as the route type is of an FRR nexthop
// hash entry). Equal groups have equal ids while both are held.
//
// Ids are small integers reused once their group is released. Single-threaded, like the
// FibTable.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "fea/fib_route.h"

namespace sluice::fea {

class NexthopGroupTable {
 public:
  using Id = uint32_t;

  struct Group {
    std::vector<Nexthop> nexthops;
    std::string protocol;
  };

  NexthopGroupTable();
  // Groups are found through hash functors that point at this table: it does not move.
  NexthopGroupTable(const NexthopGroupTable&) = delete;
  NexthopGroupTable& operator=(const NexthopGroupTable&) = delete;

  // The id of the group {nexthops, protocol}, with one more reference; the group is copied in
  // only when no equal group is held.
  Id Acquire(std::span<const Nexthop> nexthops, std::string_view protocol);
  // Drops one reference; the group is forgotten with its last one. `id` must be held.
  void Release(Id id);
  // The group of a held id.
  const Group& Get(Id id) const { return slots_[id].group; }

  // Distinct groups held.
  size_t size() const { return index_.size(); }

 private:
  struct Slot {
    Group group;
    uint32_t refs = 0;  // 0: free, on free_
  };
  // What a lookup compares: a held group (by id) or a candidate.
  struct Key {
    std::span<const Nexthop> nexthops;
    std::string_view protocol;
  };
  struct Hash {
    using is_transparent = void;
    const NexthopGroupTable* table;
    size_t operator()(Id id) const;
    size_t operator()(const Key& key) const;
  };
  struct Eq {
    using is_transparent = void;
    const NexthopGroupTable* table;
    bool operator()(Id a, Id b) const { return a == b; }
    bool operator()(Id a, const Key& b) const;
    bool operator()(const Key& a, Id b) const { return (*this)(b, a); }
  };

  Key KeyOf(Id id) const { return Key{slots_[id].group.nexthops, slots_[id].group.protocol}; }

  std::vector<Slot> slots_;
  std::vector<Id> free_;
  absl::flat_hash_set<Id, Hash, Eq> index_;
};

}  // namespace sluice::fea
