#pragma once
// OriginValidator: sluice-bgp's VRP set (a VrpTable) as every copy of the pipeline reads it —
// the OriginValidation stages of the serial pipeline and of each shard — and as the feed from
// sluice-rpki changes it. Thread-safe: a reader/writer lock around the table; validations
// (VrpTable::Validate, const and pin-free) share it, changes and walks take it alone.
//
// A change comes as a VrpDelta, worked out before it is applied (VrpFeed::Plan) so that the
// stages can note the state of every route it may change first (origin_validation.h).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "bgp/rpki/route_origin.h"
#include "bgp/wire/path_attributes.h"

namespace sluice::bgp::rpki {

// VRPs that enter and leave the set; none is in both lists, each changes the set.
struct VrpDelta {
  std::vector<Vrp> added;
  std::vector<Vrp> removed;
  bool empty() const { return added.empty() && removed.empty(); }
  size_t size() const { return added.size() + removed.size(); }
};

class OriginValidator {
 public:
  // RFC 6811 §2 for a route to `prefix` with `attrs` (its Route Origin ASN from the AS_PATH;
  // `local_as` for an empty or absent path, RouteOriginAs).
  RpkiState Validate(const net::Prefix& prefix, const PathAttributes* attrs,
                     uint32_t local_as) const;
  RpkiState Validate(const net::Prefix& prefix, std::optional<uint32_t> origin) const;

  bool Contains(const Vrp& vrp) const;
  std::vector<Vrp> All() const;
  void Apply(const VrpDelta& delta);

  size_t size() const { return size_.load(std::memory_order_relaxed); }
  size_t size_v4() const;
  size_t size_v6() const;

 private:
  mutable absl::Mutex mu_;
  VrpTable table_ ABSL_GUARDED_BY(mu_);
  std::atomic<size_t> size_{0};
};

}  // namespace sluice::bgp::rpki
