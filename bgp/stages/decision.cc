#include "bgp/stages/decision.h"

#include <algorithm>
#include <bit>

#include "absl/strings/str_cat.h"

namespace sluice::bgp {

Decision::Decision(std::string name, DecisionOptions options)
    : BgpStage(std::move(name)), options_(options) {}

std::string Decision::Status() const {
  std::string s = absl::StrCat("loc-rib=", routes_, " parents=", parent_count());
  if (indexing_) {
    absl::StrAppend(&s, " indexed=", holders_.size(), complete_ ? " complete" : "",
                    " decided-from-winner=", decided_from_winner_,
                    " looked-up-from-winner=", looked_up_from_winner_);
  }
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
  const bool was_indexing = indexing_;
  indexing_ = parent_count() >= kIndexFromParents;
  if (!indexing_) {
    holders_.Clear();
    complete_ = false;
  } else if (!was_indexing) {
    complete_ = held_ == 0;
  }
}

size_t Decision::SlotOf(const BgpStage* parent) const {
  return static_cast<size_t>(std::find(slots_.begin(), slots_.end(), parent) - slots_.begin());
}

uint64_t Decision::Ask(const net::Prefix& prefix, const BgpStage* skip, Routes* out,
                       Slots* slots) const {
  uint64_t answered = 0;
  auto ask = [&](size_t slot) {
    BgpStage* parent = slots_[slot];
    if (parent == nullptr || parent == skip) return;
    if (std::optional<BgpRoute> r = parent->lookup_route(prefix)) {
      out->push_back(std::move(*r));
      if (slots != nullptr) slots->push_back(slot);
      answered |= SlotBit(slot);
    }
  };
  const Known* known = indexing_ ? holders_.Find(prefix) : nullptr;
  if (known == nullptr) {
    for (size_t slot = complete_ ? kMaskSlots : 0; slot < slots_.size(); ++slot) ask(slot);
    return answered;
  }
  for (uint64_t m = known->holders; m != 0; m &= m - 1) {
    const size_t slot = static_cast<size_t>(std::countr_zero(m));
    if (slot < slots_.size()) ask(slot);
  }
  for (size_t slot = kMaskSlots; slot < slots_.size(); ++slot) ask(slot);
  return answered;
}

void Decision::Remember(const net::Prefix& prefix, uint64_t holders, const uint64_t* winner) const {
  if (!indexing_) return;
  if (holders == 0) {
    holders_.Erase(prefix);
    return;
  }
  Known& known = holders_[prefix];
  known.holders = holders;
  if (winner != nullptr) known.winner = *winner;
}

bool Decision::DecideFromWinner(size_t slot, const BgpRoute* old_route, const BgpRoute* new_route) {
  if (slot >= kMaskSlots || slot >= slots_.size()) return false;
  const net::Prefix& prefix = old_route != nullptr ? old_route->net : new_route->net;
  Known* known = holders_.Find(prefix);
  if (known == nullptr || known->winner == kNoWinner) return false;
  const uint64_t winner_rank = known->winner >> 8;
  const size_t winner_slot = known->winner & 0xff;
  const uint64_t new_rank = new_route != nullptr ? RankBeforeMed(*new_route, options_) : kNoWinner;
  const bool new_above = new_route == nullptr || new_rank > winner_rank;
  const bool new_below = new_route != nullptr && new_rank < winner_rank;
  std::optional<BgpRoute> winner;
  if (slot == winner_slot) {
    // The winner's own parent: only a strictly better route keeps it the winner for sure.
    if (old_route == nullptr || RankBeforeMed(*old_route, options_) != winner_rank || !new_below) {
      return false;
    }
  } else {
    if (old_route != nullptr && RankBeforeMed(*old_route, options_) <= winner_rank) return false;
    if (!new_above && !new_below) return false;
    if (new_below) {
      winner = WinnerRoute(prefix, known->winner);
      if (!winner) return false;
    }
  }
  ++decided_from_winner_;
  Known& k = *known;
  if (new_route == nullptr) {
    k.holders &= ~SlotBit(slot);
  } else {
    k.holders |= SlotBit(slot);
  }
  if (!new_below) return true;  // a route ranked above the winner came or went: no change
  k.winner = PackWinner(new_rank, slot);
  SendChange(slot == winner_slot ? old_route : &*winner, new_route);
  return true;
}

void Decision::SendChange(const BgpRoute* old_best, const BgpRoute* new_best) {
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

void Decision::Decide(BgpStage* caller, const BgpRoute* old_route, const BgpRoute* new_route) {
  // Slots matter only to the index.
  const size_t caller_slot = indexing_ ? SlotOf(caller) : slots_.size();
  if (indexing_ && DecideFromWinner(caller_slot, old_route, new_route)) return;
  const net::Prefix& prefix = old_route != nullptr ? old_route->net : new_route->net;
  Routes alternatives;
  Slots alternative_slots;
  uint64_t holders = Ask(prefix, caller, &alternatives, indexing_ ? &alternative_slots : nullptr);
  if (new_route != nullptr && caller_slot < slots_.size()) holders |= SlotBit(caller_slot);
  absl::InlinedVector<const BgpRoute*, 8> candidates;
  for (const BgpRoute& r : alternatives) candidates.push_back(&r);
  candidates.push_back(old_route);
  const Selection before = SelectBest(candidates, options_);
  const BgpRoute* old_best = before.best >= 0 ? candidates[before.best] : nullptr;
  candidates.back() = new_route;
  const Selection after = SelectBest(candidates, options_);
  const BgpRoute* new_best = after.best >= 0 ? candidates[after.best] : nullptr;
  uint64_t winner = kNoWinner;
  if (indexing_ && new_best != nullptr) {  // the winner is recorded only in the index
    const size_t best = static_cast<size_t>(after.best);
    const size_t slot = best == alternatives.size() ? caller_slot : alternative_slots[best];
    if (slot < kMaskSlots) winner = PackWinner(RankBeforeMed(*new_best, options_), slot);
  }
  Remember(prefix, holders, &winner);
  SendChange(old_best, new_best);
}

void Decision::add_route(const BgpRoute& route, BgpStage* caller) {
  ++held_;
  Decide(caller, nullptr, &route);
}

void Decision::delete_route(const BgpRoute& route, BgpStage* caller) {
  if (held_ > 0) --held_;
  if (held_ == 0 && indexing_) complete_ = true;
  Decide(caller, &route, nullptr);
}

void Decision::replace_route(const BgpRoute& old_route, const BgpRoute& new_route,
                             BgpStage* caller) {
  Decide(caller, &old_route, &new_route);
}

void Decision::push(BgpStage*) {
  if (downstream_ != nullptr) downstream_->push(this);
}

std::optional<BgpRoute> Decision::WinnerRoute(const net::Prefix& prefix, uint64_t winner) const {
  const size_t slot = winner & 0xff;
  if (slot >= slots_.size() || slots_[slot] == nullptr) return std::nullopt;
  std::optional<BgpRoute> route = slots_[slot]->lookup_route(prefix);
  if (route && RankBeforeMed(*route, options_) != winner >> 8) return std::nullopt;
  return route;
}

std::optional<BgpRoute> Decision::lookup_route(const net::Prefix& prefix) const {
  if (indexing_) {
    const Known* known = holders_.Find(prefix);
    if (known != nullptr && known->winner != kNoWinner) {
      if (std::optional<BgpRoute> winner = WinnerRoute(prefix, known->winner)) {
        ++looked_up_from_winner_;
        return winner;
      }
    }
  }
  Routes routes;
  Remember(prefix, Ask(prefix, nullptr, &routes, nullptr), nullptr);
  if (routes.empty()) return std::nullopt;
  absl::InlinedVector<const BgpRoute*, 8> candidates;
  for (const BgpRoute& r : routes) candidates.push_back(&r);
  const Selection sel = SelectBest(candidates, options_);
  if (sel.best < 0) return std::nullopt;
  return routes[sel.best];
}

std::vector<BgpRoute> Decision::Candidates(const net::Prefix& prefix) const {
  Routes routes;
  Ask(prefix, nullptr, &routes, nullptr);
  return {std::make_move_iterator(routes.begin()), std::make_move_iterator(routes.end())};
}

bool Decision::CollectIndexedPrefixes(const std::optional<net::Prefix>& after, size_t limit,
                                      std::vector<net::Prefix>* sorted) const {
  if (!indexing_ || !complete_ || slots_.size() > kMaskSlots) return false;
  const size_t old_size = sorted->size();
  holders_.AppendAfter(after, limit, sorted);
  MergeCollected(sorted, old_size, limit);
  return true;
}

std::optional<net::Prefix> LocRibPrefixes::NextPrefix(
    const std::optional<net::Prefix>& after) const {
  std::vector<net::Prefix> next;
  if (decision_ != nullptr && decision_->CollectIndexedPrefixes(after, 1, &next)) {
    if (next.empty()) return std::nullopt;
    return next.front();
  }
  return tables_->NextPrefix(after);
}

void LocRibPrefixes::CollectPrefixes(const std::optional<net::Prefix>& after, size_t limit,
                                     std::vector<net::Prefix>* sorted) const {
  if (decision_ != nullptr && decision_->CollectIndexedPrefixes(after, limit, sorted)) return;
  tables_->CollectPrefixes(after, limit, sorted);
}

}  // namespace sluice::bgp
