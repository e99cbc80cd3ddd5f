#pragma once
// StaticRoutes: the core of sluice-static (XORP's static_routes). It holds the
// configured static routes and decides which of them the RIB should have; it talks to the RIB
// only through two small interfaces, which the process implements with rib/1.0 calls
// (static_xrl.h) and tests with fakes.
//
//   configuration (static_routes/1.0, --route, --config) → Add / Delete
//   StaticRoutes ──RibSink──► rib/1.0 add_route4/6, delete_route4/6 (protocol "static")
//   StaticRoutes ──NexthopTracker──► rib/1.0 register_interest / deregister_interest
//   rib_client/1.0 route_info_invalid(subnet) → RouteInfoInvalid (ask again)
//   Finder birth of the RIB → RibBorn (register the protocol, ask again, send everything again)
//
// A route is in the RIB ("installed") when it is not tracked, or when its nexthop is tracked and
// the RIB's last answer for it was resolvable (XORP NSDI'05 §5.2.1: the answer holds for its
// valid subnet until the RIB says otherwise). While the RIB has not answered yet a tracked route
// is not installed. Routes with only an interface are never tracked.
//
// Single-threaded: everything on one event loop. Answers may come at any later time (or never,
// when the RIB dies: RibBorn asks again).

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "net/ip_address.h"
#include "net/prefix.h"

namespace sluice::static_routes {

struct StaticRoute {
  net::Prefix network;
  std::optional<net::IPAddress> nexthop;  // of the network's family
  std::string ifname;                     // empty: the RIB finds it from the nexthop
  uint32_t metric = 0;
  uint32_t tag = 0;    // for policy in the RIB (`from { tag N; }`)
  bool track = false;  // needs a nexthop

  // InvalidArgument naming what is wrong.
  absl::Status Validate() const;
  // "10.0.0.0/8 via 192.0.2.2 dev eth0 metric 5 tag 7 track" (only the parts that are set).
  std::string ToString() const;
  friend bool operator==(const StaticRoute&, const StaticRoute&) = default;
};

// One line of a config file or one --route flag:
//   NETWORK [via NEXTHOP] [dev IFNAME] [metric N] [tag N] [track]
// Errors: InvalidArgument naming the word that is wrong.
absl::StatusOr<StaticRoute> ParseStaticRoute(std::string_view text);

// Where installed routes go (the RIB, protocol "static").
class RibSink {
 public:
  virtual ~RibSink() = default;
  virtual void Add(const StaticRoute& route) = 0;  // adds or replaces
  virtual void Delete(const net::Prefix& network) = 0;
};

// The RIB's answer about one nexthop (rib/1.0 register_interest).
struct Resolution {
  bool resolvable = false;
  net::Prefix valid_subnet;  // the answer holds for every address in it
};

class NexthopTracker {
 public:
  virtual ~NexthopTracker() = default;
  using Answer = std::function<void(absl::StatusOr<Resolution>)>;
  virtual void Register(const net::IPAddress& nexthop, Answer answer) = 0;
  virtual void Deregister(const net::Prefix& valid_subnet) = 0;
};

class StaticRoutes {
 public:
  enum class NexthopState { kUntracked, kAsking, kResolvable, kUnresolvable };
  struct RouteView {
    StaticRoute route;
    bool installed = false;
    NexthopState nexthop_state = NexthopState::kUntracked;
  };

  // Neither is owned; both outlive this object.
  StaticRoutes(RibSink* rib, NexthopTracker* tracker);
  ~StaticRoutes();
  StaticRoutes(const StaticRoutes&) = delete;
  StaticRoutes& operator=(const StaticRoutes&) = delete;

  // Adds a route or replaces the one configured for its network. Errors: InvalidArgument.
  absl::Status Add(const StaticRoute& route);
  // Errors: NotFound.
  absl::Status Delete(const net::Prefix& network);
  // Every configured route in prefix order.
  std::vector<RouteView> List() const;
  size_t installed_count() const;

  // The RIB (re)started, or missed a call: every tracked nexthop is asked again and every
  // installed route sent.
  void RibBorn();
  // rib_client/1.0/route_info_invalid: answers in `valid_subnet` no longer hold; ask again.
  void RouteInfoInvalid(const net::Prefix& valid_subnet);

  static const char* StateName(NexthopState s);

 private:
  struct Nexthop {
    int users = 0;
    NexthopState state = NexthopState::kAsking;
    std::optional<net::Prefix> valid_subnet;
    uint64_t asked = 0;  // generation of the last question (older answers are ignored)
  };
  struct Entry {
    StaticRoute route;
    bool installed = false;
  };

  bool ShouldInstall(const StaticRoute& route) const;
  // Brings the RIB in line with ShouldInstall for one route.
  void Sync(Entry& e);
  void SyncUsersOf(const net::IPAddress& nexthop);
  void Track(const net::IPAddress& nexthop);
  void Untrack(const net::IPAddress& nexthop);
  void Ask(const net::IPAddress& nexthop);
  void OnAnswer(const net::IPAddress& nexthop, uint64_t generation,
                absl::StatusOr<Resolution> answer);

  RibSink* rib_;
  NexthopTracker* tracker_;
  std::map<net::Prefix, Entry> routes_;
  std::map<net::IPAddress, Nexthop> nexthops_;
  uint64_t generation_ = 0;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace sluice::static_routes
