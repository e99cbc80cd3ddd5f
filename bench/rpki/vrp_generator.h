#pragma once
// Validated ROA Payloads (VRPs) made up for a real BGP table, for route origin validation tests
// and benchmarks (RFC 6811): from the routes of one peer of an MRT capture, a deterministic
// (seeded) VRP set whose VRPs make some routes valid, some invalid for each of RFC 6811's
// reasons, and leave others not-found; written as the JSON file stayrtr serves
// ({"roas":[{"prefix":"192.0.2.0/24","maxLength":24,"asn":"AS64496"}, ...]}, rpki-client's
// shape). Also: rewriting N VRPs of such a set (a cache's VRPs changing), and the RFC 6811 state
// of every route against a set (bgp/rpki/route_origin.h), the oracle a validating speaker is
// compared with.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "bgp/replay/replay_feed.h"
#include "bgp/rpki/route_origin.h"
#include "net/prefix.h"

namespace sluice::bench::rpki {

using bgp::rpki::Vrp;

// A route as route origin validation sees it: its prefix and its Route Origin ASN (RFC 6811 §2;
// nullopt: NONE, the path ends in an AS_SET).
struct RouteOrigin {
  net::Prefix prefix;
  std::optional<uint32_t> origin;
};

// The unicast routes of `feed`'s final table in `family` (net::Family), sorted by prefix, with
// their origin as a peer sees them after the sender prepends `sender_as` (so an empty AS_PATH is
// originated by `sender_as`).
std::vector<RouteOrigin> RouteOrigins(const bgp::replay::PeerFeed& feed, net::Family family,
                                      uint32_t sender_as);

// The index of the peer of `capture` with the most unicast routes of `family` in its final
// table, and that count in `*routes` (0 and 0 without peers).
size_t BusiestPeer(const bgp::replay::Capture& capture, net::Family family, size_t* routes);

// What the generator does for one route; each route gets one kind.
enum class VrpKind {
  kExact,        // (prefix, length, origin): valid
  kWrongOrigin,  // (prefix, length, another AS): invalid
  kTooSpecific,  // a covering VRP for the origin with maxLength < the route's length: invalid
  kCovering,     // a covering VRP for the origin with maxLength >= the route's length: valid
  kAsZero,       // (prefix, length, AS 0), RFC 6483 §4: invalid
  kSeveral,      // the exact VRP and a wrong-origin one for the same prefix: valid
  kUncovered,    // no VRP made for it nor for its more specifics (a covering VRP made for
                 // another route may still cover it)
};
inline constexpr size_t kVrpKinds = 7;
const char* VrpKindName(VrpKind kind);  // "exact", "wrong-origin", ...

// Shares of the routes per kind, in percent; the rest (100 - sum) is left uncovered, and with
// them their more specifics.
struct VrpShares {
  int exact = 30;
  int wrong_origin = 8;
  int too_specific = 8;
  int covering = 10;
  int as_zero = 2;
  int several = 2;
};

struct GeneratedVrps {
  std::vector<Vrp> vrps;                      // distinct, in the order made
  std::array<size_t, kVrpKinds> routes{};     // routes given each kind (by VrpKind)
  std::array<size_t, kVrpKinds> vrps_made{};  // distinct VRPs each kind added
  size_t duplicates = 0;                      // VRPs made twice (counted once)
};

// The VRP set for `routes`, the same for the same routes, shares and seed. A route whose length
// leaves no room for a covering VRP (shorter than /9 for IPv4, /17 for IPv6) gets an exact VRP
// when it draws kTooSpecific or kCovering; a route whose origin is NONE gets a VRP for an
// arbitrary AS when it draws a kind that needs its origin.
GeneratedVrps GenerateVrps(const std::vector<RouteOrigin>& routes, const VrpShares& shares,
                           uint64_t seed);

struct RewriteCounts {
  size_t made_valid = 0;    // a VRP for a route's prefix now names its origin
  size_t made_invalid = 0;  // a VRP that named a route's origin now names another AS
  size_t other = 0;         // a VRP for no route's exact prefix: its AS changed
};

// Changes the AS of `n` VRPs of `vrps` (picked by `seed`, each at most once; all of them when
// n >= size), keeping them distinct: a VRP for the exact prefix of a route in `routes` flips
// between that route's origin and another AS; any other VRP gets another AS.
RewriteCounts RewriteVrps(std::vector<Vrp>* vrps, const std::vector<RouteOrigin>& routes, size_t n,
                          uint64_t seed);

// The JSON text stayrtr reads (one VRP per line).
std::string VrpJson(const std::vector<Vrp>& vrps);
// Reads that shape back (and rpki-client's, ignoring other members of each ROA).
// Errors: InvalidArgument naming the first ROA that has no prefix, maxLength or "ASn" asn, or
// whose values are malformed.
absl::StatusOr<std::vector<Vrp>> ParseVrpJson(absl::string_view text);

// The RFC 6811 §2 state of every route against `vrps`.
struct OracleStates {
  size_t valid = 0, invalid = 0, not_found = 0;
  std::vector<net::Prefix> invalid_prefixes;  // sorted
};
OracleStates Validate(const std::vector<Vrp>& vrps, const std::vector<RouteOrigin>& routes);

// What a change of VRPs does to what a validating speaker passes on (it rejects invalid routes):
// the prefixes that became invalid (withdrawn downstream) and those that stopped being invalid
// (announced again), each sorted.
struct InvalidCrossings {
  std::vector<net::Prefix> became_invalid;
  std::vector<net::Prefix> stopped_invalid;
};
InvalidCrossings CompareInvalid(const OracleStates& before, const OracleStates& after);

}  // namespace sluice::bench::rpki
