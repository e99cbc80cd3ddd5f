#include "bgp/stages/deletion_stage.h"

#include "absl/strings/str_cat.h"

namespace sluice::bgp {

DeletionStage::DeletionStage(std::string name, stage::Plumber* plumber, RouteTableSet* tables,
                             std::unique_ptr<RouteTable> table, const PeerSource* source,
                             uint8_t route_flags, size_t slice, std::function<void()> on_done)
    : BgpLinearStage(name),
      plumber_(plumber),
      tables_(tables),
      table_(std::move(table)),
      source_(source),
      route_flags_(route_flags),
      slice_(slice),
      on_done_(std::move(on_done)),
      task_(plumber->io(), name, [this] { return Slice(); }) {
  set_dynamic(true);
  // The table is already in `tables` (PeerIn registered it); it stays there until deleted.
}

// See ~PeerIn: the table set may be gone already.
DeletionStage::~DeletionStage() = default;

std::string DeletionStage::Status() const {
  return absl::StrCat(started_ ? "" : "held (stale) ", "remaining=", table_->size(),
                      " deleted=", deleted_);
}

void DeletionStage::Start() {
  if (started_) return;
  started_ = true;
  task_.Start();
}

void DeletionStage::add_route(const BgpRoute& route, BgpStage* caller) {
  if (!finished_) {
    auto it = table_->find(route.prefix());
    if (it != table_->end()) {
      BgpRoute old_route = Make(it.key(), *it);
      table_->erase(it);
      if (!started_) {
        // A stale route replaced by its restarted peer: never withdrawn.
        BgpLinearStage::replace_route(old_route, route, caller);
        return;
      }
      ++deleted_;
      if (downstream_ != nullptr) downstream_->delete_route(old_route, this);
    }
  }
  BgpLinearStage::add_route(route, caller);
}

std::optional<BgpRoute> DeletionStage::lookup_route(const net::Prefix& prefix) const {
  if (const StoredRoute* stored = table_->find_value(prefix)) {
    return Make(prefix, *stored);
  }
  return BgpLinearStage::lookup_route(prefix);
}

bool DeletionStage::Slice() {
  if (finished_) return false;
  stage::SliceBudget budget(slice_);
  while (!table_->empty()) {
    auto it = table_->begin();
    BgpRoute old_route = Make(it.key(), *it);
    table_->erase(it);
    ++deleted_;
    if (downstream_ != nullptr) downstream_->delete_route(old_route, this);
    if (budget.Exhausted()) break;
  }
  if (downstream_ != nullptr) downstream_->push(this);
  if (!table_->empty()) return true;
  finished_ = true;
  tables_->Remove(table_.get());
  std::function<void()> on_done = std::move(on_done_);
  plumber_->SpliceOut<BgpRoute>(this);  // destroyed after this event
  if (on_done) on_done();
  return false;
}

}  // namespace sluice::bgp
