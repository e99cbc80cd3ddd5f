#include "bgp/stages/nexthop_resolver.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "stage/route_arrival.h"

namespace sluice::bgp {

NexthopResolver::NexthopResolver(std::string name, boost::asio::io_context& io, NexthopCache* cache,
                                 const PrefixSource* branch)
    : BgpLinearStage(name),
      cache_(cache),
      walk_(io, name + " re-resolve", branch,
            PrefixWalk::Hooks{
                .visit = [this](const net::Prefix& p) { Visit(p); },
                .end_of_slice =
                    [this] {
                      if (downstream_ != nullptr) downstream_->push(this);
                    },
                .done = [this] { WalkDone(); },
            }),
      release_task_(io, name + " release", [this] { return ReleaseSlice(); }) {
  cache_->Subscribe(this, &io);  // told on its own loop (a shard's, when sharded)
}

NexthopResolver::~NexthopResolver() {
  cache_->Unsubscribe(this);
  for (const auto& [nh, st] : nexthops_) cache_->Release(nh);
}

std::string NexthopResolver::Status() const {
  std::string s = absl::StrCat("nexthops=", nexthops_.size());
  if (!held_.empty()) absl::StrAppend(&s, " held=", held_.size());
  if (walk_.running()) s += " re-resolving";
  return s;
}

BgpRoute NexthopResolver::Annotate(const BgpRoute& route, const NexthopAnswer& answer) {
  BgpRoute out = route;
  out.flags = (route.flags & ~(BgpRoute::kResolved | BgpRoute::kUnresolvable)) |
              (answer.resolvable ? BgpRoute::kResolved : BgpRoute::kUnresolvable);
  out.igp_metric = answer.resolvable ? answer.metric : 0;
  return out;
}

NexthopResolver::NhState& NexthopResolver::Track(const net::IPAddress& nexthop) {
  auto [it, added] = nexthops_.try_emplace(nexthop);
  NhState& st = it->second;
  if (added) {
    cache_->Use(nexthop);
    if (std::optional<NexthopAnswer> a = cache_->Lookup(nexthop)) {
      st.known = true;
      st.sent = *a;
    }
  }
  ++st.routes;
  return st;
}

void NexthopResolver::Untrack(const net::IPAddress& nexthop) {
  auto it = nexthops_.find(nexthop);
  if (it == nexthops_.end()) return;
  if (--it->second.routes > 0 || it->second.in_walk) return;
  nexthops_.erase(it);
  cache_->Release(nexthop);
}

std::optional<BgpRoute> NexthopResolver::Out(const BgpRoute& route) const {
  if (!held_.empty() && held_.contains(route.net)) return std::nullopt;
  std::optional<net::IPAddress> nh = route.nexthop();
  if (!nh) return Annotate(route, NexthopAnswer{});
  auto it = nexthops_.find(*nh);
  if (it == nexthops_.end() || !it->second.known) return std::nullopt;
  return Annotate(route, AnswerFor(it->second, route.net));
}

std::optional<BgpRoute> NexthopResolver::In(const BgpRoute& route) {
  std::optional<net::IPAddress> nh = route.nexthop();
  if (!nh) return Annotate(route, NexthopAnswer{});
  NhState& st = Track(*nh);
  if (!st.known) {
    held_.insert(route.net);
    st.held.push_back(route.net);
    st.held_arrival = stage::OldestArrival(st.held_arrival, stage::CurrentArrival());
    return std::nullopt;
  }
  return Annotate(route, AnswerFor(st, route.net));
}

void NexthopResolver::add_route(const BgpRoute& route, BgpStage*) {
  std::optional<BgpRoute> out = In(route);
  if (out && downstream_ != nullptr) downstream_->add_route(*out, this);
}

void NexthopResolver::delete_route(const BgpRoute& route, BgpStage*) {
  std::optional<BgpRoute> out = Out(route);
  held_.erase(route.net);
  if (std::optional<net::IPAddress> nh = route.nexthop()) Untrack(*nh);
  if (out && downstream_ != nullptr) downstream_->delete_route(*out, this);
}

void NexthopResolver::replace_route(const BgpRoute& old_route, const BgpRoute& new_route,
                                    BgpStage*) {
  std::optional<BgpRoute> old_out = Out(old_route);
  held_.erase(old_route.net);
  std::optional<BgpRoute> new_out = In(new_route);  // tracks the new nexthop first
  if (std::optional<net::IPAddress> nh = old_route.nexthop()) Untrack(*nh);
  if (downstream_ == nullptr) return;
  if (old_out && new_out) {
    downstream_->replace_route(*old_out, *new_out, this);
  } else if (old_out) {
    downstream_->delete_route(*old_out, this);
  } else if (new_out) {
    downstream_->add_route(*new_out, this);
  }
}

std::optional<BgpRoute> NexthopResolver::lookup_route(const net::Prefix& prefix) const {
  if (upstream_ == nullptr) return std::nullopt;
  std::optional<BgpRoute> r = upstream_->lookup_route(prefix);
  if (!r) return std::nullopt;
  return Out(*r);
}

void NexthopResolver::OnNexthopsChanged(const net::Prefix& subnet) {
  bool released = false;
  for (auto& [nh, st] : nexthops_) {
    if (!subnet.Contains(nh)) continue;
    std::optional<NexthopAnswer> a = cache_->Lookup(nh);
    if (!a) continue;  // asked again; routes keep their answer meanwhile
    if (!st.known) {
      st.known = true;
      st.sent = *a;
      release_.insert(release_.end(), st.held.begin(), st.held.end());
      st.held.clear();
      release_arrival_ = stage::OldestArrival(release_arrival_, std::exchange(st.held_arrival, 0));
      released = true;
      continue;
    }
    st.next = *a;
    if (*st.next == st.sent) st.next.reset();  // what routes carry (or will, after this walk)
  }
  if (released) {
    // Released in prefix order (ReleaseSlice pops from the back).
    std::sort(release_.begin(), release_.end(), std::greater<net::Prefix>());
    release_task_.Start();
  }
  StartWalkIfNeeded();
}

bool NexthopResolver::ReleaseSlice() {
  stage::SliceBudget budget(1000);
  stage::ArrivalScope arrival(release_arrival_);
  while (!release_.empty()) {
    const net::Prefix p = release_.back();
    release_.pop_back();
    if (held_.contains(p) && upstream_ != nullptr) {
      std::optional<BgpRoute> r = upstream_->lookup_route(p);
      std::optional<net::IPAddress> nh = r ? r->nexthop() : std::nullopt;
      auto it = nh ? nexthops_.find(*nh) : nexthops_.end();
      if (it != nexthops_.end() && it->second.known) {
        held_.erase(p);
        if (downstream_ != nullptr) {
          downstream_->add_route(Annotate(*r, AnswerFor(it->second, p)), this);
        }
      }
    }
    if (budget.Exhausted()) break;
  }
  if (downstream_ != nullptr) downstream_->push(this);
  if (release_.empty()) release_arrival_ = 0;
  return !release_.empty();
}

void NexthopResolver::StartWalkIfNeeded() {
  if (walk_.running()) return;  // WalkDone starts the next one
  bool any = false;
  for (auto& [nh, st] : nexthops_) {
    if (!st.next) continue;
    st.previous = st.sent;
    st.sent = *st.next;
    st.next.reset();
    st.in_walk = true;
    any = true;
  }
  if (any) walk_.Start();
}

void NexthopResolver::Visit(const net::Prefix& prefix) {
  if (upstream_ == nullptr || (!held_.empty() && held_.contains(prefix))) return;
  std::optional<BgpRoute> r = upstream_->lookup_route(prefix);
  if (!r) return;
  std::optional<net::IPAddress> nh = r->nexthop();
  if (!nh) return;
  auto it = nexthops_.find(*nh);
  if (it == nexthops_.end() || !it->second.in_walk || !it->second.known) return;
  const NhState& st = it->second;
  if (st.previous == st.sent || downstream_ == nullptr) return;
  downstream_->replace_route(Annotate(*r, st.previous), Annotate(*r, st.sent), this);
}

void NexthopResolver::WalkDone() {
  for (auto it = nexthops_.begin(); it != nexthops_.end();) {
    NhState& st = it->second;
    st.in_walk = false;
    if (st.routes == 0) {
      cache_->Release(it->first);
      nexthops_.erase(it++);
    } else {
      ++it;
    }
  }
  StartWalkIfNeeded();
}

}  // namespace sluice::bgp
