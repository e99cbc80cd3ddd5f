#pragma once
// The VRP set sluice-rpki serves: the union of what its RTR caches hold (RFC 8210 §5.6 IPv4 and
// IPv6 Prefix PDUs, announce and withdraw), with the net changes since they were last taken, for
// the subscribers of rpki/1.0 (rpki_client/1.0/vrp_changes).
//
// A VRP (RFC 6811 §2) is (prefix, maxLength, origin AS). Several caches may hold the same VRP;
// it is in the union while any of them does. A cache's VRPs all go at once when it is dropped
// (its data expired, RFC 8210 §6). Single-threaded: the RTR client's threads post to the loop.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "net/prefix.h"

namespace sluice::rpki {

struct Vrp {
  net::Prefix prefix;
  uint8_t max_length = 0;  // prefix.length() <= max_length <= the family's bits
  uint32_t asn = 0;

  friend bool operator==(const Vrp&, const Vrp&) = default;
  friend auto operator<=>(const Vrp&, const Vrp&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const Vrp& v) {
    return H::combine(std::move(h), v.prefix, v.max_length, v.asn);
  }
};

// The changes to the union between two TakeChanges calls, net: a VRP announced and withdrawn in
// between is in neither list.
struct VrpChanges {
  std::vector<Vrp> announced;
  std::vector<Vrp> withdrawn;
  bool empty() const { return announced.empty() && withdrawn.empty(); }
};

class VrpStore {
 public:
  using CacheId = uint32_t;

  // `cache` announced `vrp`. False (and nothing changes) when the VRP is malformed (maxLength
  // out of range) or the cache holds it already.
  bool Announce(CacheId cache, const Vrp& vrp);
  // `cache` withdrew `vrp`. False when the cache did not hold it.
  bool Withdraw(CacheId cache, const Vrp& vrp);
  // Everything `cache` holds goes (expiry, or the cache was removed); returns how many.
  size_t DropCache(CacheId cache);

  // The net changes to the union since the last call (while tracking).
  VrpChanges TakeChanges();
  // Whether changes are kept for TakeChanges (the default). Off, nothing is kept (no one would
  // take them: a new subscriber gets a Snapshot), which spares a large first load a second copy.
  void set_tracking(bool on);

  // The union, in (prefix, maxLength, AS) order.
  std::vector<Vrp> Snapshot() const;
  bool Contains(const Vrp& vrp) const { return holders_.contains(vrp); }
  size_t size_v4() const { return size_v4_; }
  size_t size_v6() const { return size_v6_; }
  size_t size() const { return size_v4_ + size_v6_; }
  // VRPs `cache` holds now.
  size_t CacheSize(CacheId cache) const;
  // Whether `cache` holds `vrp`.
  bool Holds(CacheId cache, const Vrp& vrp) const;
  // Every VRP `cache` holds, in no particular order.
  std::vector<Vrp> CacheVrps(CacheId cache) const;

 private:
  void Enter(const Vrp& vrp);
  void Leave(const Vrp& vrp);

  absl::flat_hash_map<Vrp, uint32_t> holders_;  // VRP → how many caches hold it
  absl::flat_hash_map<CacheId, absl::flat_hash_set<Vrp>> by_cache_;
  absl::flat_hash_map<Vrp, bool> pending_;  // VRP → true: announced, false: withdrawn
  size_t size_v4_ = 0;
  size_t size_v6_ = 0;
  bool tracking_ = true;
};

}  // namespace sluice::rpki
