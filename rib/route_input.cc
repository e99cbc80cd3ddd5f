#include "rib/route_input.h"

#include "absl/strings/str_cat.h"

namespace sluice::rib {

absl::Status ValidateRouteInput(const RouteInput& route) {
  // Only the error paths name the route: this runs for every route a protocol sends.
  auto what = [&] { return route.network.ToString(); };
  if (route.nexthop) {
    if (route.nexthop->family() != route.network.family()) {
      return absl::InvalidArgumentError(absl::StrCat("route ", what(), ": nexthop ",
                                                     route.nexthop->ToString(),
                                                     " is not of the prefix's family"));
    }
    if (route.nexthop->is_unspecified()) {
      return absl::InvalidArgumentError(
          absl::StrCat("route ", what(), ": the unspecified address is not a nexthop"));
    }
  } else if (route.ifname.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("route ", what(), ": needs a nexthop or an interface"));
  }
  if (route.ifname.size() > kMaxInterfaceNameLength) {
    return absl::InvalidArgumentError(absl::StrCat(
        "route ", what(), ": interface name longer than ", kMaxInterfaceNameLength, " characters"));
  }
  for (char c : route.ifname) {
    if (c <= ' ' || c > '~') {
      return absl::InvalidArgumentError(
          absl::StrCat("route ", what(), ": interface name has a non-printable character"));
    }
  }
  if (route.tags.size() > kMaxTags) {
    return absl::InvalidArgumentError(
        absl::StrCat("route ", what(), ": more than ", kMaxTags, " tags"));
  }
  return absl::OkStatus();
}

}  // namespace sluice::rib
