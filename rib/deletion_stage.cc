#include "rib/deletion_stage.h"

#include "absl/strings/str_cat.h"

namespace sluice::rib {

DeletionStage::DeletionStage(std::string name, std::unique_ptr<net::PrefixMap<StoredRoute>> table,
                             Symbol protocol, ProtocolClass protocol_class, uint16_t admin_distance,
                             NexthopTable* nexthops, boost::asio::io_context& io,
                             std::function<void(DeletionStage*)> on_done)
    : RibLinearStage(std::move(name)),
      table_(std::move(table)),
      protocol_(protocol),
      class_(protocol_class),
      admin_distance_(admin_distance),
      nexthops_(nexthops),
      on_done_(std::move(on_done)),
      task_(
          io, this->name(), [this] { return Slice(); },
          [this] {
            if (on_done_) on_done_(this);
          }) {
  set_dynamic(true);
}

std::string DeletionStage::Status() const {
  return absl::StrCat(started_ ? "" : "stale ", "remaining=", table_->size(),
                      " withdrawn=", withdrawn_, " refreshed=", refreshed_);
}

void DeletionStage::Start() {
  if (started_) return;
  started_ = true;
  task_.Start();
}

bool DeletionStage::Slice() {
  stage::SliceBudget budget;
  auto it = table_->begin();
  while (it != table_->end()) {
    const net::Prefix prefix = it.key();
    const StoredRoute stored = *it;
    it = table_->erase(it);
    ++withdrawn_;
    if (downstream_ != nullptr) {
      downstream_->delete_route(nexthops_->Expand(prefix, stored, protocol_, admin_distance_),
                                this);
    }
    nexthops_->Release(stored.nexthop);
    if (budget.Exhausted()) break;
  }
  if (downstream_ != nullptr) downstream_->push(this);
  return !table_->empty();
}

void DeletionStage::add_route(const RibRoute& route, RibStage* caller) {
  const StoredRoute* stored = table_->find_value(route.network);
  if (stored == nullptr) return RibLinearStage::add_route(route, caller);
  const StoredRoute old = *stored;
  table_->erase(route.network);
  RibRoute old_route = nexthops_->Expand(route.network, old, protocol_, admin_distance_);
  if (old_route == route) {
    ++refreshed_;  // downstream already has exactly this route
  } else {
    ++withdrawn_;
    if (downstream_ != nullptr) downstream_->replace_route(old_route, route, this);
  }
  nexthops_->Release(old.nexthop);
}

void DeletionStage::delete_route(const RibRoute& route, RibStage* caller) {
  RibLinearStage::delete_route(route, caller);
}

void DeletionStage::replace_route(const RibRoute& old_route, const RibRoute& new_route,
                                  RibStage* caller) {
  RibLinearStage::replace_route(old_route, new_route, caller);
}

std::optional<RibRoute> DeletionStage::lookup_route(const net::Prefix& prefix) const {
  const StoredRoute* stored = table_->find_value(prefix);
  if (stored != nullptr) return nexthops_->Expand(prefix, *stored, protocol_, admin_distance_);
  return RibLinearStage::lookup_route(prefix);
}

}  // namespace sluice::rib
