#pragma once
// DumpStage: sends the whole Loc-RIB to a branch that just started — a peer that reached
// Established, or a RIB that was born again — while new changes keep flowing (XORP NSDI'05
// §5.1.2 DumpTable).
//
// Plumbed right after the branch's FanoutReader. A background walk goes over every prefix of the
// Loc-RIB in order (the union of every peer branch's tables) and sends add_route for the route
// the reader sees there. Meanwhile, a change from the fanout for a prefix the walk has passed
// goes on (downstream already has that prefix's state); a change for a prefix ahead of the walk
// is dropped (the walk will send that prefix's state when it gets there). lookup_route answers
// like that too. The walk only moves while the reader is ready (not blocked, nothing queued), so
// the tables it walks are exactly what the reader sees. At the end it calls `on_done` (PeerOut
// sends End-of-RIB) and unplumbs itself.

#include <functional>
#include <string>

#include "bgp/stages/bgp_stage.h"
#include "bgp/stages/prefix_walk.h"
#include "stage/plumber.h"

namespace sluice::bgp {

class DumpStage : public BgpLinearStage {
 public:
  DumpStage(std::string name, stage::Plumber* plumber, const PrefixSource* loc_rib,
            FlowControl* reader, std::function<void()> on_done, size_t prefixes_per_slice = 1000);

  std::string_view kind() const override { return "Dump"; }
  std::string Status() const override;

  void Start() { walk_.Start(); }
  uint64_t dumped() const { return dumped_; }

  void add_route(const BgpRoute& route, BgpStage* caller) override;
  void delete_route(const BgpRoute& route, BgpStage* caller) override;
  void replace_route(const BgpRoute& old_route, const BgpRoute& new_route,
                     BgpStage* caller) override;
  std::optional<BgpRoute> lookup_route(const net::Prefix& prefix) const override;

 private:
  void Visit(const net::Prefix& prefix);
  void Done();

  stage::Plumber* plumber_;
  FlowControl* reader_;
  std::function<void()> on_done_;
  uint64_t dumped_ = 0;
  PrefixWalk walk_;
};

}  // namespace sluice::bgp
