#pragma once
// DeletionStage: withdraws a dead protocol's routes in background slices (XORP NSDI'05 §5.1.2,
// route_table_deletion / rt_tab_deletion).
//
// When a protocol's component dies, its OriginStage hands its whole table over to a new
// DeletionStage plumbed right after the origin, and starts empty. The deletion stage then:
//   - sends delete_route downstream for its routes, a slice at a time on the event loop (each
//     slice ends with push), while new routes keep flowing;
//   - on an add from upstream for a prefix it still holds (the protocol came back and re-sent
//     it), drops its copy and sends replace_route(old, new): downstream sees the old route
//     deleted and the new one added in one step;
//   - passes deletes and replaces from upstream through (it never holds those prefixes: an
//     upstream route for a prefix means the add came through here and took the prefix over);
//   - answers lookups from its table first, then from upstream;
//   - is itself a RouteSource until done, so walks over the RIB's routes still see its routes.
// Several deaths in a row make several deletion stages, newest nearest the origin. When its
// table is empty the stage calls `on_done`, which unplumbs it (Plumber::SpliceOut) and
// unregisters it as a source.
//
// Stale routes (DESIGN.md § Restarts; RFC 4724 §4.2 applied to the RIB): until Start() the
// stage withdraws nothing. Its routes stay in the RIB and the FIB, stale, while the protocol's
// new owner re-sends them (each re-sent prefix leaves the stage; a route re-sent unchanged
// sends nothing downstream at all), and Start() — at the owner's end-of-RIB or when its
// restart time ends — sweeps what was not re-sent.

#include <functional>
#include <memory>
#include <string>

#include "net/prefix_map.h"
#include "rib/nexthop_table.h"
#include "rib/rib_stage.h"
#include "rib/route_source.h"
#include "stage/background_task.h"

namespace sluice::rib {

class DeletionStage : public RibLinearStage, public RouteSource {
 public:
  DeletionStage(std::string name, std::unique_ptr<net::PrefixMap<StoredRoute>> table,
                Symbol protocol, ProtocolClass protocol_class, uint16_t admin_distance,
                NexthopTable* nexthops, boost::asio::io_context& io,
                std::function<void(DeletionStage*)> on_done);

  std::string_view kind() const override { return "Deletion"; }
  std::string Status() const override;

  // Starts the background withdrawal (call once plumbed); later calls do nothing.
  void Start();
  // Not started: the routes are stale, waiting for the protocol to re-send them.
  bool held() const { return !started_; }
  // Routes still to withdraw.
  size_t remaining() const { return table_->size(); }

  void add_route(const RibRoute& route, RibStage* caller) override;
  void delete_route(const RibRoute& route, RibStage* caller) override;
  void replace_route(const RibRoute& old_route, const RibRoute& new_route,
                     RibStage* caller) override;
  std::optional<RibRoute> lookup_route(const net::Prefix& prefix) const override;

  Symbol source_protocol() const override { return protocol_; }
  ProtocolClass source_class() const override { return class_; }
  net::PrefixMap<StoredRoute>& source_table() override { return *table_; }

 private:
  bool Slice();

  std::unique_ptr<net::PrefixMap<StoredRoute>> table_;
  Symbol protocol_;
  ProtocolClass class_;
  uint16_t admin_distance_;
  NexthopTable* nexthops_;
  size_t withdrawn_ = 0;
  size_t refreshed_ = 0;  // re-sent unchanged while held
  bool started_ = false;
  std::function<void(DeletionStage*)> on_done_;
  stage::BackgroundTask task_;
};

}  // namespace sluice::rib
