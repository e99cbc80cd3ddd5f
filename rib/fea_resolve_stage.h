#pragma once
// FeaResolveStage: the last step of nexthop resolution, done for one FEA (DESIGN.md § Processes:
// one sluice-rib feeding several sluice-fea; the multistage router of Bianco et al.). Plumbed
// between the FIB fanout and that FEA's FeaOut:
//
//   FibFanout ─┬─ FeaResolve(fea)   ─ FeaOut(fea)
//              └─ FeaResolve(fea-2) ─ FeaOut(fea-2)
//
// The RIB picks winners and resolves EGP nexthops through IGP routes once, over the connected
// subnets of every FEA (connected_union.h): one router, one routing decision. What is on-link
// differs per forwarding engine, so each FEA's own interfaces (FeaInterfacesView, from its
// interface events: fea_view.h) decide which winners it is sent and through which of its
// interfaces:
//   - a route with a forwarding nexthop N (RibRoute::forwarding_nexthop) goes on when N is on
//     a connected subnet of an interface of this FEA that is up (the longest such subnet), with
//     that interface if the route names one (else it still names none, and the FEA finds the
//     same interface); an IPv6 link-local N goes on when the FEA has the route's interface up;
//   - an interface route (no forwarding nexthop: a connected subnet, a static "dev" route) goes
//     on when a connected subnet of this FEA covers its prefix (with that subnet's interface),
//     else when the FEA has an interface of its name up;
//   - any other route is withheld: the FEA would refuse it (fea/route_validator.h), and with it
//     the whole transaction it came in.
// Until a view is set every route goes on unchanged (an FEA that reports no interfaces).
//
// SetView takes effect at once for everything after it, lookups included. What was sent under
// the old view may no longer hold, so the owner re-sends the FEA its whole FIB right after
// (Rib: FibClient::BeginFullPush, then FeaOutStage::FeaBorn, whose sweep removes what is no
// longer forwardable). Between two views every delete and replace is mapped under the view its
// route was sent under, so the stream to the FeaOut stays consistent. Holds no routes.

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "net/prefix.h"
#include "net/prefix_map.h"
#include "rib/rib_stage.h"
#include "rib/symbol.h"

namespace sluice::rib {

// The interfaces of one FEA as the RIB needs them for forwarding: its connected subnets on
// interfaces that are up, each with its interface, and the names of its interfaces that are up.
struct FeaInterfacesView {
  std::vector<std::pair<net::Prefix, std::string>> subnets;  // in prefix order
  std::set<std::string> interfaces_up;
  friend bool operator==(const FeaInterfacesView&, const FeaInterfacesView&) = default;
};

class FeaResolveStage : public RibLinearStage {
 public:
  explicit FeaResolveStage(std::string name) : RibLinearStage(std::move(name)) {}

  std::string_view kind() const override { return "FeaResolve"; }
  std::string Status() const override;

  void add_route(const RibRoute& route, RibStage* caller) override;
  void delete_route(const RibRoute& route, RibStage* caller) override;
  void replace_route(const RibRoute& old_route, const RibRoute& new_route,
                     RibStage* caller) override;
  std::optional<RibRoute> lookup_route(const net::Prefix& prefix) const override;

  // Uses `view` from now on (the owner re-sends the FEA its FIB: see above).
  void SetView(const FeaInterfacesView& view);
  bool has_view() const { return has_view_; }

  // What goes on for `route`: the route itself, a copy through this FEA's interface, or nothing.
  std::optional<RibRoute> Map(const RibRoute& route) const;

 private:
  // The interface of this FEA that `route` leaves through (empty: it names none, and need not);
  // nullopt when it cannot leave this FEA.
  std::optional<Symbol> OutInterface(const RibRoute& route) const;
  bool InterfaceUp(Symbol ifname) const;
  // `route` leaving through `out` instead.
  static RibRoute Through(const RibRoute& route, Symbol out);
  // Calls `send` with what goes on for `route` (Map), without a copy when it needs no rewrite:
  // the hot path of add and delete. Nothing when there is no downstream.
  template <typename Send>
  void Forward(const RibRoute& route, Send send) const {
    if (downstream() == nullptr) return;
    const std::optional<Symbol> out =
        has_view_ ? OutInterface(route) : std::optional(route.forwarding_ifname());
    if (!out) return;
    if (*out == route.forwarding_ifname()) return send(route);
    send(Through(route, *out));
  }

  bool has_view_ = false;
  net::PrefixMap<Symbol> subnets_;
  std::vector<Symbol> interfaces_up_;  // sorted by id
};

}  // namespace sluice::rib
