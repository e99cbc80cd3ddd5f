#pragma once
// What a route becomes when it is advertised to one peer (RFC 4271 §5.1, §9.1.3, §9.2; RFC 4456;
// RFC 1997; RFC 8212). Used by ExportFilter; pure apart from interning.
//
// Order of the checks and changes:
//   1. never back to the peer it came from;
//   2. NO_ADVERTISE: to nobody; NO_EXPORT, NO_EXPORT_SUBCONFED: not to external peers (RFC 1997);
//   3. iBGP split horizon: a route from an internal peer goes to an internal peer only when one
//      of the two is a route-reflector client (RFC 4456 §6);
//   4. RFC 8212: nothing to an external peer without an export policy (when switched on);
//   5. the export policy (BgpVarRW; to-neighbor is the peer), which may reject or change it;
//   6. towards internal peers: when reflecting, ORIGINATOR_ID (set to the advertising peer's BGP
//      Identifier if absent) and our cluster id prepended to CLUSTER_LIST (RFC 4456 §8);
//      LOCAL_PREF added when absent (RFC 4271 §5.1.5); the nexthop kept, or set to ours with
//      next-hop-self (and for originated routes without one);
//      towards external peers: our AS prepended once (§5.1.2); LOCAL_PREF, ORIGINATOR_ID and
//      CLUSTER_LIST removed; MULTI_EXIT_DISC removed when learnt from another AS (§5.1.4); the
//      nexthop set to our address, except a third-party nexthop (§5.1.3): kept when it and the
//      peer are both in the shared subnet. A nexthop or MED the policy wrote is kept.
// For one peer, step 6 depends only on the attributes, the source and what the policy wrote, so
// ExportMemo caches its result per attribute set; peers whose configurations agree on what step
// 6 reads (SameTransform) share one memo (ExportMemoPool).

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "bgp/stages/bgp_var_rw.h"
#include "bgp/stages/route.h"
#include "policy/filter.h"

namespace sluice::bgp {

struct ExportConfig {
  uint32_t peer_id = 0;    // the peer this branch feeds
  bool ibgp = false;       // the peer is internal
  bool rr_client = false;  // the peer is a route-reflector client of ours
  uint32_t local_as = 0;
  net::IPv4Address router_id;
  uint32_t cluster_id = 0;  // RFC 4456 (our router id unless configured)
  net::IPAddress peer_address;
  std::optional<net::IPAddress> self_v4;     // our nexthop for IPv4 routes towards the peer
  std::optional<net::IPAddress> self_v6;     // ... and for IPv6 routes
  bool next_hop_self = false;                // towards internal peers too
  std::optional<net::Prefix> shared_subnet;  // third-party nexthops towards external peers
  bool ebgp_requires_policy = true;          // RFC 8212
  uint32_t default_local_pref = 100;
  std::shared_ptr<const policy::Filter> filter;  // the export policy; null = none
};

// A cache of step 6 per (attribute set, source, policy writes): 1,024 direct-mapped slots. It
// holds references to the sets it caches. Not thread-safe; one per transform (ExportMemoPool)
// and family.
class ExportMemo {
 public:
  struct Slot {
    AttrRef in;
    const PeerSource* source = nullptr;
    uint32_t written = 0;
    AttrRef out;
  };
  Slot& Find(const AttrRef& in, const PeerSource* source, uint32_t written);
  uint64_t hits = 0, misses = 0;

 private:
  std::array<Slot, 1024> slots_;
};

// Whether step 6 makes the same set of the same input for peers of `a` and of `b`: their
// configurations agree on everything it reads (the peer's kind, our AS, cluster id, default
// LOCAL_PREF, next-hop-self, our nexthops, the shared subnet and, with one, the peer's address).
// The peer's id and export policy do not matter: the memo's key holds what the policy wrote.
bool SameTransform(const ExportConfig& a, const ExportConfig& b);

// The memos of the ExportFilters of one family on one thread, one per transform
// (SameTransform): the peers a change fans out to then find its exported set in one slot, warm
// from the first of them, instead of each in a memo of its own. Not thread-safe, like the memos.
class ExportMemoPool {
 public:
  // The memo of the peers whose step 6 is `config`'s; made when none of them holds one.
  std::shared_ptr<ExportMemo> For(const ExportConfig& config);
  size_t size() const { return memos_.size(); }  // transforms with a memo held (for tests)

 private:
  struct Entry {
    ExportConfig config;
    std::weak_ptr<ExportMemo> memo;
  };
  std::vector<Entry> memos_;
};

// The route as advertised to the peer of `config`, or nullopt when it is not advertised.
std::optional<BgpRoute> ExportRoute(const BgpRoute& route, const ExportConfig& config,
                                    AttributeStore* store, BgpVarRW& rw, ExportMemo* memo);

}  // namespace sluice::bgp
