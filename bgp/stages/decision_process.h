#pragma once
// The BGP decision process over a set of candidate routes for one prefix (RFC 4271 §9.1.2,
// with RFC 4456 §9 for route reflection). Pure functions, so that every
// tie-break can be tested on its own (tests/bgp/stages_decision_test.cc).
//
// SelectBest applies the steps in order, each keeping only the routes that are best by it
// (RFC 4271 §9.1.2.2 is written as a sequence of eliminations over the whole set, which matters
// for MED: it only compares routes from the same neighbouring AS, so it is not a total order):
//   0. routes whose nexthop is not resolvable are out (§9.1.2.1); routes originated by this
//      router are preferred to learnt ones (they have no peer to compare);
//   1. highest degree of preference: LOCAL_PREF, 100 when absent (§9.1.1; routes from external
//      peers carry none unless import policy set one);
//   2. shortest AS_PATH (§9.1.2.2 a: an AS_SET counts 1, confederation segments 0);
//   3. lowest ORIGIN (IGP < EGP < INCOMPLETE) (b);
//   4. lowest MULTI_EXIT_DISC among routes with the same neighbouring AS — the first AS of the
//      path; an absent MED counts as 0 — or among all routes with always_compare_med (c);
//   5. routes from external peers over routes from internal peers (d);
//   6. lowest IGP cost to the nexthop (e);
//   7. lowest BGP Identifier of the advertising router — the ORIGINATOR_ID when present
//      (RFC 4456 §9) (f);
//   8. shortest CLUSTER_LIST (RFC 4456 §9);
//   9. lowest peer address (g);
//  10. (determinism) lowest peer id, then lowest path id.

#include <cstdint>
#include <span>
#include <string_view>

#include "bgp/stages/route.h"

namespace sluice::bgp {

struct DecisionOptions {
  bool always_compare_med = false;
  uint32_t default_local_pref = 100;
};

// The step names, for tests and `show`: "resolvable", "local", "local-pref", "as-path",
// "origin", "med", "ebgp", "igp-metric", "bgp-id", "cluster-list", "peer-address", "peer-id".
enum class DecisionStep : uint8_t {
  kResolvable,
  kLocal,
  kLocalPref,
  kAsPath,
  kOrigin,
  kMed,
  kEbgp,
  kIgpMetric,
  kBgpId,
  kClusterList,
  kPeerAddress,
  kPeerId,
};
std::string_view DecisionStepName(DecisionStep step);

struct Selection {
  int best = -1;  // index into the candidates; -1 when none is eligible
  // The step that left only one candidate (kResolvable when there was a single eligible one
  // from the start, or none).
  DecisionStep decided_by = DecisionStep::kResolvable;
};

Selection SelectBest(std::span<const BgpRoute* const> candidates, const DecisionOptions& options);

// Steps 0 to 3 of SelectBest (eligibility, local, LOCAL_PREF, AS_PATH length, ORIGIN) as one
// number, lower better: the candidates SelectBest keeps up to the MED step are exactly those of
// the lowest rank. So a route ranked strictly above the winner changes nothing by arriving or
// leaving (MED and the later steps only look at the lowest-ranked set, which it is not in), and
// a route ranked strictly below every other is the winner. Ineligible routes (no attributes, no
// source, nexthop not resolved) share the highest rank. At most kRankBits bits.
inline constexpr int kRankBits = 56;
uint64_t RankBeforeMed(const BgpRoute& route, const DecisionOptions& options);

}  // namespace sluice::bgp
