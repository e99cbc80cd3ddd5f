#pragma once
// The route that flows through the BGP pipeline (DESIGN.md § Route stages, XORP NSDI'05 §5.1),
// and who it came from.
//
// BgpRoute is a small value (56 octets): the prefix, an AttrRef to the interned path attributes
// (bgp/wire/attribute_store.h), the PeerSource it was learnt from, its ADD-PATH path id, what
// the NexthopResolver found out about its nexthop (resolvable, IGP metric) and its RPKI state.
// Routes are stored only in PeerIn (the Adj-RIB-In) and in Deletion stages, as a 16-octet
// StoredRoute keyed by prefix in a trie; every other stage builds BgpRoute values on the fly and
// looks upstream when it needs one. Copying a route copies one AttrRef (an atomic increment).
//
// PeerSource describes one established session of a peer (or the router itself for locally
// originated routes). It is immutable: routes of an earlier session of the same peer (still
// being deleted in the background) keep the description they were learnt with, so the decision
// process compares them exactly as when they were announced downstream. PeerSourceRegistry
// owns the descriptions and hands out one pointer per distinct content; they live as long as the
// registry (a pipeline's routes never outlive it).

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bgp/rpki/rpki_state.h"
#include "bgp/wire/attribute_store.h"
#include "net/ip_address.h"
#include "net/prefix.h"
#include "net/prefix_map.h"

namespace sluice::bgp {

struct PeerSource {
  uint32_t peer_id = 0;     // stable per configured peer; 0 = this router (originated)
  std::string name;         // for display and traces ("192.0.2.1", "local")
  net::IPAddress address;   // the peer's transport address (RFC 4271 §9.1.2.2 g)
  net::IPv4Address bgp_id;  // the peer's BGP Identifier (§9.1.2.2 f)
  uint32_t remote_as = 0;   // the peer's AS
  bool ibgp = false;        // internal peer (same AS)
  bool rr_client = false;   // a route-reflector client of ours (RFC 4456)
  bool local = false;       // routes originated by this router

  friend bool operator==(const PeerSource&, const PeerSource&) = default;
};

// Owns PeerSource descriptions; Intern returns the same pointer for equal content. Thread-safe.
class PeerSourceRegistry {
 public:
  const PeerSource* Intern(const PeerSource& source);
  // The description of locally originated routes (peer_id 0, name "local").
  const PeerSource* Local();
  size_t size() const;

 private:
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<PeerSource>> sources_;
};

struct BgpRoute {
  // Flags.
  static constexpr uint8_t kResolved = 1;      // the nexthop is resolvable (NexthopResolver)
  static constexpr uint8_t kUnresolvable = 2;  // the nexthop is not resolvable (NexthopResolver)

  net::Prefix net;
  AttrRef attrs;
  const PeerSource* source = nullptr;
  uint32_t path_id = 0;     // RFC 7911 Path Identifier as received (0 without ADD-PATH)
  uint32_t igp_metric = 0;  // IGP cost to the nexthop when resolved (§9.1.2.2 e)
  uint8_t flags = 0;
  // RFC 6811 origin validation state, set by the OriginValidation stage before the import filter
  // (origin_validation.h); nullopt where no such stage runs (sluice-bgp without RPKI).
  std::optional<rpki::RpkiState> rpki;

  const net::Prefix& prefix() const { return net; }
  bool resolved() const { return (flags & kResolved) != 0; }
  // The route's nexthop for its family (NEXT_HOP or MP_REACH_NLRI), if any.
  std::optional<net::IPAddress> nexthop() const {
    if (!attrs) return std::nullopt;
    return attrs->NextHopFor(net.family());
  }
  // This route with `attrs` as its attribute set: one reference taken (copying the route and
  // then assigning would take and drop one more, each an atomic operation on a counter that other
  // threads touch too).
  BgpRoute WithAttributes(AttrRef attrs) const;
  // "10.0.0.0/8 from P1 [origin IGP as_path 1 2 next_hop 192.0.2.1] igp 10 resolved"
  std::string ToString() const;

  friend bool operator==(const BgpRoute&, const BgpRoute&) = default;
};

static_assert(sizeof(BgpRoute) == 56,
              "BgpRoute: 24 prefix + 8 attrs + 8 source + 4 + 4 + 1 + 2 (flags, rpki)");

// What PeerIn and Deletion stages store per prefix (the prefix is the trie key, the source is
// the table's). 16 octets.
struct StoredRoute {
  AttrRef attrs;
  uint32_t path_id = 0;
  uint32_t flags = 0;  // reserved (e.g. stale marks for graceful restart)
};

static_assert(sizeof(StoredRoute) == 16);

using RouteTable = net::PrefixMap<StoredRoute>;

inline BgpRoute MakeRoute(const net::Prefix& prefix, const StoredRoute& stored,
                          const PeerSource* source) {
  return BgpRoute{prefix, stored.attrs, source, stored.path_id, 0, 0, std::nullopt};
}

}  // namespace sluice::bgp
