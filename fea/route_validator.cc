#include "fea/route_validator.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace sluice::fea {

namespace {

bool IsMulticast(const net::IPAddress& a) {
  return a.is_v4() ? (a.v4().value() >> 28) == 0xe : (a.v6().hi() >> 56) == 0xff;
}

// Errors without the route's name (ValidateRoute adds it): the text is built only on failure.
absl::Status CheckNexthop(const FibRoute& route, const Nexthop& nh,
                          const InterfaceTree& interfaces) {
  if (!nh.gateway.has_value() && nh.interface.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("a nexthop needs a gateway or an interface"));
  }
  if (nh.weight < 1 || nh.weight > 256) {
    return absl::InvalidArgumentError(absl::StrCat("weight ", nh.weight, " out of range 1..256"));
  }
  const Interface* dev = nullptr;
  if (!nh.interface.empty()) {
    dev = interfaces.FindByName(nh.interface);
    if (dev == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("unknown interface \"", nh.interface, "\""));
    }
  }
  if (!nh.gateway.has_value()) {
    if (nh.onlink) {
      return absl::InvalidArgumentError(absl::StrCat("\"onlink\" needs a gateway"));
    }
    return absl::OkStatus();
  }
  const net::IPAddress& gw = *nh.gateway;
  if (gw.family() != route.prefix.family()) {
    return absl::InvalidArgumentError(
        absl::StrCat("gateway ", gw.ToString(), " is not ",
                     std::string(net::FamilyName(route.prefix.family())), " like the prefix"));
  }
  if (gw.is_unspecified() || IsMulticast(gw) || (gw.is_v4() && gw.v4().value() == 0xffffffffu)) {
    return absl::InvalidArgumentError(
        absl::StrCat("gateway ", gw.ToString(), " is not a unicast address"));
  }
  if (nh.onlink) {
    if (dev == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("\"onlink\" needs an interface (dev NAME)"));
    }
    return absl::OkStatus();
  }
  if (IsIPv6LinkLocal(gw)) {
    if (dev == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("link-local gateway ", gw.ToString(), " needs an interface (dev NAME)"));
    }
    return absl::OkStatus();
  }
  if (dev != nullptr) {
    if (!dev->IsConnected(gw)) {
      return absl::FailedPreconditionError(
          absl::StrCat("gateway ", gw.ToString(), " is on no connected network of interface ",
                       dev->name, " (its addresses do not cover it; add \"onlink\" to force it)"));
    }
    return absl::OkStatus();
  }
  if (interfaces.FindConnected(gw) == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "gateway ", gw.ToString(),
        " is on no connected network (no interface address covers it; name an interface "
        "and add \"onlink\" to force it)"));
  }
  return absl::OkStatus();
}

absl::Status CheckRoute(const FibRoute& route, const InterfaceTree& interfaces) {
  if (route.nexthops.empty()) {
    return absl::InvalidArgumentError("no nexthop");
  }
  if (route.nexthops.size() > kMaxNexthops) {
    return absl::InvalidArgumentError(
        absl::StrCat(route.nexthops.size(), " nexthops, more than the ", kMaxNexthops, " allowed"));
  }
  for (size_t i = 0; i < route.nexthops.size(); ++i) {
    const Nexthop& nh = route.nexthops[i];
    for (size_t j = 0; j < i; ++j) {
      if (route.nexthops[j].gateway == nh.gateway && route.nexthops[j].interface == nh.interface) {
        return absl::InvalidArgumentError(
            absl::StrCat("nexthop \"", nh.ToString(), "\" appears twice"));
      }
    }
    if (absl::Status s = CheckNexthop(route, nh, interfaces); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

bool IsIPv6LinkLocal(const net::IPAddress& a) {
  return a.is_v6() && (a.v6().hi() >> 54) == (0xfe80u >> 6);
}

absl::Status ValidateRoute(const FibRoute& route, const InterfaceTree& interfaces) {
  absl::Status status = CheckRoute(route, interfaces);
  if (status.ok()) return status;
  return absl::Status(status.code(),
                      absl::StrCat("route ", route.ToString(), ": ", status.message()));
}

}  // namespace sluice::fea
