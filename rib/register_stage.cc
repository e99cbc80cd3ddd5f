#include "rib/register_stage.h"

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "absl/strings/str_cat.h"

namespace sluice::rib {
namespace {

// `address` with bit `i` (0 = most significant) inverted.
net::IPAddress FlipBit(const net::IPAddress& address, int i) {
  if (address.is_v4()) {
    return net::IPv4Address(address.v4().value() ^ (uint32_t{1} << (31 - i)));
  }
  const net::IPv6Address a = address.v6();
  if (i < 64) return net::IPv6Address(a.hi() ^ (uint64_t{1} << (63 - i)), a.lo());
  return net::IPv6Address(a.hi(), a.lo() ^ (uint64_t{1} << (127 - i)));
}

}  // namespace

std::string InterestAnswer::ToString() const {
  if (!resolvable || !route) {
    return absl::StrCat(address.ToString(), ": unresolvable valid ", valid_subnet.ToString());
  }
  std::string out =
      absl::StrCat(address.ToString(), ": ", route->network.ToString(), " ", protocol.name(), "/",
                   admin_distance, " valid ", valid_subnet.ToString());
  if (nexthop) absl::StrAppend(&out, " via ", nexthop->ToString());
  if (!ifname.empty()) absl::StrAppend(&out, " dev ", ifname.name());
  absl::StrAppend(&out, " metric ", metric);
  return out;
}

RegisterStage::RegisterStage(std::string name, SourceRegistry* sources, boost::asio::io_context& io)
    : RibLinearStage(std::move(name)),
      sources_(sources),
      io_(io),
      alive_(std::make_shared<bool>(true)) {}

RegisterStage::~RegisterStage() = default;

std::string RegisterStage::Status() const {
  return absl::StrCat("registrations=", registry_.size(), " invalidations=", invalidations_);
}

bool RegisterStage::IsWinner(const net::Prefix& prefix) const {
  return upstream_ != nullptr && upstream_->lookup_route(prefix).has_value();
}

bool RegisterStage::AnyWinnerIn(const std::vector<RouteSource*>& sources,
                                const net::Prefix& prefix) const {
  for (RouteSource* source : sources) {
    auto& table = source->source_table();
    for (auto it = table.subtree(prefix).begin(); it != table.end(); ++it) {
      if (IsWinner(it.key())) return true;
    }
  }
  return false;
}

InterestAnswer RegisterStage::AnswerFor(const net::IPAddress& address,
                                        const net::Prefix& valid_subnet,
                                        const std::optional<RibRoute>& route) const {
  InterestAnswer answer;
  answer.address = address;
  answer.valid_subnet = valid_subnet;
  if (!route) return answer;
  answer.resolvable = true;
  answer.route = route;
  answer.nexthop = route->forwarding_nexthop();
  answer.ifname = route->forwarding_ifname();
  answer.metric = route->resolved ? route->resolved->igp_metric : route->metric;
  answer.admin_distance = route->admin_distance;
  answer.protocol = route->protocol;
  return answer;
}

InterestAnswer RegisterStage::Answer(const net::IPAddress& address) const {
  const std::vector<RouteSource*> sources = sources_->all();
  std::optional<RibRoute> route;
  for (const net::Prefix& candidate : CoveringPrefixes(sources, address)) {
    if (upstream_ == nullptr) break;
    route = upstream_->lookup_route(candidate);
    if (route) break;
  }
  // The valid subnet grows from the host route towards R while the sibling subtree it would
  // take in holds no winner: the first non-empty sibling bounds it.
  const int base = route ? route->network.length() : 0;
  int valid = base;
  for (int depth = address.bits() - 1; depth >= base; --depth) {
    const net::Prefix sibling(FlipBit(address, depth), depth + 1);
    if (AnyWinnerIn(sources, sibling)) {
      valid = depth + 1;
      break;
    }
  }
  return AnswerFor(address, net::Prefix(address, valid), route);
}

InterestAnswer RegisterStage::Register(InterestRegistrant* registrant,
                                       const net::IPAddress& address) {
  InterestAnswer answer = Answer(address);
  const net::Prefix subnet = answer.valid_subnet;
  Registration* reg = registry_.find_value(subnet);
  if (reg == nullptr) {
    // Older registrations overlapping the new subnet date from an earlier table: drop them.
    std::vector<net::Prefix> stale;
    for (auto it = registry_.subtree(subnet).begin(); it != registry_.end(); ++it) {
      stale.push_back(it.key());
    }
    for (auto it = registry_.find_less_specific(subnet); it != registry_.end();
         it = registry_.find_less_specific(it.key())) {
      stale.push_back(it.key());
    }
    for (const net::Prefix& p : stale) Invalidate(p);
    Registration fresh;
    if (answer.route) fresh.route = answer.route->network;
    reg = &*registry_.insert(subnet, std::move(fresh)).first;
  }
  if (std::find(reg->registrants.begin(), reg->registrants.end(), registrant) ==
      reg->registrants.end()) {
    reg->registrants.push_back(registrant);
  }
  // The answer returned now supersedes anything queued for this registrant and subnet (an
  // invalidation of an earlier registration of it, an older change).
  for (Notification& n : pending_) {
    if (n.registrant == registrant && n.subnet == subnet) n.registrant = nullptr;
  }
  return answer;
}

absl::Status RegisterStage::Deregister(InterestRegistrant* registrant,
                                       const net::Prefix& valid_subnet) {
  Registration* reg = registry_.find_value(valid_subnet);
  if (reg == nullptr || std::find(reg->registrants.begin(), reg->registrants.end(), registrant) ==
                            reg->registrants.end()) {
    return absl::NotFoundError(
        absl::StrCat("no interest registered by this client for ", valid_subnet.ToString()));
  }
  std::erase(reg->registrants, registrant);
  if (reg->registrants.empty()) registry_.erase(valid_subnet);
  return absl::OkStatus();
}

void RegisterStage::DeregisterAll(InterestRegistrant* registrant) {
  std::vector<net::Prefix> emptied;
  for (auto it = registry_.begin(); it != registry_.end(); ++it) {
    std::erase(it->registrants, registrant);
    if (it->registrants.empty()) emptied.push_back(it.key());
  }
  for (const net::Prefix& p : emptied) registry_.erase(p);
  for (Notification& n : pending_) {
    if (n.registrant == registrant) n.registrant = nullptr;
  }
  if (delivering_ != nullptr) {
    for (Notification& n : *delivering_) {
      if (n.registrant == registrant) n.registrant = nullptr;
    }
  }
}

void RegisterStage::add_route(const RibRoute& route, RibStage* caller) {
  RibLinearStage::add_route(route, caller);
  if (registry_.empty()) return;
  const net::Prefix& q = route.network;
  std::vector<net::Prefix> doomed;
  for (auto it = registry_.subtree(q).begin(); it != registry_.end(); ++it) {
    if (!it->route || it->route->length() < q.length()) doomed.push_back(it.key());
  }
  for (auto it = registry_.find_less_specific(q); it != registry_.end();
       it = registry_.find_less_specific(it.key())) {
    doomed.push_back(it.key());
  }
  for (const net::Prefix& p : doomed) Invalidate(p);
}

void RegisterStage::delete_route(const RibRoute& route, RibStage* caller) {
  RibLinearStage::delete_route(route, caller);
  if (registry_.empty()) return;
  const net::Prefix& q = route.network;
  std::vector<net::Prefix> doomed;
  for (auto it = registry_.subtree(q).begin(); it != registry_.end(); ++it) {
    if (it->route == q) doomed.push_back(it.key());
  }
  for (const net::Prefix& p : doomed) Invalidate(p);
}

void RegisterStage::replace_route(const RibRoute& old_route, const RibRoute& new_route,
                                  RibStage* caller) {
  RibLinearStage::replace_route(old_route, new_route, caller);
  if (registry_.empty()) return;
  const net::Prefix& q = new_route.network;
  for (auto it = registry_.subtree(q).begin(); it != registry_.end(); ++it) {
    if (it->route != q) continue;
    const net::Prefix subnet = it.key();
    const InterestAnswer answer = AnswerFor(subnet.address(), subnet, new_route);
    for (InterestRegistrant* r : it->registrants) Queue(Notification{r, answer, subnet});
  }
}

void RegisterStage::Invalidate(const net::Prefix& subnet) {
  Registration* reg = registry_.find_value(subnet);
  if (reg == nullptr) return;
  for (InterestRegistrant* r : reg->registrants) Queue(Notification{r, std::nullopt, subnet});
  registry_.erase(subnet);
  ++invalidations_;
}

void RegisterStage::Queue(Notification n) {
  pending_.push_back(std::move(n));
  if (delivery_posted_) return;
  delivery_posted_ = true;
  boost::asio::post(io_, [this, weak = std::weak_ptr<bool>(alive_)] {
    if (weak.lock()) Deliver();
  });
}

void RegisterStage::Deliver() {
  delivery_posted_ = false;
  std::vector<Notification> batch;
  batch.swap(pending_);
  delivering_ = &batch;
  // A registrant may deregister another one (or itself) from inside its callback.
  for (size_t i = 0; i < batch.size(); ++i) {
    InterestRegistrant* r = batch[i].registrant;
    if (r == nullptr) continue;
    if (batch[i].changed) {
      r->OnInterestChanged(*batch[i].changed);
    } else {
      r->OnInterestInvalidated(batch[i].subnet);
    }
  }
  delivering_ = nullptr;
}

}  // namespace sluice::rib
