#pragma once
// What sluice-bgp does with the VRPs sluice-rpki sends on rpki_client/1.0/vrp_changes (see
// ipc/proto/rpki_client.proto), batch after batch, into its OriginValidator — with the restart rule
// of DESIGN.md § Restarts: a dump (the batches marked `full` after a subscribe, from a new or the
// same sluice-rpki) only adds while it runs, and at its `dump_done` the VRPs it did not carry are
// withdrawn. So while sluice-rpki restarts, and while its new dump arrives, every VRP sluice-bgp
// had stays and no route changes state; afterwards only real differences do.
//
// Plan works out what a batch changes without changing the set, so that the validation stages
// can note the state of the routes it may change first; the caller then applies the delta
// (OriginValidator::Apply). Apply does both at once.

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "bgp/rpki/origin_validator.h"
#include "bgp/rpki/route_origin.h"

namespace sluice::bgp::rpki {

struct VrpBatch {
  uint64_t epoch = 0;  // sluice-rpki's, drawn at its start
  bool full = false;
  bool dump_done = false;
  std::vector<Vrp> announced;
  std::vector<Vrp> withdrawn;
  // The first batch of a dump: one sent again after a batch may have been lost starts afresh,
  // so what an unfinished earlier dump carried is swept unless this one carries it too.
  bool dump_start = false;
};

class VrpFeed {
 public:
  explicit VrpFeed(OriginValidator* set) : set_(set) {}

  // What one batch changes in the set, which stays as it is; the feed's own state (epoch, the
  // dump in progress) moves on, so the caller applies every delta it gets, in order. Errors
  // (nothing planned): InvalidArgument for a withdrawal inside a full batch;
  // FailedPrecondition for changes (not full) of an epoch other than the current dump's — a
  // batch of a process that is gone. Malformed VRPs (maxLength out of range) are skipped and
  // counted.
  absl::StatusOr<VrpDelta> Plan(const VrpBatch& batch);
  // Plan, then apply. Returns the delta.
  absl::StatusOr<VrpDelta> Apply(const VrpBatch& batch);

  std::optional<uint64_t> epoch() const { return epoch_; }
  bool dumping() const { return dumping_; }
  uint64_t malformed() const { return malformed_; }
  uint64_t swept() const { return swept_; }  // withdrawn at dump_done, over all dumps

 private:
  void Sweep(absl::flat_hash_map<Vrp, bool>* planned);

  OriginValidator* set_;
  std::optional<uint64_t> epoch_;
  bool dumping_ = false;
  absl::flat_hash_set<Vrp> carried_;  // by the dump in progress
  uint64_t malformed_ = 0;
  uint64_t swept_ = 0;
};

}  // namespace sluice::bgp::rpki
