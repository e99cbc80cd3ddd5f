#include "bgp/stages/decision.h"

#include <algorithm>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"

namespace sluice::bgp {

Decision::Decision(std::string name, DecisionOptions options)
    : BgpStage(std::move(name)), options_(options) {}

std::string Decision::Status() const {
  return absl::StrCat("loc-rib=", routes_, " parents=", parents_.size());
}

std::vector<const stage::StageBase*> Decision::upstream_stages() const {
  return {parents_.begin(), parents_.end()};
}

std::vector<const stage::StageBase*> Decision::downstream_stages() const {
  if (downstream_ == nullptr) return {};
  return {downstream_};
}

void Decision::ConnectUpstream(BgpStage* s) {
  if (std::find(parents_.begin(), parents_.end(), s) == parents_.end()) parents_.push_back(s);
}

void Decision::DisconnectUpstream(BgpStage* s) { std::erase(parents_, s); }

void Decision::ReplaceUpstream(BgpStage* old_stage, BgpStage* new_stage) {
  std::replace(parents_.begin(), parents_.end(), old_stage, new_stage);
}

void Decision::Decide(BgpStage* caller, const BgpRoute* old_route, const BgpRoute* new_route) {
  const net::Prefix& prefix = old_route != nullptr ? old_route->net : new_route->net;
  absl::InlinedVector<BgpRoute, 4> alternatives;
  for (BgpStage* parent : parents_) {
    if (parent == caller) continue;
    if (std::optional<BgpRoute> r = parent->lookup_route(prefix)) {
      alternatives.push_back(std::move(*r));
    }
  }
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
  absl::InlinedVector<BgpRoute, 4> routes;
  for (BgpStage* parent : parents_) {
    if (std::optional<BgpRoute> r = parent->lookup_route(prefix)) routes.push_back(std::move(*r));
  }
  if (routes.empty()) return std::nullopt;
  absl::InlinedVector<const BgpRoute*, 8> candidates;
  for (const BgpRoute& r : routes) candidates.push_back(&r);
  const Selection sel = SelectBest(candidates, options_);
  if (sel.best < 0) return std::nullopt;
  return routes[sel.best];
}

std::vector<BgpRoute> Decision::Candidates(const net::Prefix& prefix) const {
  std::vector<BgpRoute> out;
  for (BgpStage* parent : parents_) {
    if (std::optional<BgpRoute> r = parent->lookup_route(prefix)) out.push_back(std::move(*r));
  }
  return out;
}

}  // namespace sluice::bgp
