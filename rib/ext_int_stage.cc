#include "rib/ext_int_stage.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace sluice::rib {

ExtIntStage::ExtIntStage(std::string name, SourceRegistry* sources, boost::asio::io_context& io)
    : RibStage(std::move(name)),
      sources_(sources),
      walk_(io, this->name() + " re-resolve", [this] { return WalkSlice(); }) {}

std::string ExtIntStage::Status() const {
  std::string s = absl::StrCat("nexthops=", nexthops_.size(), " rewalks=", rewalks_);
  if (walking_) s += " re-resolving";
  return s;
}

void ExtIntStage::PlumbInternal(RibStage* stage) {
  internal_ = stage;
  stage->ConnectDownstream(this);
}

void ExtIntStage::PlumbExternal(RibStage* stage) {
  external_ = stage;
  stage->ConnectDownstream(this);
}

// --- Route flow --------------------------------------------------------------------------

void ExtIntStage::add_route(const RibRoute& route, RibStage* caller) {
  if (caller == internal_) {
    InternalChanged(std::nullopt, route, route.network);
  } else if (caller == external_) {
    ExternalChanged(std::nullopt, route, route.network);
  }
}

void ExtIntStage::delete_route(const RibRoute& route, RibStage* caller) {
  if (caller == internal_) {
    InternalChanged(route, std::nullopt, route.network);
  } else if (caller == external_) {
    ExternalChanged(route, std::nullopt, route.network);
  }
}

void ExtIntStage::replace_route(const RibRoute& old_route, const RibRoute& new_route,
                                RibStage* caller) {
  if (caller == internal_) {
    InternalChanged(old_route, new_route, new_route.network);
  } else if (caller == external_) {
    ExternalChanged(old_route, new_route, new_route.network);
  }
}

void ExtIntStage::push(RibStage*) {
  if (downstream_ != nullptr) downstream_->push(this);
}

std::optional<RibRoute> ExtIntStage::lookup_route(const net::Prefix& prefix) const {
  return Best(Internal(prefix), Resolved(External(prefix)));
}

void ExtIntStage::InternalChanged(const std::optional<RibRoute>& before,
                                  const std::optional<RibRoute>& after, const net::Prefix& prefix) {
  const std::optional<RibRoute> ext = Resolved(External(prefix));
  EmitChange(downstream_, this, Best(before, ext), Best(after, ext));
  IgpChanged(prefix);
}

void ExtIntStage::ExternalChanged(const std::optional<RibRoute>& before,
                                  const std::optional<RibRoute>& after, const net::Prefix& prefix) {
  if (after) Acquire(*after);
  const std::optional<RibRoute> in = Internal(prefix);
  const std::optional<RibRoute> old_ext = Resolved(before);
  const std::optional<RibRoute> new_ext = Resolved(after);
  EmitChange(downstream_, this, Best(in, old_ext), Best(in, new_ext));
  if (before) Release(*before);
}

std::optional<RibRoute> ExtIntStage::Internal(const net::Prefix& prefix) const {
  if (internal_ == nullptr) return std::nullopt;
  return internal_->lookup_route(prefix);
}

std::optional<RibRoute> ExtIntStage::External(const net::Prefix& prefix) const {
  if (external_ == nullptr) return std::nullopt;
  return external_->lookup_route(prefix);
}

std::optional<RibRoute> ExtIntStage::Resolved(const std::optional<RibRoute>& route) const {
  if (!route) return std::nullopt;
  return ResolvedWith(*route, Pending(route->network));
}

std::optional<RibRoute> ExtIntStage::ResolvedWith(const RibRoute& route, bool previous) const {
  std::optional<Resolution> resolution;
  if (!NeedsResolution(route)) {
    resolution = Resolution{route.nexthop, route.ifname, 0};
  } else if (last_ != nullptr && last_->address == *route.nexthop) {
    resolution = (previous && last_->changing) ? last_->previous : last_->current;
  } else if (auto it = nexthops_.find(*route.nexthop); it != nexthops_.end()) {
    const Nexthop& nh = it->second;
    resolution = (previous && nh.changing) ? nh.previous : nh.current;
  } else {
    std::vector<Step> steps;  // not cached (cannot happen on a consistent input)
    resolution = Resolve(*route.nexthop, &steps);
  }
  if (!resolution) return std::nullopt;
  RibRoute out = route;
  out.resolved = *resolution;
  return out;
}

std::optional<Resolution> ExtIntStage::ResolutionOf(const net::IPAddress& nexthop) const {
  auto it = nexthops_.find(nexthop);
  if (it == nexthops_.end()) return std::nullopt;
  return it->second.current;
}

// --- Nexthop cache ------------------------------------------------------------------------

void ExtIntStage::Acquire(const RibRoute& route) {
  if (!NeedsResolution(route)) return;
  if (last_ != nullptr && last_->address == *route.nexthop) {  // runs of one nexthop
    ++last_->dependents;
    return;
  }
  auto [it, added] = nexthops_.try_emplace(*route.nexthop);
  Nexthop& nh = it->second;
  if (added) {
    nh.address = *route.nexthop;
    nh.current = Resolve(nh.address, &nh.steps);
    Watch(&nh);
  }
  ++nh.dependents;
  last_ = &nh;
}

void ExtIntStage::Release(const RibRoute& route) {
  if (!NeedsResolution(route)) return;
  auto it = nexthops_.find(*route.nexthop);
  if (it == nexthops_.end()) return;
  Nexthop& nh = it->second;
  if (nh.dependents > 0) --nh.dependents;
  if (nh.dependents == 0 && !nh.changing) Erase(&nh);
}

void ExtIntStage::Erase(Nexthop* nh) {
  if (last_ == nh) last_ = nullptr;
  Unwatch(nh);
  nexthops_.erase(nh->address);
}

std::optional<RibRoute> ExtIntStage::LongestMatchInternal(const net::IPAddress& address) const {
  if (internal_ == nullptr) return std::nullopt;
  const std::vector<RouteSource*> igp = sources_->OfClass(ProtocolClass::kIgp);
  for (const net::Prefix& candidate : CoveringPrefixes(igp, address)) {
    if (std::optional<RibRoute> r = internal_->lookup_route(candidate)) return r;
  }
  return std::nullopt;
}

std::optional<Resolution> ExtIntStage::Resolve(const net::IPAddress& address,
                                               std::vector<Step>* steps) const {
  steps->clear();
  net::IPAddress current = address;
  uint32_t igp_metric = 0;
  for (int depth = 0; depth < kMaxDepth; ++depth) {
    std::optional<RibRoute> match = LongestMatchInternal(current);
    steps->push_back(Step{current, match ? match->network.length() : -1});
    if (!match) return std::nullopt;
    if (depth == 0) igp_metric = match->metric;
    if (!match->nexthop) return Resolution{current, match->ifname, igp_metric};
    if (!match->ifname.empty()) return Resolution{match->nexthop, match->ifname, igp_metric};
    current = *match->nexthop;  // not directly connected: resolve it in turn
  }
  return std::nullopt;  // too deep: a loop
}

void ExtIntStage::Watch(Nexthop* nh) {
  for (const Step& step : nh->steps) {
    const net::Prefix key(step.address, step.address.bits());
    std::vector<Nexthop*>* watchers = watch_.find_value(key);
    if (watchers == nullptr) watchers = &*watch_.insert(key, {}).first;
    if (std::find(watchers->begin(), watchers->end(), nh) == watchers->end()) {
      watchers->push_back(nh);
    }
  }
}

void ExtIntStage::Unwatch(Nexthop* nh) {
  for (const Step& step : nh->steps) {
    const net::Prefix key(step.address, step.address.bits());
    std::vector<Nexthop*>* watchers = watch_.find_value(key);
    if (watchers == nullptr) continue;
    std::erase(*watchers, nh);
    if (watchers->empty()) watch_.erase(key);
  }
}

void ExtIntStage::IgpChanged(const net::Prefix& prefix) {
  if (nexthops_.empty()) return;
  if (walking_) FinishWalk();
  std::vector<Nexthop*> dirty;
  for (auto it = watch_.subtree(prefix).begin(); it != watch_.end(); ++it) {
    const net::IPAddress address = it.key().address();
    for (Nexthop* nh : *it) {
      for (const Step& step : nh->steps) {
        if (step.address == address && step.matched_length <= prefix.length() &&
            std::find(dirty.begin(), dirty.end(), nh) == dirty.end()) {
          dirty.push_back(nh);
        }
      }
    }
  }
  for (Nexthop* nh : dirty) {
    std::vector<Step> steps;
    std::optional<Resolution> resolution = Resolve(nh->address, &steps);
    Unwatch(nh);
    nh->steps = std::move(steps);
    Watch(nh);
    if (resolution == nh->current) continue;
    if (nh->dependents > 0) {
      nh->previous = nh->current;
      nh->changing = true;
      changing_.push_back(nh->address);
    }
    nh->current = resolution;
  }
  if (changing_.empty()) return;
  walking_ = true;
  walk_cursor_.reset();
  ++rewalks_;
  walk_.Start();
}

// --- Re-send walk -------------------------------------------------------------------------

bool ExtIntStage::WalkSlice() {
  if (!walking_) return false;
  stage::SliceBudget budget;
  const std::vector<RouteSource*> egp = sources_->OfClass(ProtocolClass::kEgp);
  bool more = true;
  while (true) {
    const std::optional<net::Prefix> prefix = NextPrefix(egp, walk_cursor_);
    if (!prefix) {
      more = false;
      break;
    }
    const std::optional<RibRoute> ext = External(*prefix);
    bool affected = false;
    if (ext && NeedsResolution(*ext)) {
      auto it = nexthops_.find(*ext->nexthop);
      affected = it != nexthops_.end() && it->second.changing;
    }
    if (affected) {
      const std::optional<RibRoute> in = Internal(*prefix);
      const std::optional<RibRoute> old_ext = ResolvedWith(*ext, /*previous=*/true);
      const std::optional<RibRoute> new_ext = ResolvedWith(*ext, /*previous=*/false);
      walk_cursor_ = *prefix;
      EmitChange(downstream_, this, Best(in, old_ext), Best(in, new_ext));
    } else {
      walk_cursor_ = *prefix;
    }
    if (budget.Exhausted()) break;
  }
  if (!more) {
    walking_ = false;
    walk_cursor_.reset();
    for (const net::IPAddress& address : changing_) {
      auto it = nexthops_.find(address);
      if (it == nexthops_.end()) continue;
      it->second.changing = false;
      it->second.previous.reset();
      if (it->second.dependents == 0) Erase(&it->second);
    }
    changing_.clear();
  }
  if (downstream_ != nullptr) downstream_->push(this);
  return more;
}

void ExtIntStage::FinishWalk() {
  while (WalkSlice()) {
  }
  walk_.Cancel();
}

// --- Plumbing -----------------------------------------------------------------------------

std::vector<const stage::StageBase*> ExtIntStage::upstream_stages() const {
  std::vector<const StageBase*> out;
  if (internal_ != nullptr) out.push_back(internal_);
  if (external_ != nullptr) out.push_back(external_);
  return out;
}

std::vector<const stage::StageBase*> ExtIntStage::downstream_stages() const {
  if (downstream_ == nullptr) return {};
  return {downstream_};
}

void ExtIntStage::ConnectUpstream(RibStage* upstream) {
  if (upstream == internal_ || upstream == external_) return;
  if (internal_ == nullptr) {
    internal_ = upstream;
  } else if (external_ == nullptr) {
    external_ = upstream;
  }
}

void ExtIntStage::DisconnectUpstream(RibStage* upstream) {
  if (internal_ == upstream) internal_ = nullptr;
  if (external_ == upstream) external_ = nullptr;
}

void ExtIntStage::DisconnectDownstream(RibStage* downstream) {
  if (downstream_ == downstream) downstream_ = nullptr;
}

void ExtIntStage::ReplaceUpstream(RibStage* old_stage, RibStage* new_stage) {
  if (internal_ == old_stage) internal_ = new_stage;
  if (external_ == old_stage) external_ = new_stage;
}

void ExtIntStage::ReplaceDownstream(RibStage* old_stage, RibStage* new_stage) {
  if (downstream_ == old_stage) downstream_ = new_stage;
}

}  // namespace sluice::rib
