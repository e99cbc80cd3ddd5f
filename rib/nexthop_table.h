#pragma once
// Compact route storage for the origin stages: StoredRoute is what an origin (and a deletion
// stage, which inherits an origin's table) keeps per prefix, 12 octets; the nexthop and
// interface, which many routes share, are interned in a NexthopTable with reference counts.
//
// The prefix is the table's key, and protocol and admin distance belong to the origin, so a
// RibRoute is rebuilt from (prefix, StoredRoute, origin) when a stage needs one (Expand).

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "net/ip_address.h"
#include "net/prefix.h"
#include "rib/rib_route.h"
#include "rib/symbol.h"
#include "rib/tag_set.h"

namespace sluice::rib {

struct StoredRoute {
  uint32_t nexthop = 0;  // a NexthopTable id
  uint32_t metric = 0;
  TagSet tags;
};

// Interned (nexthop address, interface) pairs. Ids are small integers, reused after release.
// One table per RIB network; single-threaded.
class NexthopTable {
 public:
  NexthopTable();

  // The id of (nexthop, ifname), taking one reference.
  uint32_t Acquire(const std::optional<net::IPAddress>& nexthop, Symbol ifname);
  // Drops one reference taken by Acquire; the entry is freed with its last reference.
  void Release(uint32_t id);

  const std::optional<net::IPAddress>& nexthop(uint32_t id) const { return entries_[id].nexthop; }
  Symbol ifname(uint32_t id) const { return entries_[id].ifname; }
  // Distinct entries in use.
  size_t size() const { return index_.size(); }

  // The RibRoute for `prefix` stored as `stored` by an origin of `protocol`.
  RibRoute Expand(const net::Prefix& prefix, const StoredRoute& stored, Symbol protocol,
                  uint16_t admin_distance) const {
    RibRoute r;
    r.network = prefix;
    r.nexthop = entries_[stored.nexthop].nexthop;
    r.ifname = entries_[stored.nexthop].ifname;
    r.metric = stored.metric;
    r.protocol = protocol;
    r.admin_distance = admin_distance;
    r.tags = stored.tags;
    return r;
  }

 private:
  struct Key {
    std::optional<net::IPAddress> nexthop;
    Symbol ifname;
    friend bool operator==(const Key&, const Key&) = default;
    template <typename H>
    friend H AbslHashValue(H h, const Key& k) {
      // Debian's abseil cannot hash std::optional.
      if (k.nexthop) return H::combine(std::move(h), true, *k.nexthop, k.ifname);
      return H::combine(std::move(h), false, k.ifname);
    }
  };
  struct Entry {
    std::optional<net::IPAddress> nexthop;
    Symbol ifname;
    uint32_t refs = 0;
  };
  std::vector<Entry> entries_;
  std::vector<uint32_t> free_;
  uint32_t last_ = 0;  // the entry Acquire returned last (checked before hashing)
  absl::flat_hash_map<Key, uint32_t> index_;
};

}  // namespace sluice::rib
