#include "bgp/rpki/vrp_feed.h"

#include "absl/strings/str_cat.h"

namespace sluice::bgp::rpki {

absl::StatusOr<VrpDelta> VrpFeed::Plan(const VrpBatch& batch) {
  if (batch.full && !batch.withdrawn.empty()) {
    return absl::InvalidArgumentError("withdrawn: not allowed in a full (dump) batch");
  }
  if (!batch.full && epoch_ && batch.epoch != *epoch_) {
    return absl::FailedPreconditionError(
        absl::StrCat("changes of epoch ", batch.epoch, " after a dump of epoch ", *epoch_));
  }
  if (batch.full && (!dumping_ || batch.epoch != epoch_ || batch.dump_start)) {
    dumping_ = true;  // a dump starts: what it does not carry goes at its end
    carried_.clear();
  }
  epoch_ = batch.epoch;
  absl::flat_hash_map<Vrp, bool> planned;  // VRP → true: enters the set, false: leaves it
  for (const Vrp& v : batch.withdrawn) {
    if (auto it = planned.find(v); it != planned.end()) {
      if (it->second) planned.erase(it);  // announced earlier in this batch
    } else if (set_->Contains(v)) {
      planned[v] = false;
    }
  }
  for (const Vrp& v : batch.announced) {
    const bool malformed = v.max_length < v.prefix.length() || v.max_length > v.prefix.max_length();
    if (malformed) {
      ++malformed_;
      continue;
    }
    if (dumping_) carried_.insert(v);
    if (auto it = planned.find(v); it != planned.end()) {
      if (!it->second) planned.erase(it);  // withdrawn earlier in this batch: it stays
    } else if (!set_->Contains(v)) {
      planned[v] = true;
    }
  }
  if (batch.dump_done && dumping_) Sweep(&planned);
  VrpDelta delta;
  for (const auto& [v, enters] : planned) (enters ? delta.added : delta.removed).push_back(v);
  return delta;
}

absl::StatusOr<VrpDelta> VrpFeed::Apply(const VrpBatch& batch) {
  absl::StatusOr<VrpDelta> delta = Plan(batch);
  if (delta.ok()) set_->Apply(*delta);
  return delta;
}

void VrpFeed::Sweep(absl::flat_hash_map<Vrp, bool>* planned) {
  for (const Vrp& v : set_->All()) {
    if (carried_.contains(v) || planned->contains(v)) continue;
    (*planned)[v] = false;
    ++swept_;
  }
  dumping_ = false;
  carried_.clear();
}

}  // namespace sluice::bgp::rpki
