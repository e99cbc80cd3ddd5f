#pragma once
// OriginStage: where one protocol's routes enter the RIB and the only place they are stored
// (XORP NSDI'05 §5.2, OriginTable). One per protocol and address family, created when the
// protocol first adds a route; it has no upstream and one downstream (a merge stage, or a
// deletion stage plumbed right after it).
//
// Storage: a PrefixMap of StoredRoute (12 octets a route, nexthops interned in the network's
// NexthopTable). lookup_route answers from it.
//
// Admin distance: stamped on every route sent downstream. SetAdminDistance re-announces every
// stored route with the new distance (a replace each) in background slices, in prefix order;
// until the walk has passed a prefix, that prefix keeps the old distance both downstream and
// in lookups, so the stream stays consistent while the change is under way.
//
// Lifetime (XORP §5.1.2): when the protocol dies, HandOver() gives the whole table to a new
// DeletionStage plumbed after this one, and the origin starts empty, ready for the protocol to
// register again and re-send its routes.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "net/prefix_map.h"
#include "rib/nexthop_table.h"
#include "rib/rib_stage.h"
#include "rib/route_source.h"
#include "stage/background_task.h"

namespace boost::asio {
class io_context;
}

namespace sluice::rib {

class OriginStage : public RibLinearStage, public RouteSource {
 public:
  OriginStage(std::string name, Symbol protocol, ProtocolClass protocol_class,
              uint16_t admin_distance, NexthopTable* nexthops, boost::asio::io_context& io);
  ~OriginStage() override;

  std::string_view kind() const override { return "Origin"; }
  std::string Status() const override;

  enum class Change { kAdded, kReplaced, kUnchanged };
  // Adds the route for `prefix`, or replaces the one stored (kUnchanged when identical: nothing
  // is sent downstream). The caller has validated the route (route_input.h).
  Change Add(const net::Prefix& prefix, const std::optional<net::IPAddress>& nexthop, Symbol ifname,
             uint32_t metric, TagSet tags);
  // Removes the route for `prefix`; false when there is none.
  bool Delete(const net::Prefix& prefix);
  // Ends a batch: downstream stages flush what they queued.
  void Push();

  std::optional<RibRoute> lookup_route(const net::Prefix& prefix) const override;

  Symbol protocol() const { return protocol_; }
  ProtocolClass protocol_class() const { return class_; }
  uint16_t admin_distance() const { return admin_distance_; }
  // Changes the admin distance; see above. A change while one is under way completes the
  // earlier one first.
  void SetAdminDistance(uint16_t admin_distance);
  bool admin_distance_change_running() const { return walking_; }
  size_t route_count() const { return table_->size(); }

  // The protocol died: returns every stored route (after completing any admin distance
  // change) and starts empty. The caller plumbs a DeletionStage holding them after this stage.
  std::unique_ptr<net::PrefixMap<StoredRoute>> HandOver();

  // The stored route for `prefix` as a RibRoute (also while an admin distance walk runs).
  std::optional<RibRoute> Find(const net::Prefix& prefix) const;

  // RouteSource
  Symbol source_protocol() const override { return protocol_; }
  ProtocolClass source_class() const override { return class_; }
  net::PrefixMap<StoredRoute>& source_table() override { return *table_; }

 private:
  uint16_t DistanceFor(const net::Prefix& prefix) const;
  bool WalkSlice();

  Symbol protocol_;
  ProtocolClass class_;
  uint16_t admin_distance_;
  NexthopTable* nexthops_;
  std::unique_ptr<net::PrefixMap<StoredRoute>> table_;
  // Admin distance change in progress: prefixes after `walk_cursor_` still have `old_distance_`.
  bool walking_ = false;
  uint16_t old_distance_ = 0;
  std::optional<net::Prefix> walk_cursor_;
  stage::BackgroundTask walk_;
};

}  // namespace sluice::rib
