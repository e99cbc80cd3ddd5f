#pragma once
// HeldRoutes: the prefixes a receive-only sluice-replay session holds from its peer, with the
// stale marks of a graceful restart helper (RFC 4724 §4.2). When the peer's session drops
// without a Hard Reset, what it had announced is kept, marked stale; what the peer announces
// again after it comes back loses the mark; its End-of-RIB for a family (or the end of its
// restart time) removes what is still stale. Unicast families only, as sluice-replay offers.

#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "bgp/wire/constants.h"
#include "net/prefix.h"

namespace sluice::bgp::replay {

class HeldRoutes {
 public:
  // The peer announced `prefix`: held, and no longer stale. True when the held set grew.
  bool Announce(const net::Prefix& prefix);
  // The peer withdrew `prefix`. True when it was held.
  bool Withdraw(const net::Prefix& prefix);
  // The session dropped and graceful restart applies to `families`: their routes become
  // stale; those of other families are removed. Returns the number removed.
  uint64_t MarkStale(AfiSafiSet families);
  // Removes the stale routes of `families` (End-of-RIB, or the peer came back without the
  // forwarding state of those families). Returns the number removed.
  uint64_t Sweep(AfiSafiSet families);
  // Removes everything (the session dropped without graceful restart). Returns the number.
  uint64_t Clear();

  uint64_t size() const { return routes_.size(); }
  uint64_t stale() const { return stale_; }

  static AfiSafi FamilyOf(const net::Prefix& prefix) {
    return prefix.is_v4() ? kIPv4Unicast : kIPv6Unicast;
  }

 private:
  absl::flat_hash_map<net::Prefix, bool> routes_;  // prefix -> stale
  uint64_t stale_ = 0;
};

}  // namespace sluice::bgp::replay
