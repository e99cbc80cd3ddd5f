#include "bgp/stages/import_filter.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace sluice::bgp {

ImportFilter::ImportFilter(std::string name, boost::asio::io_context& io,
                           const PrefixSource* branch, AttributeStore* store, ImportConfig config,
                           policy::FilterSlot* slot)
    : BgpLinearStage(name),
      store_(store),
      slot_(slot),
      walk_(io, name + " re-filter", branch,
            PrefixWalk::Hooks{
                .visit = [this](const net::Prefix& p) { Visit(p); },
                .end_of_slice =
                    [this] {
                      if (downstream_ != nullptr) downstream_->push(this);
                    },
                .done = [this] { WalkDone(); },
            }) {
  if (slot != nullptr) config.filter = slot_.seen();
  active_ = std::make_shared<const ImportConfig>(std::move(config));
}

std::string ImportFilter::Status() const {
  std::string s = absl::StrCat("accepted=", counters_.accepted);
  if (active_->filter != nullptr) s += " policy";
  if (walk_.running()) s += " re-filtering";
  return s;
}

void ImportFilter::SetConfig(ImportConfig config) {
  auto next = std::make_shared<const ImportConfig>(std::move(config));
  if (walk_.running()) {
    queued_ = std::move(next);
    return;
  }
  pending_ = std::move(next);
  walk_.Start();
}

void ImportFilter::CheckSlot() {
  std::optional<std::shared_ptr<const policy::Filter>> polled = slot_.Poll();
  if (!polled) return;
  std::shared_ptr<const policy::Filter> f = std::move(*polled);
  const ImportConfig& newest = queued_ ? *queued_ : pending_ ? *pending_ : *active_;
  if (f == newest.filter) return;
  ImportConfig next = newest;
  next.filter = std::move(f);
  SetConfig(std::move(next));
}

void ImportFilter::WalkDone() {
  active_ = std::move(pending_);
  pending_.reset();
  if (queued_) {
    pending_ = std::move(queued_);
    queued_.reset();
    walk_.Start();
  } else {
    walk_.Cancel();  // back to idle: Covers() is false and ConfigFor() uses active_
  }
}

void ImportFilter::Visit(const net::Prefix& prefix) {
  if (upstream_ == nullptr) return;
  std::optional<BgpRoute> r = upstream_->lookup_route(prefix);
  if (!r) return;
  BgpRoute old_changed, new_changed;
  Emit(Pass(*r, *active_, &old_changed), Pass(*r, *pending_, &new_changed));
}

std::optional<BgpRoute> ImportFilter::Apply(const BgpRoute& route,
                                            const ImportConfig& config) const {
  BgpRoute changed;
  const BgpRoute* out = Pass(route, config, &changed);
  if (out == nullptr) return std::nullopt;
  return *out;
}

const BgpRoute* ImportFilter::Pass(const BgpRoute& route, const ImportConfig& config,
                                   BgpRoute* changed) const {
  if (!route.attrs || route.source == nullptr) return nullptr;
  const PathAttributes& a = *route.attrs;
  const PeerSource& src = *route.source;
  if (!src.local) {
    if (a.as_path && a.as_path->Contains(config.local_as)) {
      ++counters_.loop_dropped;
      return nullptr;
    }
    if (src.ibgp) {
      if (a.originator_id && *a.originator_id == config.router_id) {
        ++counters_.loop_dropped;
        return nullptr;
      }
      if (std::find(a.cluster_list.begin(), a.cluster_list.end(), config.cluster_id) !=
          a.cluster_list.end()) {
        ++counters_.loop_dropped;
        return nullptr;
      }
    }
  }
  if (config.filter == nullptr) {
    if (!src.ibgp && !src.local && config.ebgp_requires_policy) {
      ++counters_.policy_dropped;
      return nullptr;
    }
    return &route;
  }
  rw_.Reset(route, config.context);
  policy::Result result = config.filter->Run(rw_);
  if (!result.accepted()) {
    ++counters_.policy_dropped;
    return nullptr;
  }
  if (!rw_.modified()) return &route;
  *changed = route.WithAttributes(Interned(rw_.attributes()));
  return changed;
}

AttrRef ImportFilter::Interned(const PathAttributes& attrs) const {
  for (const AttrRef& made : made_) {
    if (made && *made == attrs) return made;
  }
  AttrRef ref = store_->Intern(attrs);
  made_[made_next_++ % made_.size()] = ref;
  return ref;
}

void ImportFilter::Emit(const BgpRoute* o, const BgpRoute* n) {
  if (o != nullptr && n != nullptr) {
    if (!(*o == *n) && downstream_ != nullptr) downstream_->replace_route(*o, *n, this);
  } else if (o != nullptr) {
    --counters_.accepted;
    if (downstream_ != nullptr) downstream_->delete_route(*o, this);
  } else if (n != nullptr) {
    ++counters_.accepted;
    if (downstream_ != nullptr) downstream_->add_route(*n, this);
  }
}

void ImportFilter::add_route(const BgpRoute& route, BgpStage*) {
  BgpRoute changed;
  Emit(nullptr, Pass(route, ConfigFor(route.net), &changed));
}

void ImportFilter::delete_route(const BgpRoute& route, BgpStage*) {
  BgpRoute changed;
  Emit(Pass(route, ConfigFor(route.net), &changed), nullptr);
}

void ImportFilter::replace_route(const BgpRoute& old_route, const BgpRoute& new_route, BgpStage*) {
  const ImportConfig& c = ConfigFor(new_route.net);
  BgpRoute old_changed, new_changed;
  Emit(Pass(old_route, c, &old_changed), Pass(new_route, c, &new_changed));
}

void ImportFilter::push(BgpStage*) {
  CheckSlot();
  if (downstream_ != nullptr) downstream_->push(this);
}

std::optional<BgpRoute> ImportFilter::lookup_route(const net::Prefix& prefix) const {
  if (upstream_ == nullptr) return std::nullopt;
  std::optional<BgpRoute> r = upstream_->lookup_route(prefix);
  if (!r) return std::nullopt;
  // Lookups do not count drops.
  Counters saved = counters_;
  std::optional<BgpRoute> out = Apply(*r, ConfigFor(prefix));
  counters_ = saved;
  return out;
}

}  // namespace sluice::bgp
