#include "rib/origin_stage.h"

#include "absl/strings/str_cat.h"

namespace sluice::rib {

OriginStage::OriginStage(std::string name, Symbol protocol, ProtocolClass protocol_class,
                         uint16_t admin_distance, NexthopTable* nexthops,
                         boost::asio::io_context& io)
    : RibLinearStage(std::move(name)),
      protocol_(protocol),
      class_(protocol_class),
      admin_distance_(admin_distance),
      nexthops_(nexthops),
      table_(std::make_unique<net::PrefixMap<StoredRoute>>()),
      walk_(io, this->name() + " admin distance", [this] { return WalkSlice(); }) {}

// The network's NexthopTable may already be gone: stages are destroyed with the whole network.
OriginStage::~OriginStage() = default;

std::string OriginStage::Status() const {
  std::string s = absl::StrCat("routes=", table_->size(), " ", ProtocolClassName(class_),
                               " ad=", admin_distance_);
  if (walking_) absl::StrAppend(&s, " (was ", old_distance_, ")");
  return s;
}

uint16_t OriginStage::DistanceFor(const net::Prefix& prefix) const {
  if (walking_ && (!walk_cursor_ || *walk_cursor_ < prefix)) return old_distance_;
  return admin_distance_;
}

OriginStage::Change OriginStage::Add(const net::Prefix& prefix,
                                     const std::optional<net::IPAddress>& nexthop, Symbol ifname,
                                     uint32_t metric, TagSet tags) {
  const uint32_t nh = nexthops_->Acquire(nexthop, ifname);
  const StoredRoute fresh{nh, metric, tags};
  const uint16_t distance = DistanceFor(prefix);
  // One descent of the trie: insert, or find what is there.
  auto [it, added] = table_->insert(prefix, fresh);
  if (added) {
    if (downstream_ != nullptr) {
      downstream_->add_route(nexthops_->Expand(prefix, fresh, protocol_, distance), this);
    }
    return Change::kAdded;
  }
  StoredRoute& stored = *it;
  if (stored.nexthop == nh && stored.metric == metric && stored.tags == tags) {
    nexthops_->Release(nh);
    return Change::kUnchanged;
  }
  const StoredRoute old = stored;
  stored = fresh;
  if (downstream_ != nullptr) {
    downstream_->replace_route(nexthops_->Expand(prefix, old, protocol_, distance),
                               nexthops_->Expand(prefix, fresh, protocol_, distance), this);
  }
  nexthops_->Release(old.nexthop);
  return Change::kReplaced;
}

bool OriginStage::Delete(const net::Prefix& prefix) {
  const StoredRoute* stored = table_->find_value(prefix);
  if (stored == nullptr) return false;
  const StoredRoute old = *stored;
  table_->erase(prefix);
  if (downstream_ != nullptr) {
    downstream_->delete_route(nexthops_->Expand(prefix, old, protocol_, DistanceFor(prefix)), this);
  }
  nexthops_->Release(old.nexthop);
  return true;
}

void OriginStage::Push() {
  if (downstream_ != nullptr) downstream_->push(this);
}

std::optional<RibRoute> OriginStage::Find(const net::Prefix& prefix) const {
  const StoredRoute* stored = table_->find_value(prefix);
  if (stored == nullptr) return std::nullopt;
  return nexthops_->Expand(prefix, *stored, protocol_, DistanceFor(prefix));
}

std::optional<RibRoute> OriginStage::lookup_route(const net::Prefix& prefix) const {
  return Find(prefix);
}

void OriginStage::SetAdminDistance(uint16_t admin_distance) {
  if (walking_) {
    while (WalkSlice()) {
    }
    walk_.Cancel();
  }
  if (admin_distance == admin_distance_) return;
  old_distance_ = admin_distance_;
  admin_distance_ = admin_distance;
  if (table_->empty()) return;
  walking_ = true;
  walk_cursor_.reset();
  walk_.Start();
}

bool OriginStage::WalkSlice() {
  if (!walking_) return false;
  stage::SliceBudget budget;
  auto it = walk_cursor_ ? table_->lower_bound(*walk_cursor_) : table_->begin();
  if (walk_cursor_ && it != table_->end() && it.key() == *walk_cursor_) ++it;
  bool more = true;
  while (true) {
    if (it == table_->end()) {
      more = false;
      break;
    }
    const net::Prefix prefix = it.key();
    const StoredRoute stored = *it;
    walk_cursor_ = prefix;
    if (downstream_ != nullptr) {
      downstream_->replace_route(nexthops_->Expand(prefix, stored, protocol_, old_distance_),
                                 nexthops_->Expand(prefix, stored, protocol_, admin_distance_),
                                 this);
    }
    ++it;
    if (budget.Exhausted()) break;
  }
  if (!more) {
    walking_ = false;
    walk_cursor_.reset();
  }
  if (downstream_ != nullptr) downstream_->push(this);
  return more;
}

std::unique_ptr<net::PrefixMap<StoredRoute>> OriginStage::HandOver() {
  if (walking_) {
    while (WalkSlice()) {
    }
    walk_.Cancel();
  }
  auto table = std::move(table_);
  table_ = std::make_unique<net::PrefixMap<StoredRoute>>();
  return table;
}

}  // namespace sluice::rib
