#include "rib/rib_route.h"

#include "absl/strings/str_cat.h"

namespace sluice::rib {

std::string RibRoute::ToString() const {
  std::string out = absl::StrCat(network.ToString(), " ", protocol.name(), "/", admin_distance);
  if (nexthop) absl::StrAppend(&out, " via ", nexthop->ToString());
  if (!ifname.empty()) absl::StrAppend(&out, " dev ", ifname.name());
  absl::StrAppend(&out, " metric ", metric);
  if (!tags.empty()) absl::StrAppend(&out, " tags ", tags.ToString());
  if (resolved) {
    out += " =>";
    if (resolved->nexthop) absl::StrAppend(&out, " via ", resolved->nexthop->ToString());
    if (!resolved->ifname.empty()) absl::StrAppend(&out, " dev ", resolved->ifname.name());
    absl::StrAppend(&out, " igp ", resolved->igp_metric);
  }
  return out;
}

bool Preferred(const RibRoute& a, const RibRoute& b) {
  if (a.admin_distance != b.admin_distance) return a.admin_distance < b.admin_distance;
  if (a.protocol == b.protocol) return false;
  return a.protocol.name() < b.protocol.name();
}

const std::optional<RibRoute>& Best(const std::optional<RibRoute>& a,
                                    const std::optional<RibRoute>& b) {
  if (!a) return b;
  if (!b) return a;
  return Preferred(*b, *a) ? b : a;
}

}  // namespace sluice::rib
