#include "rib/merge_stage.h"

#include <algorithm>

namespace sluice::rib {

std::optional<RibRoute> MergeStage::BestOfOthers(const net::Prefix& prefix,
                                                 const RibStage* except) const {
  std::optional<RibRoute> best;
  for (RibStage* parent : parents_) {
    if (parent == except) continue;
    std::optional<RibRoute> r = parent->lookup_route(prefix);
    if (r && (!best || Preferred(*r, *best))) best = std::move(r);
  }
  return best;
}

void MergeStage::add_route(const RibRoute& route, RibStage* caller) {
  std::optional<RibRoute> others = BestOfOthers(route.network, caller);
  if (!others) {
    if (downstream_ != nullptr) downstream_->add_route(route, this);
  } else if (Preferred(route, *others)) {
    if (downstream_ != nullptr) downstream_->replace_route(*others, route, this);
  }
}

void MergeStage::delete_route(const RibRoute& route, RibStage* caller) {
  std::optional<RibRoute> others = BestOfOthers(route.network, caller);
  if (!others) {
    if (downstream_ != nullptr) downstream_->delete_route(route, this);
  } else if (Preferred(route, *others)) {
    if (downstream_ != nullptr) downstream_->replace_route(route, *others, this);
  }
}

void MergeStage::replace_route(const RibRoute& old_route, const RibRoute& new_route,
                               RibStage* caller) {
  std::optional<RibRoute> others = BestOfOthers(new_route.network, caller);
  const bool old_won = !others || Preferred(old_route, *others);
  const bool new_wins = !others || Preferred(new_route, *others);
  EmitChange(downstream_, this, old_won ? std::optional<RibRoute>(old_route) : others,
             new_wins ? std::optional<RibRoute>(new_route) : others);
}

void MergeStage::push(RibStage*) {
  if (downstream_ != nullptr) downstream_->push(this);
}

std::optional<RibRoute> MergeStage::lookup_route(const net::Prefix& prefix) const {
  return BestOfOthers(prefix, nullptr);
}

std::vector<const stage::StageBase*> MergeStage::upstream_stages() const {
  return {parents_.begin(), parents_.end()};
}

std::vector<const stage::StageBase*> MergeStage::downstream_stages() const {
  if (downstream_ == nullptr) return {};
  return {downstream_};
}

void MergeStage::ConnectUpstream(RibStage* upstream) {
  if (upstream != nullptr &&
      std::find(parents_.begin(), parents_.end(), upstream) == parents_.end()) {
    parents_.push_back(upstream);
  }
}

void MergeStage::DisconnectUpstream(RibStage* upstream) { std::erase(parents_, upstream); }

void MergeStage::DisconnectDownstream(RibStage* downstream) {
  if (downstream_ == downstream) downstream_ = nullptr;
}

void MergeStage::ReplaceUpstream(RibStage* old_stage, RibStage* new_stage) {
  std::replace(parents_.begin(), parents_.end(), old_stage, new_stage);
}

void MergeStage::ReplaceDownstream(RibStage* old_stage, RibStage* new_stage) {
  if (downstream_ == old_stage) downstream_ = new_stage;
}

}  // namespace sluice::rib
