#pragma once
// Building and reading rtnetlink route messages (RTM_NEWROUTE, RTM_DELROUTE; rtnetlink(7)) for
// FibRoutes, with libmnl. Pure functions over buffers: no socket here.

#include <linux/netlink.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "fea/fib_route.h"
#include "fea/interface_tree.h"
#include "net/prefix.h"

namespace sluice::fea {

// Where Sluice's routes live in the kernel.
struct KernelRouteTarget {
  uint32_t table = 254;   // RT_TABLE_MAIN
  uint8_t protocol = 83;  // rtm_protocol of every route Sluice writes
};

// The metric the kernel stores for `route`: IPv6 turns 0 into 1024 (IP6_RT_PRIO_USER).
uint32_t KernelMetric(const net::Prefix& prefix, uint32_t metric);

enum class RouteWrite {
  kCreate,   // NLM_F_CREATE | NLM_F_EXCL: fails (EEXIST) if a route with that key exists
  kReplace,  // NLM_F_CREATE | NLM_F_REPLACE: overwrites the route with that key
};

// Appends an RTM_NEWROUTE for `route` (at its kernel metric) to `buffer`, with sequence number
// `seq` and `flags` (e.g. NLM_F_ACK) besides those of `write`. Interface names are resolved
// through `interfaces`. Errors: NotFound when an interface is no longer in the tree (nothing
// is appended).
absl::Status AppendNewRoute(std::vector<char>& buffer, uint32_t seq, uint16_t flags,
                            RouteWrite write, const FibRoute& route,
                            const KernelRouteTarget& target, const InterfaceTree& interfaces);

// Appends an RTM_DELROUTE removing the route for `prefix` with kernel metric `kernel_metric`
// and the target's protocol from the target's table (it never removes another protocol's).
void AppendDelRoute(std::vector<char>& buffer, uint32_t seq, uint16_t flags,
                    const net::Prefix& prefix, uint32_t kernel_metric,
                    const KernelRouteTarget& target);

// Appends an RTM_GETROUTE dump request for `family`'s routes of the target's table and
// protocol (the kernel filters with strict checking on; ParseRoute's caller filters anyway).
void AppendRouteDumpRequest(std::vector<char>& buffer, uint32_t seq, net::Family family,
                            const KernelRouteTarget& target);

// A route as the kernel reports it.
struct KernelNexthop {
  std::optional<net::IPAddress> gateway;
  uint32_t ifindex = 0;
  bool onlink = false;
  uint16_t weight = 1;
};
struct KernelRoute {
  net::Prefix prefix;
  uint32_t table = 0;
  uint8_t protocol = 0;
  uint8_t type = 0;  // RTN_UNICAST, ...
  uint32_t metric = 0;
  std::vector<KernelNexthop> nexthops;

  // The route as a FibRoute, naming interfaces through `interfaces` ("if<N>" when unknown).
  FibRoute ToFibRoute(const InterfaceTree& interfaces) const;
};

// Reads an RTM_NEWROUTE message. Returns nullopt for messages that are not IPv4/IPv6 routes
// or have a source prefix. Errors: InvalidArgument for a malformed message.
absl::StatusOr<std::optional<KernelRoute>> ParseRoute(const nlmsghdr* nlh);

}  // namespace sluice::fea
