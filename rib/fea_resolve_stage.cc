#include "rib/fea_resolve_stage.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace sluice::rib {
namespace {

bool IsIPv6LinkLocal(const net::IPAddress& a) {
  return a.is_v6() && (a.v6().hi() >> 54) == (0xfe80u >> 6);
}

bool ById(Symbol a, Symbol b) { return a.id() < b.id(); }

}  // namespace

std::string FeaResolveStage::Status() const {
  if (!has_view_) return "view=none";
  return absl::StrCat("subnets=", subnets_.size(), " interfaces_up=", interfaces_up_.size());
}

void FeaResolveStage::SetView(const FeaInterfacesView& view) {
  has_view_ = true;
  subnets_.clear();
  for (const auto& [prefix, ifname] : view.subnets) {
    subnets_.insert_or_assign(prefix, Symbol::Intern(ifname));
  }
  interfaces_up_.clear();
  for (const std::string& name : view.interfaces_up) interfaces_up_.push_back(Symbol::Intern(name));
  std::ranges::sort(interfaces_up_, ById);
}

bool FeaResolveStage::InterfaceUp(Symbol ifname) const {
  return !ifname.empty() && std::ranges::binary_search(interfaces_up_, ifname, ById);
}

std::optional<Symbol> FeaResolveStage::OutInterface(const RibRoute& route) const {
  const std::optional<net::IPAddress> nexthop = route.forwarding_nexthop();
  const Symbol ifname = route.forwarding_ifname();
  if (nexthop) {
    if (IsIPv6LinkLocal(*nexthop)) {
      if (InterfaceUp(ifname)) return ifname;
      return std::nullopt;
    }
    const Symbol* on = subnets_.longest_match_value(*nexthop);
    if (on == nullptr) return std::nullopt;
    // A route that names no interface keeps naming none: the FEA finds the same one.
    return ifname.empty() ? ifname : *on;
  }
  Symbol covering;
  subnets_.VisitCovering(route.network, [&covering](const Symbol& s) {
    covering = s;  // least specific first: the last one is the longest
    return true;
  });
  if (!covering.empty()) return covering;
  if (InterfaceUp(ifname)) return ifname;
  return std::nullopt;
}

RibRoute FeaResolveStage::Through(const RibRoute& route, Symbol out) {
  RibRoute copy = route;
  if (copy.resolved) {
    copy.resolved->ifname = out;
  } else {
    copy.ifname = out;
  }
  return copy;
}

std::optional<RibRoute> FeaResolveStage::Map(const RibRoute& route) const {
  if (!has_view_) return route;
  const std::optional<Symbol> out = OutInterface(route);
  if (!out) return std::nullopt;
  if (*out == route.forwarding_ifname()) return route;
  return Through(route, *out);
}

void FeaResolveStage::add_route(const RibRoute& route, RibStage*) {
  Forward(route, [this](const RibRoute& r) { downstream()->add_route(r, this); });
}

void FeaResolveStage::delete_route(const RibRoute& route, RibStage*) {
  Forward(route, [this](const RibRoute& r) { downstream()->delete_route(r, this); });
}

void FeaResolveStage::replace_route(const RibRoute& old_route, const RibRoute& new_route,
                                    RibStage*) {
  std::optional<RibRoute> before = Map(old_route);
  std::optional<RibRoute> after = Map(new_route);
  EmitChange(downstream(), this, before, after);
}

std::optional<RibRoute> FeaResolveStage::lookup_route(const net::Prefix& prefix) const {
  if (upstream() == nullptr) return std::nullopt;
  std::optional<RibRoute> route = upstream()->lookup_route(prefix);
  if (!route) return std::nullopt;
  return Map(*route);
}

}  // namespace sluice::rib
