#pragma once
// FeaView: one FEA's interfaces as its own interface events report them (interface_source.h),
// turned into the FeaInterfacesView its FeaResolveStages forward by (fea_resolve_stage.h).
//
// The events go through a ConnectedRoutes of its own (connected_routes.h: snapshots, interfaces
// going up and down, several addresses on one subnet). The view changes only at the end of an
// event, or of a whole snapshot: then `on_change(view)` runs, when the view differs from the
// last one given (or is the first).

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "net/prefix.h"
#include "rib/connected_routes.h"
#include "rib/fea_resolve_stage.h"
#include "rib/interface_source.h"

namespace sluice::rib {

class FeaView {
 public:
  explicit FeaView(std::function<void(const FeaInterfacesView&)> on_change);
  FeaView(const FeaView&) = delete;
  FeaView& operator=(const FeaView&) = delete;

  // Where the FEA's interface events go.
  InterfaceEvents* events() { return &connected_; }
  // A view has been given (the end of the FEA's first snapshot, or of an event before it).
  bool known() const { return known_; }
  const FeaInterfacesView& view() const { return view_; }

 private:
  void Commit();

  std::function<void(const FeaInterfacesView&)> on_change_;
  std::map<net::Prefix, std::string> subnets_;  // what ConnectedRoutes applied
  bool known_ = false;
  FeaInterfacesView view_;
  ConnectedRoutes connected_;
};

}  // namespace sluice::rib
