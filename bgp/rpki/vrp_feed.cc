#include "bgp/rpki/vrp_feed.h"

#include "absl/strings/str_cat.h"

namespace sluice::bgp::rpki {

absl::StatusOr<std::vector<Vrp>> VrpFeed::Apply(const VrpBatch& batch) {
  if (batch.full && !batch.withdrawn.empty()) {
    return absl::InvalidArgumentError("withdrawn: not allowed in a full (dump) batch");
  }
  if (!batch.full && epoch_ && batch.epoch != *epoch_) {
    return absl::FailedPreconditionError(
        absl::StrCat("changes of epoch ", batch.epoch, " after a dump of epoch ", *epoch_));
  }
  if (batch.full && (!dumping_ || batch.epoch != epoch_)) {
    dumping_ = true;  // a dump starts: what it does not carry goes at its end
    carried_.clear();
  }
  epoch_ = batch.epoch;
  std::vector<Vrp> changed;
  for (const Vrp& v : batch.withdrawn) {
    if (table_->Remove(v)) changed.push_back(v);
  }
  for (const Vrp& v : batch.announced) {
    const bool malformed = v.max_length < v.prefix.length() || v.max_length > v.prefix.max_length();
    if (malformed) {
      ++malformed_;
      continue;
    }
    if (dumping_) carried_.insert(v);
    if (table_->Add(v)) changed.push_back(v);
  }
  if (batch.dump_done && dumping_) {
    std::vector<Vrp> gone = Sweep();
    changed.insert(changed.end(), gone.begin(), gone.end());
  }
  return changed;
}

std::vector<Vrp> VrpFeed::Sweep() {
  std::vector<Vrp> gone;
  for (const Vrp& v : table_->All()) {
    if (!carried_.contains(v) && table_->Remove(v)) gone.push_back(v);
  }
  swept_ += gone.size();
  dumping_ = false;
  carried_.clear();
  return gone;
}

}  // namespace sluice::bgp::rpki
