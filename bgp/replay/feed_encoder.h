#pragma once
// FeedEncoder: turns a PeerFeed into the bytes sluice-replay writes to its socket — UPDATEs
// packed with UpdateEncoder for the session's parameters, after rewriting the attributes as a
// speaker passing the routes on would (own AS prepended, NEXT_HOP rewritten, iBGP-only
// attributes removed towards an eBGP peer).

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "bgp/replay/replay_feed.h"
#include "bgp/wire/session_params.h"
#include "bgp/wire/update_encoder.h"

namespace sluice::bgp::replay {

struct RewriteOptions {
  uint32_t local_as = 0;
  bool external = true;         // eBGP: LOCAL_PREF, ORIGINATOR_ID and CLUSTER_LIST are removed
  bool prepend_own_as = false;  // RFC 4271 §5.1.2: own AS as the leftmost AS_PATH element
  std::optional<net::IPv4Address> next_hop4;  // NEXT_HOP (and IPv4 MP nexthops) to set
  std::optional<net::IPv6Address> next_hop6;  // IPv6 MP nexthop to set (link-local dropped)
  // Path variant K >= 0 (with prepend_own_as): each prefix gets our AS prepended
  // (PrefixHash(prefix) + K) % kPathVariants more times, so that kPathVariants upstreams with
  // variants 0..kPathVariants-1 offer every prefix paths of distinct lengths, and each upstream
  // has the shortest one for about 1/kPathVariants of the prefixes (a deterministic, table-wide
  // mix of best paths for convergence benchmarks). < 0: off.
  int path_variant = -1;
};

inline constexpr int kPathVariants = 4;

// A hash of a prefix that is the same in every process and build (FNV-1a over its bits and
// length), for choices that several sluice-replay processes must agree on.
uint64_t PrefixHash(const net::Prefix& prefix);

// Encoded messages plus marks for progress and pacing.
struct EncodedStream {
  struct Mark {
    size_t end = 0;            // octets of `bytes` up to and including this step
    uint64_t prefixes = 0;     // announcements up to here
    uint64_t withdrawals = 0;  // withdrawals up to here
    uint64_t time_us = 0;      // capture time of this step (pacing)
  };
  std::vector<uint8_t> bytes;
  std::vector<Mark> marks;
  uint64_t messages = 0;
  uint64_t skipped = 0;  // NLRI not sent: family not negotiated, or no usable nexthop

  uint64_t prefixes() const { return marks.empty() ? 0 : marks.back().prefixes; }
  uint64_t withdrawals() const { return marks.empty() ? 0 : marks.back().withdrawals; }
};

class FeedEncoder {
 public:
  FeedEncoder(const SessionParams& params, const RewriteOptions& rewrite, AttributeStore* store);

  // Each captured UPDATE of `feed` as it came (one or more messages each), in order.
  void EncodeMessages(const PeerFeed& feed, EncodedStream* out);
  // The routes of `table`, grouped by attribute set, each group packed into as few UPDATEs as
  // fit (the fewest messages for a table).
  void EncodeTable(const std::vector<Route>& table, EncodedStream* out);
  // Withdrawals of every route of `table`.
  void EncodeWithdrawAll(const std::vector<Route>& table, EncodedStream* out);
  // End-of-RIB for each negotiated family.
  void EncodeEndOfRib(EncodedStream* out);

 private:
  // The rewritten set for `original` with `extra` more prepends of our AS (cached per pair).
  const PathAttributes* Rewrite(const AttrRef& original, int extra = 0);
  // Extra prepends of `n` under the path variant (0 when off).
  int ExtraPrepends(const Nlri& n) const;
  // Append() per group of equal ExtraPrepends (one group when the path variant is off).
  void AppendVariants(const AttrRef& original, const std::vector<Nlri>& announce,
                      const std::vector<Nlri>& withdraw, uint64_t time_us, EncodedStream* out);
  bool Sendable(const Nlri& n, const PathAttributes* attrs) const;
  void Append(const PathAttributes* attrs, const std::vector<Nlri>& announce,
              const std::vector<Nlri>& withdraw, uint64_t time_us, EncodedStream* out);

  SessionParams params_;
  RewriteOptions rewrite_;
  AttributeStore* store_;
  UpdateEncoder encoder_;
  absl::flat_hash_map<std::pair<const PathAttributes*, int>, AttrRef> rewritten_;
  std::vector<Nlri> announce_, withdraw_;  // scratch
};

}  // namespace sluice::bgp::replay
