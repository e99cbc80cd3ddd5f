#pragma once
// ConnectedUnion: the RIB's connected routes as the union of the connected subnets of every FEA
// it feeds: one router whose interfaces are spread over several forwarding engines (DESIGN.md
// § Processes; the multistage router of Bianco et al.). An EGP nexthop on any FEA's subnet
// resolves (ExtIntStage), and each FEA's FeaResolve stage (fea_resolve_stage.h) then sends the
// route only where that nexthop is on-link, through that FEA's own interface.
//
// Two kinds of source: the shared interface events (Rib::interface_events(): the first FEA's,
// or a test's; ConnectedRoutes) and each FEA's own view (FeaView). A subnet's route goes via
// the interface the shared events give it; a subnet only other FEAs have goes via the interface
// of the first of them by name. `apply(prefix, ifname)` is called for each change of the union
// (ifname nullopt: the subnet is gone), like ConnectedRoutes::Apply.

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "net/prefix.h"
#include "rib/connected_routes.h"

namespace sluice::rib {

class ConnectedUnion {
 public:
  explicit ConnectedUnion(ConnectedRoutes::Apply apply) : apply_(std::move(apply)) {}

  // The shared events' route for `prefix`: via `ifname`, or none (nullopt).
  void SetShared(const net::Prefix& prefix, const std::optional<std::string>& ifname);
  // `fea`'s connected subnets are now `subnets` (prefix, interface), all of them.
  void SetFea(const std::string& fea,
              const std::vector<std::pair<net::Prefix, std::string>>& subnets);
  void RemoveFea(const std::string& fea);

 private:
  // Applies the union's route for `prefix` if it changed.
  void Update(const net::Prefix& prefix);

  ConnectedRoutes::Apply apply_;
  std::map<net::Prefix, std::string> shared_;
  std::map<std::string, std::map<net::Prefix, std::string>> feas_;  // by FEA name
  std::map<net::Prefix, std::string> applied_;
};

}  // namespace sluice::rib
