#include "static_routes/static_routes.h"

#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/log.h"

namespace sluice::static_routes {

// ---- StaticRoute ----------------------------------------------------------------------------

absl::Status StaticRoute::Validate() const {
  if (nexthop && nexthop->family() != network.family()) {
    return absl::InvalidArgumentError(absl::StrCat("static route ", network.ToString(),
                                                   ": nexthop ", nexthop->ToString(),
                                                   " is of the other address family"));
  }
  if (!nexthop && ifname.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("static route ", network.ToString(), ": needs a nexthop or an interface"));
  }
  if (track && !nexthop) {
    return absl::InvalidArgumentError(
        absl::StrCat("static route ", network.ToString(), ": track needs a nexthop"));
  }
  return absl::OkStatus();
}

std::string StaticRoute::ToString() const {
  std::string s = network.ToString();
  if (nexthop) absl::StrAppend(&s, " via ", nexthop->ToString());
  if (!ifname.empty()) absl::StrAppend(&s, " dev ", ifname);
  if (metric != 0) absl::StrAppend(&s, " metric ", metric);
  if (tag != 0) absl::StrAppend(&s, " tag ", tag);
  if (track) absl::StrAppend(&s, " track");
  return s;
}

absl::StatusOr<StaticRoute> ParseStaticRoute(std::string_view text) {
  std::vector<std::string> words =
      absl::StrSplit(absl::string_view(text.data(), text.size()), ' ', absl::SkipWhitespace());
  if (words.empty()) return absl::InvalidArgumentError("static route: empty");
  StaticRoute r;
  absl::StatusOr<net::Prefix> network = net::Prefix::Parse(words[0]);
  if (!network.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("static route: bad network '", words[0], "'"));
  }
  r.network = *network;
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    auto value = [&]() -> absl::StatusOr<std::string> {
      if (i + 1 >= words.size()) {
        return absl::InvalidArgumentError(absl::StrCat("static route: '", w, "' needs a value"));
      }
      return words[++i];
    };
    if (w == "via") {
      absl::StatusOr<std::string> v = value();
      if (!v.ok()) return v.status();
      absl::StatusOr<net::IPAddress> a = net::IPAddress::Parse(*v);
      if (!a.ok())
        return absl::InvalidArgumentError(absl::StrCat("static route: bad nexthop '", *v, "'"));
      r.nexthop = *a;
    } else if (w == "dev") {
      absl::StatusOr<std::string> v = value();
      if (!v.ok()) return v.status();
      r.ifname = *v;
    } else if (w == "metric") {
      absl::StatusOr<std::string> v = value();
      if (!v.ok()) return v.status();
      if (!absl::SimpleAtoi(*v, &r.metric)) {
        return absl::InvalidArgumentError(absl::StrCat("static route: bad metric '", *v, "'"));
      }
    } else if (w == "tag") {
      absl::StatusOr<std::string> v = value();
      if (!v.ok()) return v.status();
      if (!absl::SimpleAtoi(*v, &r.tag)) {
        return absl::InvalidArgumentError(absl::StrCat("static route: bad tag '", *v, "'"));
      }
    } else if (w == "track") {
      r.track = true;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "static route: unknown word '", w, "' (expected via, dev, metric, tag or track)"));
    }
  }
  if (absl::Status s = r.Validate(); !s.ok()) return s;
  return r;
}

// ---- StaticRoutes ---------------------------------------------------------------------------

StaticRoutes::StaticRoutes(RibSink* rib, NexthopTracker* tracker) : rib_(rib), tracker_(tracker) {}

StaticRoutes::~StaticRoutes() { *alive_ = false; }

const char* StaticRoutes::StateName(NexthopState s) {
  switch (s) {
    case NexthopState::kUntracked:
      return "untracked";
    case NexthopState::kAsking:
      return "asking";
    case NexthopState::kResolvable:
      return "resolvable";
    case NexthopState::kUnresolvable:
      return "unresolvable";
  }
  return "?";
}

bool StaticRoutes::ShouldInstall(const StaticRoute& route) const {
  if (!route.track) return true;
  auto it = nexthops_.find(*route.nexthop);
  return it != nexthops_.end() && it->second.state == NexthopState::kResolvable;
}

void StaticRoutes::Sync(Entry& e) {
  const bool want = ShouldInstall(e.route);
  if (want && !e.installed) {
    SLUICE_LOG(kInfo) << "install " << e.route.ToString();
    rib_->Add(e.route);
  } else if (!want && e.installed) {
    SLUICE_LOG(kInfo) << "withdraw " << e.route.ToString() << " (nexthop unresolvable)";
    rib_->Delete(e.route.network);
  }
  e.installed = want;
}

void StaticRoutes::SyncUsersOf(const net::IPAddress& nexthop) {
  for (auto& [network, e] : routes_) {
    if (e.route.track && e.route.nexthop == nexthop) Sync(e);
  }
}

absl::Status StaticRoutes::Add(const StaticRoute& route) {
  if (absl::Status s = route.Validate(); !s.ok()) return s;
  auto it = routes_.find(route.network);
  if (it != routes_.end()) {
    if (it->second.route == route) return absl::OkStatus();
    // A new route for the network: the old one's nexthop is released after the new one's is
    // tracked, so a shared nexthop keeps its answer.
    StaticRoute old = it->second.route;
    it->second.route = route;
    if (route.track) Track(*route.nexthop);
    const bool was_installed = it->second.installed;
    const bool want = ShouldInstall(route);
    if (want) {
      rib_->Add(route);  // adds or replaces
    } else if (was_installed) {
      rib_->Delete(route.network);
    }
    it->second.installed = want;
    if (old.track) Untrack(*old.nexthop);
    return absl::OkStatus();
  }
  Entry& e = routes_[route.network];
  e.route = route;
  if (route.track) Track(*route.nexthop);
  Sync(e);
  return absl::OkStatus();
}

absl::Status StaticRoutes::Delete(const net::Prefix& network) {
  auto it = routes_.find(network);
  if (it == routes_.end()) {
    return absl::NotFoundError(absl::StrCat("no static route for ", network.ToString()));
  }
  if (it->second.installed) rib_->Delete(network);
  StaticRoute old = it->second.route;
  routes_.erase(it);
  if (old.track) Untrack(*old.nexthop);
  return absl::OkStatus();
}

std::vector<StaticRoutes::RouteView> StaticRoutes::List() const {
  std::vector<RouteView> out;
  for (const auto& [network, e] : routes_) {
    RouteView v{e.route, e.installed, NexthopState::kUntracked};
    if (e.route.track) {
      auto it = nexthops_.find(*e.route.nexthop);
      if (it != nexthops_.end()) v.nexthop_state = it->second.state;
    }
    out.push_back(std::move(v));
  }
  return out;
}

size_t StaticRoutes::installed_count() const {
  size_t n = 0;
  for (const auto& [network, e] : routes_) n += e.installed ? 1 : 0;
  return n;
}

void StaticRoutes::Track(const net::IPAddress& nexthop) {
  Nexthop& n = nexthops_[nexthop];
  if (n.users++ == 0) Ask(nexthop);
}

void StaticRoutes::Untrack(const net::IPAddress& nexthop) {
  auto it = nexthops_.find(nexthop);
  if (it == nexthops_.end() || --it->second.users > 0) return;
  const std::optional<net::Prefix> subnet = it->second.valid_subnet;
  nexthops_.erase(it);
  if (!subnet) return;
  // The RIB keeps one registration per client and subnet: release it when no other tracked
  // nexthop holds the same answer.
  for (const auto& [address, n] : nexthops_) {
    if (n.valid_subnet == subnet) return;
  }
  tracker_->Deregister(*subnet);
}

void StaticRoutes::Ask(const net::IPAddress& nexthop) {
  const uint64_t generation = ++generation_;
  nexthops_[nexthop].asked = generation;
  std::weak_ptr<bool> alive = alive_;
  tracker_->Register(nexthop, [this, alive, nexthop, generation](absl::StatusOr<Resolution> a) {
    auto live = alive.lock();
    if (!live || !*live) return;
    OnAnswer(nexthop, generation, std::move(a));
  });
}

void StaticRoutes::OnAnswer(const net::IPAddress& nexthop, uint64_t generation,
                            absl::StatusOr<Resolution> answer) {
  auto it = nexthops_.find(nexthop);
  if (it == nexthops_.end() || it->second.asked != generation) return;  // stale
  if (!answer.ok()) {
    // No RIB now: keep the last answer; RibBorn asks again.
    SLUICE_LOG(kInfo) << "nexthop " << nexthop.ToString() << ": " << answer.status().message();
    return;
  }
  it->second.valid_subnet = answer->valid_subnet;
  it->second.state = answer->resolvable ? NexthopState::kResolvable : NexthopState::kUnresolvable;
  SyncUsersOf(nexthop);
}

void StaticRoutes::RibBorn() {
  // The new RIB has none of our routes and none of our registrations.
  for (auto& [network, e] : routes_) e.installed = false;
  for (auto& [address, n] : nexthops_) {
    n.valid_subnet.reset();
    n.state = NexthopState::kAsking;  // the old RIB's answers say nothing about the new one
    Ask(address);
  }
  for (auto& [network, e] : routes_) Sync(e);
}

void StaticRoutes::RouteInfoInvalid(const net::Prefix& valid_subnet) {
  std::vector<net::IPAddress> again;
  for (const auto& [address, n] : nexthops_) {
    if ((n.valid_subnet && *n.valid_subnet == valid_subnet) || valid_subnet.Contains(address)) {
      again.push_back(address);
    }
  }
  // Keep the current answers (and routes) until the new ones come.
  for (const net::IPAddress& a : again) Ask(a);
}

}  // namespace sluice::static_routes
