#pragma once
// DeletionStage: withdraws the routes of a peering that went down, in background slices, while
// the peer's new routes flow past it (XORP NSDI'05 §5.1.2, XORP bgp/route_table_deletion.*).
//
// PeerIn makes one when its session goes down: it hands over its whole table and the source
// the routes were learnt from, plumbs the stage right after itself, and starts empty. Then:
//   - each slice removes up to `slice` routes from the table and sends delete_route for them,
//     then pushes;
//   - an add_route from upstream for a prefix the stage still holds first sends the delete of
//     the old route (and forgets it), then passes the add on — downstream never sees two adds;
//   - delete_route and replace_route from upstream pass on (they concern routes added after
//     the stage was made, never the ones it holds);
//   - lookup_route answers the held route when there is one, else asks upstream.
// Routes leave exactly as PeerIn sent them (same source, same flags).
// Several flaps make several Deletion stages in a row (newest nearest PeerIn); a prefix is held
// by at most one of them. When its table is empty the stage unplumbs itself (Plumber::SpliceOut)
// and is destroyed after the current event.
//
// Held (RFC 4724 §4.2, graceful restart, the receiving speaker): a stage made for a peer that may
// come back keeps its routes — stale — and withdraws nothing until Start(): downstream keeps
// seeing them, lookups answer them. An add_route from upstream for a prefix a held stage still
// holds becomes one replace_route (stale route → new route), so the restarted peer's routes take
// over without a withdrawal. Start() (the peer's End-of-RIB, a timer, a flush) sweeps what is left.

#include <functional>
#include <memory>
#include <string>

#include "bgp/stages/bgp_stage.h"
#include "stage/background_task.h"
#include "stage/plumber.h"

namespace sluice::bgp {

class DeletionStage : public BgpLinearStage {
 public:
  // `tables`: the branch's table set; the stage removes its table from it when done.
  // `on_done` runs after the stage has unplumbed itself.
  DeletionStage(std::string name, stage::Plumber* plumber, RouteTableSet* tables,
                std::unique_ptr<RouteTable> table, const PeerSource* source, uint8_t route_flags,
                size_t slice, std::function<void()> on_done);
  ~DeletionStage() override;

  std::string_view kind() const override { return "Deletion"; }
  std::string Status() const override;

  // Starts the background deletion (once; later calls do nothing). Until then the stage is held.
  void Start();
  bool started() const { return started_; }
  size_t remaining() const { return table_->size(); }

  void add_route(const BgpRoute& route, BgpStage* caller) override;
  std::optional<BgpRoute> lookup_route(const net::Prefix& prefix) const override;

 private:
  bool Slice();
  BgpRoute Make(const net::Prefix& prefix, const StoredRoute& stored) const {
    BgpRoute r = MakeRoute(prefix, stored, source_);
    r.flags = route_flags_;
    return r;
  }

  stage::Plumber* plumber_;
  RouteTableSet* tables_;
  std::unique_ptr<RouteTable> table_;
  const PeerSource* source_;
  uint8_t route_flags_;
  size_t slice_;
  std::function<void()> on_done_;
  size_t deleted_ = 0;
  bool finished_ = false;
  bool started_ = false;
  stage::BackgroundTask task_;
};

}  // namespace sluice::bgp
