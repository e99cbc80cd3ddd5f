#include "rib/rib.h"

#include <algorithm>
#include <boost/asio/io_context.hpp>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace sluice::rib {
namespace {

RibNetworkOptions NetworkOptions(const RibOptions& options) {
  RibNetworkOptions out;
  out.fea = options.fea;
  out.insert_cache_stages = options.insert_cache_stages;
  out.on_violation = options.on_violation;
  out.profiler = options.profiler;
  return out;
}

}  // namespace

Rib::Rib(boost::asio::io_context& io, FibClient* fib, RibOptions options)
    : plumber_(io),
      options_(std::move(options)),
      route_in_((options_.profiler != nullptr ? options_.profiler : &stage::Profiler::Default())
                    ->Point("rib_route_in")),
      origin_policy_(
          io,
          [this](std::string_view protocol, const net::Prefix& prefix,
                 const std::optional<RouteInput>& filtered) {
            ApplyFiltered(protocol, prefix, filtered);
          },
          [this](std::string_view protocol) { PushOrigins(protocol); }),
      v4_(std::make_unique<RibNetwork>(net::Family::kIPv4, &plumber_, NetworkOptions(options_))),
      v6_(std::make_unique<RibNetwork>(net::Family::kIPv6, &plumber_, NetworkOptions(options_))),
      connected_union_([this](const net::Prefix& prefix, const std::optional<std::string>& ifname) {
        ApplyConnected(prefix, ifname);
      }),
      connected_(
          [this](const net::Prefix& prefix, const std::optional<std::string>& ifname) {
            connected_union_.SetShared(prefix, ifname);
          },
          [this] { PushConnected(); },
          [this] {
            if (options_.on_end_of_rib) options_.on_end_of_rib(kConnectedProtocol);
          }) {
  if (fib != nullptr) AddFea(kDefaultFea, fib).IgnoreError();  // cannot fail: the first
}

Rib::~Rib() = default;

// --- Protocols ------------------------------------------------------------------------------

absl::StatusOr<Rib::Protocol*> Rib::ProtocolFor(std::string_view name, bool from_client) {
  RETURN_IF_ERROR(ValidateProtocolName(name));
  if (from_client && name == kConnectedProtocol) {
    return absl::InvalidArgumentError(
        "protocol \"connected\": connected routes come from the FEA's interfaces");
  }
  auto it = protocols_.find(std::string(name));
  if (it == protocols_.end()) {
    const ProtocolDefaults defaults = DefaultsFor(name);
    it = protocols_
             .emplace(std::string(name), Protocol{Symbol::Intern(name), defaults.protocol_class,
                                                  defaults.admin_distance})
             .first;
  }
  return &it->second;
}

absl::Status Rib::DeclareProtocol(std::string_view protocol, ProtocolClass protocol_class,
                                  std::optional<uint16_t> admin_distance) {
  if (admin_distance && *admin_distance > kMaxAdminDistance) {
    return absl::InvalidArgumentError(absl::StrCat("admin distance ", *admin_distance, " for ",
                                                   std::string(protocol), ": the most is ",
                                                   kMaxAdminDistance));
  }
  ASSIGN_OR_RETURN(Protocol * p, ProtocolFor(protocol, /*from_client=*/true));
  if (p->protocol_class != protocol_class) {
    for (RibNetwork* net : {v4_.get(), v6_.get()}) {
      if (net->origin(p->name) != nullptr) {
        return absl::FailedPreconditionError(
            absl::StrCat("protocol ", std::string(protocol), " already has routes as an ",
                         ProtocolClassName(p->protocol_class), "; its class cannot change"));
      }
    }
    p->protocol_class = protocol_class;
  }
  if (admin_distance) return SetAdminDistance(protocol, *admin_distance);
  return absl::OkStatus();
}

absl::StatusOr<uint16_t> Rib::GetAdminDistance(std::string_view protocol) const {
  RETURN_IF_ERROR(ValidateProtocolName(protocol));
  auto it = protocols_.find(std::string(protocol));
  if (it != protocols_.end()) return it->second.admin_distance;
  return DefaultsFor(protocol).admin_distance;
}

absl::Status Rib::SetAdminDistance(std::string_view protocol, uint16_t admin_distance) {
  if (admin_distance > kMaxAdminDistance) {
    return absl::InvalidArgumentError(absl::StrCat("admin distance ", admin_distance, " for ",
                                                   std::string(protocol), ": the most is ",
                                                   kMaxAdminDistance));
  }
  ASSIGN_OR_RETURN(Protocol * p, ProtocolFor(protocol, /*from_client=*/false));
  p->admin_distance = admin_distance;
  for (RibNetwork* net : {v4_.get(), v6_.get()}) {
    if (OriginStage* o = net->origin(p->name)) o->SetAdminDistance(admin_distance);
  }
  return absl::OkStatus();
}

std::vector<ProtocolInfo> Rib::Protocols() const {
  std::vector<ProtocolInfo> out;
  for (const auto& [name, p] : protocols_) {
    ProtocolInfo info{name, p.protocol_class, p.admin_distance};
    if (const OriginStage* o = v4_->origin(p.name)) info.routes_v4 = o->route_count();
    if (const OriginStage* o = v6_->origin(p.name)) info.routes_v6 = o->route_count();
    out.push_back(std::move(info));
  }
  std::sort(out.begin(), out.end(),
            [](const ProtocolInfo& a, const ProtocolInfo& b) { return a.name < b.name; });
  return out;
}

// --- Routes ---------------------------------------------------------------------------------

absl::StatusOr<BatchResult> Rib::AddRoutes(std::string_view protocol,
                                           std::span<const RouteInput> routes) {
  return Apply(protocol, routes, /*replace_only=*/false);
}

absl::StatusOr<BatchResult> Rib::ReplaceRoutes(std::string_view protocol,
                                               std::span<const RouteInput> routes) {
  return Apply(protocol, routes, /*replace_only=*/true);
}

absl::StatusOr<BatchResult> Rib::Apply(std::string_view protocol,
                                       std::span<const RouteInput> routes, bool replace_only) {
  ASSIGN_OR_RETURN(Protocol * p, ProtocolFor(protocol, /*from_client=*/true));
  for (size_t i = 0; i < routes.size(); ++i) {
    if (absl::Status s = ValidateRouteInput(routes[i]); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("route #", i, " of the batch: ", s.message(), "; nothing applied"));
    }
  }
  BatchResult result;
  OriginStage* origins[2] = {nullptr, nullptr};
  for (const RouteInput& r : routes) {
    const int f = r.network.is_v4() ? 0 : 1;
    if (route_in_->enabled()) {
      route_in_->Record(absl::StrCat(replace_only ? "replace " : "add ", r.network.ToString(), " ",
                                     std::string(protocol)));
    }
    OriginStage*& origin = origins[f];
    if (origin == nullptr) {
      RibNetwork& net = network(r.network.family());
      origin = replace_only ? net.origin(p->name)
                            : net.EnsureOrigin(p->name, p->protocol_class, p->admin_distance);
    }
    if (replace_only && (origin == nullptr || !origin->Find(r.network))) {
      result.not_found.push_back(r.network);
      continue;
    }
    // Static routes pass the origin policy first; a rejected one leaves the RIB.
    const std::optional<RouteInput> filtered = origin_policy_.Route(protocol, r);
    if (!filtered) {
      origin->Delete(r.network);
      ++result.applied;
      continue;
    }
    const Symbol ifname = filtered->ifname.empty() ? Symbol() : Symbol::Intern(filtered->ifname);
    const OriginStage::Change change = origin->Add(filtered->network, filtered->nexthop, ifname,
                                                   filtered->metric, TagSet::Of(filtered->tags));
    ++result.applied;
    if (change == OriginStage::Change::kUnchanged) ++result.unchanged;
  }
  for (OriginStage* o : origins) {
    if (o != nullptr) o->Push();
  }
  return result;
}

absl::StatusOr<BatchResult> Rib::DeleteRoutes(std::string_view protocol,
                                              std::span<const net::Prefix> prefixes) {
  ASSIGN_OR_RETURN(Protocol * p, ProtocolFor(protocol, /*from_client=*/true));
  BatchResult result;
  OriginStage* origins[2] = {v4_->origin(p->name), v6_->origin(p->name)};
  for (const net::Prefix& prefix : prefixes) {
    if (route_in_->enabled()) {
      route_in_->Record(absl::StrCat("delete ", prefix.ToString(), " ", std::string(protocol)));
    }
    OriginStage* origin = origins[prefix.is_v4() ? 0 : 1];
    const bool kept = origin_policy_.Forget(protocol, prefix);  // maybe rejected by policy
    if ((origin == nullptr || !origin->Delete(prefix)) && !kept) {
      result.not_found.push_back(prefix);
      continue;
    }
    ++result.applied;
  }
  for (OriginStage* o : origins) {
    if (o != nullptr) o->Push();
  }
  return result;
}

void Rib::ApplyConnected(const net::Prefix& prefix, const std::optional<std::string>& ifname) {
  auto p = ProtocolFor(kConnectedProtocol, /*from_client=*/false);
  if (!p.ok()) return;
  std::optional<RouteInput> filtered;
  if (ifname) {
    RouteInput input;
    input.network = prefix;
    input.ifname = *ifname;
    filtered = origin_policy_.Route(kConnectedProtocol, input);
  } else {
    origin_policy_.Forget(kConnectedProtocol, prefix);
  }
  ApplyFiltered(kConnectedProtocol, prefix, filtered);
}

void Rib::ApplyFiltered(std::string_view protocol, const net::Prefix& prefix,
                        const std::optional<RouteInput>& filtered) {
  auto p = ProtocolFor(protocol, /*from_client=*/false);
  if (!p.ok()) return;
  RibNetwork& net = network(prefix.family());
  if (filtered) {
    const Symbol ifname = filtered->ifname.empty() ? Symbol() : Symbol::Intern(filtered->ifname);
    net.EnsureOrigin((*p)->name, (*p)->protocol_class, (*p)->admin_distance)
        ->Add(prefix, filtered->nexthop, ifname, filtered->metric, TagSet::Of(filtered->tags));
  } else if (OriginStage* o = net.origin((*p)->name)) {
    o->Delete(prefix);
  }
}

void Rib::PushOrigins(std::string_view protocol) {
  const Symbol name = Symbol::Intern(protocol);
  for (RibNetwork* net : {v4_.get(), v6_.get()}) {
    if (OriginStage* o = net->origin(name)) o->Push();
  }
}

absl::Status Rib::SetOriginPolicy(std::string_view protocol,
                                  std::shared_ptr<const policy::Filter> filter) {
  if (!OriginPolicy::Supports(protocol)) {
    return absl::InvalidArgumentError(absl::StrCat("origin policy for \"", std::string(protocol),
                                                   "\": only static and connected have one"));
  }
  origin_policy_.Configure(protocol, std::move(filter));
  return absl::OkStatus();
}

absl::Status Rib::PushOriginPolicy(std::string_view protocol) {
  if (!OriginPolicy::Supports(protocol)) {
    return absl::InvalidArgumentError(absl::StrCat("origin policy for \"", std::string(protocol),
                                                   "\": only static and connected have one"));
  }
  origin_policy_.Push(protocol);
  return absl::OkStatus();
}

void Rib::PushConnected() {
  const Symbol connected = Symbol::Intern(kConnectedProtocol);
  for (RibNetwork* net : {v4_.get(), v6_.get()}) {
    if (OriginStage* o = net->origin(connected)) o->Push();
  }
}

// --- Lookups --------------------------------------------------------------------------------

std::optional<RibRoute> Rib::LookupDestination(const net::IPAddress& address) const {
  return network(address.family()).LookupDestination(address);
}

std::optional<RibRoute> Rib::LookupPrefix(const net::Prefix& prefix) const {
  return network(prefix.family()).LookupPrefix(prefix);
}

std::vector<RibRoute> Rib::ListRoutes(net::Family family, const std::optional<net::Prefix>& after,
                                      size_t max) const {
  return network(family).ListRoutes(after, max);
}

absl::StatusOr<std::vector<RibRoute>> Rib::ListProtocolRoutes(
    std::string_view protocol, net::Family family, const std::optional<net::Prefix>& after,
    size_t max) const {
  RETURN_IF_ERROR(ValidateProtocolName(protocol));
  std::vector<RibRoute> out;
  auto known = protocols_.find(std::string(protocol));  // names nobody used intern nothing
  if (known == protocols_.end()) return out;
  OriginStage* origin = network(family).origin(known->second.name);
  if (origin == nullptr) return out;
  auto& table = origin->source_table();
  auto it = after ? table.lower_bound(*after) : table.begin();
  if (after && it != table.end() && it.key() == *after) ++it;
  for (; it != table.end() && out.size() < max; ++it) {
    if (std::optional<RibRoute> r = origin->Find(it.key())) out.push_back(std::move(*r));
  }
  return out;
}

// --- Interest -------------------------------------------------------------------------------

InterestAnswer Rib::RegisterInterest(InterestRegistrant* registrant,
                                     const net::IPAddress& address) {
  return network(address.family()).register_stage()->Register(registrant, address);
}

absl::Status Rib::DeregisterInterest(InterestRegistrant* registrant,
                                     const net::Prefix& valid_subnet) {
  return network(valid_subnet.family()).register_stage()->Deregister(registrant, valid_subnet);
}

void Rib::DeregisterAllInterest(InterestRegistrant* registrant) {
  v4_->register_stage()->DeregisterAll(registrant);
  v6_->register_stage()->DeregisterAll(registrant);
}

// --- Redistribution -------------------------------------------------------------------------

absl::Status Rib::RedistSubscribe(RedistSubscriber* subscriber, net::Family family,
                                  std::string_view protocol, RedistPolicy policy) {
  if (!protocol.empty()) RETURN_IF_ERROR(ValidateProtocolName(protocol));
  const Symbol p = protocol.empty() ? Symbol() : Symbol::Intern(protocol);
  return network(family).RedistSubscribe(subscriber, p, std::move(policy));
}

absl::Status Rib::RedistUnsubscribe(RedistSubscriber* subscriber, net::Family family,
                                    std::string_view protocol) {
  if (!protocol.empty()) RETURN_IF_ERROR(ValidateProtocolName(protocol));
  const Symbol p = protocol.empty() ? Symbol() : Symbol::Intern(protocol);
  return network(family).RedistUnsubscribe(subscriber, p);
}

void Rib::RedistUnsubscribeAll(RedistSubscriber* subscriber) {
  v4_->RedistUnsubscribeAll(subscriber);
  v6_->RedistUnsubscribeAll(subscriber);
}

// --- Lifetime -------------------------------------------------------------------------------

void Rib::AttachInterfaceSource(InterfaceSource* source) { source->Start(&connected_); }

}  // namespace sluice::rib
