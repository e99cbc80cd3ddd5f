#include "bgp/stages/decision.h"

#include <algorithm>
#include <bit>

#include "absl/strings/str_cat.h"

namespace sluice::bgp {

Decision::Decision(std::string name, DecisionOptions options)
    : BgpStage(std::move(name)), options_(options) {}

std::string Decision::Status() const {
  std::string s = absl::StrCat("loc-rib=", routes_, " parents=", parent_count());
  if (indexing_) absl::StrAppend(&s, " indexed=", holders_.size());
  return s;
}

std::vector<const stage::StageBase*> Decision::upstream_stages() const {
  std::vector<const stage::StageBase*> out;
  for (BgpStage* parent : slots_) {
    if (parent != nullptr) out.push_back(parent);
  }
  return out;
}

std::vector<const stage::StageBase*> Decision::downstream_stages() const {
  if (downstream_ == nullptr) return {};
  return {downstream_};
}

size_t Decision::parent_count() const {
  return slots_.size() - std::count(slots_.begin(), slots_.end(), nullptr);
}

void Decision::ConnectUpstream(BgpStage* s) {
  if (std::find(slots_.begin(), slots_.end(), s) != slots_.end()) return;
  auto hole = std::find(slots_.begin(), slots_.end(), nullptr);
  if (hole != slots_.end()) {
    *hole = s;
  } else {
    slots_.push_back(s);
  }
  UpdateIndexing();
}

void Decision::DisconnectUpstream(BgpStage* s) {
  std::replace(slots_.begin(), slots_.end(), s, static_cast<BgpStage*>(nullptr));
  while (!slots_.empty() && slots_.back() == nullptr) slots_.pop_back();
  UpdateIndexing();
}

void Decision::ReplaceUpstream(BgpStage* old_stage, BgpStage* new_stage) {
  std::replace(slots_.begin(), slots_.end(), old_stage, new_stage);
}

void Decision::UpdateIndexing() {
  indexing_ = parent_count() >= kIndexFromParents;
  if (!indexing_) holders_ = {};  // frees the table
}

uint64_t Decision::Ask(const net::Prefix& prefix, const BgpStage* skip, Routes* out) const {
  uint64_t answered = 0;
  auto ask = [&](size_t slot) {
    BgpStage* parent = slots_[slot];
    if (parent == nullptr || parent == skip) return;
    if (std::optional<BgpRoute> r = parent->lookup_route(prefix)) {
      out->push_back(std::move(*r));
      answered |= SlotBit(slot);
    }
  };
  auto known = indexing_ ? holders_.find(prefix) : holders_.end();
  if (known == holders_.end()) {
    for (size_t slot = 0; slot < slots_.size(); ++slot) ask(slot);
    return answered;
  }
  for (uint64_t m = known->second; m != 0; m &= m - 1) {
    const size_t slot = static_cast<size_t>(std::countr_zero(m));
    if (slot < slots_.size()) ask(slot);
  }
  for (size_t slot = kMaskSlots; slot < slots_.size(); ++slot) ask(slot);
  return answered;
}

void Decision::Remember(const net::Prefix& prefix, uint64_t holders) const {
  if (!indexing_) return;
  if (holders == 0) {
    holders_.erase(prefix);
  } else {
    holders_.insert_or_assign(prefix, holders);
  }
}

void Decision::Decide(BgpStage* caller, const BgpRoute* old_route, const BgpRoute* new_route) {
  const net::Prefix& prefix = old_route != nullptr ? old_route->net : new_route->net;
  Routes alternatives;
  uint64_t holders = Ask(prefix, caller, &alternatives);
  if (new_route != nullptr) {
    auto slot = std::find(slots_.begin(), slots_.end(), caller);
    if (slot != slots_.end()) holders |= SlotBit(static_cast<size_t>(slot - slots_.begin()));
  }
  Remember(prefix, holders);
  absl::InlinedVector<const BgpRoute*, 8> candidates;
  for (const BgpRoute& r : alternatives) candidates.push_back(&r);
  candidates.push_back(old_route);
  const Selection before = SelectBest(candidates, options_);
  const BgpRoute* old_best = before.best >= 0 ? candidates[before.best] : nullptr;
  candidates.back() = new_route;
  const Selection after = SelectBest(candidates, options_);
  const BgpRoute* new_best = after.best >= 0 ? candidates[after.best] : nullptr;
  if (old_best == nullptr && new_best == nullptr) return;
  if (old_best != nullptr && new_best != nullptr && *old_best == *new_best) return;
  if (old_best == nullptr) ++routes_;
  if (new_best == nullptr) --routes_;
  if (downstream_ == nullptr) return;
  if (old_best != nullptr && new_best != nullptr) {
    downstream_->replace_route(*old_best, *new_best, this);
  } else if (old_best != nullptr) {
    downstream_->delete_route(*old_best, this);
  } else {
    downstream_->add_route(*new_best, this);
  }
}

void Decision::add_route(const BgpRoute& route, BgpStage* caller) {
  Decide(caller, nullptr, &route);
}

void Decision::delete_route(const BgpRoute& route, BgpStage* caller) {
  Decide(caller, &route, nullptr);
}

void Decision::replace_route(const BgpRoute& old_route, const BgpRoute& new_route,
                             BgpStage* caller) {
  Decide(caller, &old_route, &new_route);
}

void Decision::push(BgpStage*) {
  if (downstream_ != nullptr) downstream_->push(this);
}

std::optional<BgpRoute> Decision::lookup_route(const net::Prefix& prefix) const {
  Routes routes;
  Remember(prefix, Ask(prefix, nullptr, &routes));
  if (routes.empty()) return std::nullopt;
  absl::InlinedVector<const BgpRoute*, 8> candidates;
  for (const BgpRoute& r : routes) candidates.push_back(&r);
  const Selection sel = SelectBest(candidates, options_);
  if (sel.best < 0) return std::nullopt;
  return routes[sel.best];
}

std::vector<BgpRoute> Decision::Candidates(const net::Prefix& prefix) const {
  Routes routes;
  Ask(prefix, nullptr, &routes);
  return {std::make_move_iterator(routes.begin()), std::make_move_iterator(routes.end())};
}

}  // namespace sluice::bgp
