#pragma once
// What sluice-bgp does with the VRPs sluice-rpki sends on rpki_client/1.0/vrp_changes (see
// ipc/proto/rpki_client.proto), batch after batch, into its VrpTable — with the restart rule of
// DESIGN.md § Restarts: a dump (the batches marked `full` after a subscribe, from a new or the
// same sluice-rpki) only adds while it runs, and at its `dump_done` the VRPs it did not carry are
// withdrawn. So while sluice-rpki restarts, and while its new dump arrives, every VRP sluice-bgp
// had stays and no route changes state; afterwards only real differences do.
//
// Each Apply returns the VRPs whose presence changed, for the re-validation of the routes they
// cover.

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "bgp/rpki/route_origin.h"

namespace sluice::bgp::rpki {

struct VrpBatch {
  uint64_t epoch = 0;  // sluice-rpki's, drawn at its start
  bool full = false;
  bool dump_done = false;
  std::vector<Vrp> announced;
  std::vector<Vrp> withdrawn;
};

class VrpFeed {
 public:
  explicit VrpFeed(VrpTable* table) : table_(table) {}

  // Applies one batch; returns the VRPs added or removed. Errors (nothing applied):
  // InvalidArgument for a withdrawal inside a full batch; FailedPrecondition for changes
  // (not full) of an epoch other than the current dump's — a batch of a process that is gone.
  // Malformed VRPs (maxLength out of range) are skipped and counted.
  absl::StatusOr<std::vector<Vrp>> Apply(const VrpBatch& batch);

  std::optional<uint64_t> epoch() const { return epoch_; }
  bool dumping() const { return dumping_; }
  uint64_t malformed() const { return malformed_; }
  uint64_t swept() const { return swept_; }  // withdrawn at dump_done, over all dumps

 private:
  std::vector<Vrp> Sweep();

  VrpTable* table_;
  std::optional<uint64_t> epoch_;
  bool dumping_ = false;
  absl::flat_hash_set<Vrp> carried_;  // by the dump in progress
  uint64_t malformed_ = 0;
  uint64_t swept_ = 0;
};

}  // namespace sluice::bgp::rpki
