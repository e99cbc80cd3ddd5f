// libFuzzer target: the netlink route codec (fea/rtnl_route_codec.h). The input is what one
// receive from the kernel could hold: netlink messages back to back, cut as the FEA's socket
// cuts them (NetlinkMessageOk / mnl_nlmsg_next). Every message reads as a route, as "not a route"
// or as an error, never a crash. A route read is then written back the two ways the FEA writes
// routes — deleting a stale one by prefix and metric, and adding one from its FibRoute — and
// the messages written read back as the same route.
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fea/fib_route.h"
#include "fea/interface_tree.h"
#include "fea/netlink_socket.h"
#include "fea/rtnl_route_codec.h"

namespace sluice::fea {
namespace {

void Check(bool ok, const char* what, const KernelRoute& route) {
  if (ok) return;
  std::fprintf(stderr, "fuzz invariant broken: %s\n  %s metric %u, %zu nexthops\n", what,
               route.prefix.ToString().c_str(), route.metric, route.nexthops.size());
  std::abort();
}

// The one route a buffer written by the codec holds.
KernelRoute ReadBack(const std::vector<char>& buffer, const KernelRoute& original) {
  const auto* nlh = reinterpret_cast<const nlmsghdr*>(buffer.data());
  Check(NetlinkMessageOk(nlh, static_cast<int>(buffer.size())), "a whole message is written",
        original);
  auto back = ParseRoute(nlh);
  Check(back.ok() && back->has_value(), "the written message reads as a route", original);
  return **back;
}

void DeleteRoundTrip(const KernelRoute& route, const KernelRouteTarget& target) {
  std::vector<char> buffer;
  AppendDelRoute(buffer, 7, NLM_F_ACK, route.prefix, route.metric, target);
  const KernelRoute back = ReadBack(buffer, route);
  Check(back.prefix == route.prefix, "delete: same prefix", route);
  Check(back.metric == route.metric, "delete: same metric", route);
  Check(back.table == target.table && back.protocol == target.protocol, "delete: our table", route);
}

// The FEA writes routes of 1..kMaxNexthops nexthops, each with a gateway or an interface.
bool Writable(const KernelRoute& route) {
  if (route.nexthops.empty() || route.nexthops.size() > kMaxNexthops) return false;
  for (const KernelNexthop& nh : route.nexthops) {
    if (!nh.gateway && nh.ifindex == 0) return false;
  }
  return true;
}

void AddRoundTrip(const KernelRoute& route, const KernelRouteTarget& target) {
  if (!Writable(route)) return;
  InterfaceTree interfaces;
  for (const KernelNexthop& nh : route.nexthops) {
    if (nh.ifindex == 0) continue;
    Interface link;
    link.index = nh.ifindex;
    link.name = absl::StrCat("if", nh.ifindex);
    interfaces.SetInterface(link);
  }
  const FibRoute fib = route.ToFibRoute(interfaces);
  std::vector<char> buffer;
  absl::Status status =
      AppendNewRoute(buffer, 8, NLM_F_ACK, RouteWrite::kReplace, fib, target, interfaces);
  Check(status.ok(), "add: every interface resolves", route);
  const KernelRoute back = ReadBack(buffer, route);
  Check(back.prefix == route.prefix, "add: same prefix", route);
  Check(back.metric == KernelMetric(route.prefix, route.metric), "add: the kernel metric", route);
  Check(back.nexthops.size() == route.nexthops.size(), "add: as many nexthops", route);
  for (size_t i = 0; i < route.nexthops.size(); ++i) {
    const KernelNexthop& a = route.nexthops[i];
    const KernelNexthop& b = back.nexthops[i];
    Check(a.gateway == b.gateway && a.ifindex == b.ifindex && a.onlink == b.onlink,
          "add: same nexthop", route);
    // One nexthop is written without RTA_MULTIPATH, which alone carries a weight.
    Check(route.nexthops.size() == 1 || a.weight == b.weight, "add: same weight", route);
  }
}

}  // namespace
}  // namespace sluice::fea

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice::fea;
  // A copy of exactly `size` octets: aligned as a receive buffer is, and with nothing after it.
  std::unique_ptr<char[]> buffer(new char[size]);
  if (size > 0) std::memcpy(buffer.get(), data, size);
  KernelRouteTarget target;
  int len = static_cast<int>(size);
  for (const auto* nlh = reinterpret_cast<const nlmsghdr*>(buffer.get());
       NetlinkMessageOk(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
    auto route = ParseRoute(nlh);
    if (!route.ok() || !route->has_value()) continue;
    const KernelRoute& r = **route;
    target.table = r.table;  // as the FEA keeps its own table and protocol
    target.protocol = r.protocol;
    DeleteRoundTrip(r, target);
    AddRoundTrip(r, target);
  }
  return 0;
}
