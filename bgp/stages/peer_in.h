#pragma once
// PeerIn: the Adj-RIB-In of one peer for one address family (RFC 4271 §3.2; XORP NSDI'05 §5.1
// RibIn). It holds the routes exactly as the peer sent them — before any import policy — and is
// the only place in the pipeline where routes of this peer are stored.
//
// Changes from the session (Announce, Withdraw) go downstream as add_route / replace_route /
// delete_route; Push ends the batch (one UPDATE). Re-announcing a route with the same
// attributes and path id changes nothing and sends nothing. lookup_route answers from the
// table: downstream sees exactly the routes in it.
//
// SessionDown (XORP §5.1.2): the table is handed to a new DeletionStage plumbed right after this
// stage, which withdraws the routes in background slices; PeerIn starts again with an empty
// table at once, so the peer may come back while the old routes are still being deleted.
// SessionDown(kKeepStale) (RFC 4724 §4.2, graceful restart): the Deletion stage is held — the
// routes stay, stale, until SweepStale() (End-of-RIB, a timer, a flush) starts it.
//
// Profiling point "bgp_route_in": each announced or withdrawn prefix, as it enters BGP.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bgp/stages/bgp_stage.h"
#include "bgp/stages/family_routing.h"
#include "stage/plumber.h"
#include "stage/profile.h"

namespace sluice::bgp {

class DeletionStage;

class PeerIn : public BgpLinearStage, public RouteInput {
 public:
  struct Options {
    // Mark every route resolved with IGP metric 0 (locally originated routes, which skip the
    // NexthopResolver).
    bool mark_resolved = false;
    // Called when a Deletion stage made by SessionDown has finished and unplumbed itself.
    std::function<void()> on_deletion_done;
    size_t deletion_slice = 1000;  // routes per background slice
  };

  // `tables`: the branch's table set; PeerIn registers its table there and hands it over to the
  // Deletion stages it makes. `profiler` may be null.
  PeerIn(std::string name, stage::Plumber* plumber, RouteTableSet* tables, Options options,
         stage::Profiler* profiler = nullptr);
  ~PeerIn() override;

  std::string_view kind() const override { return "PeerIn"; }
  std::string Status() const override;

  // The session is Established; routes announced from now on come from `source`.
  void SessionUp(const PeerSource* source);
  const PeerSource* source() const { return source_; }

  // Adds or replaces the route for `prefix`. Ignored (returns false) before SessionUp.
  bool Announce(const net::Prefix& prefix, const AttrRef& attrs, uint32_t path_id = 0) override;
  // The same, keeping the caller's reference: for a caller on another thread than the one that
  // made it (the shard stage's input), each count taken and dropped here is a cache line taken
  // from the other core.
  bool Announce(const net::Prefix& prefix, AttrRef&& attrs, uint32_t path_id);
  // Removes the route for `prefix`; false when there was none.
  bool Withdraw(const net::Prefix& prefix) override;
  // End of a batch: pushes downstream.
  void Push() override;
  enum class Down : uint8_t {
    kDelete,     // the routes are withdrawn in the background, now
    kKeepStale,  // RFC 4724 §4.2: the routes stay, stale, until SweepStale()
  };
  // Hands the table to a new Deletion stage (when it holds routes) and starts empty. Returns
  // the Deletion stage, or nullptr when there was nothing to delete.
  DeletionStage* SessionDown(Down how = Down::kDelete);
  // Starts every held Deletion stage: the stale routes left are withdrawn in the background.
  void SweepStale();
  // Stale routes still held (routes of earlier sessions kept by SessionDown(kKeepStale)).
  size_t stale() const;

  // Adj-RIB-In access (streams, counters).
  RouteTable& table() { return *table_; }
  size_t size() const { return table_->size(); }
  // Deletion stages made by this PeerIn still running.
  int deletions_running() const { return deletions_running_; }

  // --- Stage -------------------------------------------------------------------------------
  // PeerIn is the origin of its branch: calls from upstream are ignored.
  void add_route(const BgpRoute&, BgpStage*) override {}
  void delete_route(const BgpRoute&, BgpStage*) override {}
  void replace_route(const BgpRoute&, const BgpRoute&, BgpStage*) override {}
  void push(BgpStage*) override { Push(); }
  std::optional<BgpRoute> lookup_route(const net::Prefix& prefix) const override;

 private:
  BgpRoute Make(const net::Prefix& prefix, const StoredRoute& stored) const;

  stage::Plumber* plumber_;
  RouteTableSet* tables_;
  Options options_;
  stage::ProfilePoint* route_in_ = nullptr;
  const PeerSource* source_ = nullptr;
  std::unique_ptr<RouteTable> table_;
  int deletions_started_ = 0;
  int deletions_running_ = 0;
  std::vector<DeletionStage*> held_;  // not started yet: they cannot finish, so stay valid
  // Deletion stages hold this to report back; reset when PeerIn goes away first.
  std::shared_ptr<PeerIn*> self_;
};

}  // namespace sluice::bgp
