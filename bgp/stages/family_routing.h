#pragma once
// FamilyRouting: one address family's routing as BgpPeer and BgpRouting drive it — the serial
// FamilyPipeline (family_pipeline.h), or the sharded one (ShardedRouting, shard_pipeline.h: the
// same stages, one copy per worker thread, each for its share of the prefixes). Both give the same
// routes and the same UPDATEs. Everything here is called on the event loop.
//
// RouteInput is how a session's routes enter: a peer's Adj-RIB-In (PeerIn) in the serial
// pipeline, a hand-over to the shards otherwise.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bgp/session/session_link.h"
#include "bgp/stages/route.h"
#include "net/ip_address.h"
#include "net/prefix.h"

namespace sluice::stage {
class Plumber;
}  // namespace sluice::stage

namespace sluice::bgp {

class FamilyPipeline;
struct PeerSettings;
struct RouterSettings;

// kAdjRibIn: as received (pre-policy); kAdjRibInPost: after the peer's import policy (the routes
// its ImportFilter passes on, as it changed them).
enum class RibView { kAdjRibIn, kAdjRibInPost, kLocRib, kAdjRibOut };

// Which routes to read. Routes come in prefix order; a page ends after `max` routes and the next
// one starts `after` the last prefix returned.
struct RouteQuery {
  RibView view = RibView::kLocRib;
  net::Family family = net::Family::kIPv4;
  std::optional<net::IPAddress> peer;   // Adj-RIB-In / Adj-RIB-Out: whose
  std::optional<net::Prefix> prefix;    // exactly this prefix
  std::optional<net::Prefix> within;    // prefixes inside this one (itself included)
  std::optional<net::Prefix> after;     // paging: start after this prefix
  std::optional<rpki::RpkiState> rpki;  // only routes of this RPKI state (RFC 6811)
  size_t max = 1000;
};

// A peer's routes as its session delivers them (RFC 4271 §3.2 Adj-RIB-In).
class RouteInput {
 public:
  virtual ~RouteInput() = default;
  // Adds or replaces the route for `prefix`. False when the input takes nothing (session down).
  virtual bool Announce(const net::Prefix& prefix, const AttrRef& attrs, uint32_t path_id = 0) = 0;
  // Removes the route for `prefix`; false when there was none (inputs that cannot tell at once
  // answer true).
  virtual bool Withdraw(const net::Prefix& prefix) = 0;
  // The end of a batch (one UPDATE).
  virtual void Push() = 0;
};

// Counters of one peer in one family (PeerStatus).
struct PeerCounts {
  size_t received = 0;    // in the Adj-RIB-In
  size_t accepted = 0;    // past the import filter
  size_t advertised = 0;  // in the Adj-RIB-Out
  uint64_t updates_sent = 0;
  bool end_of_rib_sent = false;
  size_t stale = 0;  // routes of an earlier session kept for a restarting peer (RFC 4724)
};

class FamilyRouting {
 public:
  virtual ~FamilyRouting() = default;

  virtual net::Family family() const = 0;
  // New router settings (local AS, BGP Identifier, cluster id; the decision options stay): used
  // by what is configured or comes up from now on; configured peers take them with UpdatePeer.
  virtual void SetRouter(const RouterSettings& router) = 0;

  // --- Peers (see FamilyPipeline) ------------------------------------------------------------
  virtual void AddPeer(const PeerSettings& settings) = 0;
  virtual void UpdatePeer(const PeerSettings& settings) = 0;
  virtual void RemovePeer(uint32_t peer_id) = 0;
  virtual void PeerUp(uint32_t peer_id, const PeerSource* source, SessionSender* sender,
                      const EstablishedInfo& info) = 0;
  virtual void PeerDown(uint32_t peer_id) = 0;
  // The session left Established in a way that lets the peer restart (RFC 4724 §4.2, RFC 8538):
  // its output branch goes, but its routes stay everywhere, stale, until SweepStale. A PeerDown,
  // InputDown or RemovePeer later sweeps them too.
  virtual void PeerDownGraceful(uint32_t peer_id) = 0;
  // The stale routes of the peer in this family are withdrawn now (in the background): its
  // End-of-RIB came, a timer expired, or it came back without keeping its forwarding state.
  virtual void SweepStale(uint32_t peer_id) = 0;
  // RFC 7606 AFI/SAFI disable (RFC 4760 §7): the peer's routes of this family go (in the
  // background) and its input takes nothing more until the next PeerUp; what we send the peer is
  // not affected.
  virtual void InputDown(uint32_t peer_id) = 0;
  // Where the peer's routes go while its session is up (null otherwise).
  virtual RouteInput* input(uint32_t peer_id) = 0;
  virtual void RouteRefresh(uint32_t peer_id) = 0;
  virtual void Writable(uint32_t peer_id) = 0;
  // Routes of the peer in its Adj-RIB-In, before import policy (what max-prefix counts by
  // default, and what the Adj-RIB-In ceiling bounds).
  virtual size_t received(uint32_t peer_id) = 0;
  // Routes of the peer accepted by import (max-prefix ... accepted).
  virtual size_t accepted(uint32_t peer_id) = 0;
  // The peer's counts for the peer list. With shards, as they last published them (after each
  // UPDATE and each change of the peer's state they processed): never waits for a shard.
  virtual PeerCounts Counts(uint32_t peer_id) = 0;

  // --- Originated routes, the RIB ------------------------------------------------------------
  virtual RouteInput* local_input() = 0;
  virtual void RibBorn() = 0;
  // The RIB has been handed every route of this family: the RIB branch's dump is done and nothing
  // waits in the branch (true without a RIB branch). What follows on the RIB's ordered stream
  // (rib/1.0/end_of_rib) comes after those routes.
  virtual bool RibSynced() = 0;
  // The same answer through `done`, on the event loop, maybe later: the sharded routing asks its
  // shards without waiting for them; the serial pipeline answers at once.
  virtual void RibSyncedAsync(std::function<void(bool synced)> done) { done(RibSynced()); }

  // --- Reading -------------------------------------------------------------------------------
  // One page of `query` (its family is this one's); `peer_id` names the peer of an Adj-RIB view.
  // Errors: NotFound when the peer does not run this family.
  virtual absl::StatusOr<std::vector<BgpRoute>> ReadRoutes(const RouteQuery& query,
                                                           uint32_t peer_id) = 0;
  // Every candidate for `prefix` (the Loc-RIB route among them).
  virtual std::vector<BgpRoute> Candidates(const net::Prefix& prefix) = 0;
  // ReadRoutes and Candidates answered through `done` on the event loop, maybe later (as
  // RibSyncedAsync). What the event loop serves (show commands, table dumps, BMP) reads this way.
  using RoutesDone = std::function<void(absl::StatusOr<std::vector<BgpRoute>>)>;
  virtual void ReadRoutesAsync(const RouteQuery& query, uint32_t peer_id, RoutesDone done) {
    done(ReadRoutes(query, peer_id));
  }
  virtual void CandidatesAsync(const net::Prefix& prefix,
                               std::function<void(std::vector<BgpRoute>)> done) {
    done(Candidates(prefix));
  }
  // Stages that live elsewhere than the caller's Plumber (the shards'), for `show plumbing`.
  // DescribeShards waits for every shard (tests); DescribeShardsAsync answers through `done` on
  // the event loop, maybe later, without waiting (as RibSyncedAsync).
  virtual std::string DescribeShards() const { return {}; }
  virtual void DescribeShardsAsync(std::function<void(std::string)> done) const {
    done(DescribeShards());
  }

  // --- Control of the pipeline copies --------------------------------------------------------
  // Runs `fn(pipeline, plumber)` on every copy of this family's FamilyPipeline, on the thread that
  // owns the copy, with the Plumber that owns its stages (plumber.io() is that thread's event
  // loop), and returns when every call has returned:
  //   - the serial pipeline: one call, at once, on the event loop (the caller's thread);
  //   - ShardedRouting: one call per shard, on the shard's worker thread, in order with the
  //     routes handed to the shard before (a route sent before the call has been through the
  //     copy; one sent after it meets what `fn` plumbed), one shard after the other — never two
  //     calls at once, so `fn` may collect results into the caller's variables without a lock.
  // For control operations that plumb, unplumb or read stages of a copy (route flap damping,
  // damping_control.h). `fn` must not keep a pointer to a stage of a copy past its return, nor
  // touch another copy or the event loop's stages; the event loop waits meanwhile, so `fn` must
  // not wait for it. Call on the event loop only.
  virtual void ForEachPipeline(
      const std::function<void(FamilyPipeline& pipeline, stage::Plumber& plumber)>& fn) = 0;
  // The same without waiting: `fn(pipeline, plumber, copy)` runs on each copy's thread in order
  // with the routes handed to it before, then `done` on the event loop (never inside this call
  // with shards; at once with the serial pipeline). With shards the copies run at the same time:
  // `fn` may write only what belongs to its `copy` (0 .. copies() - 1).
  using CopyFn = std::function<void(FamilyPipeline& pipeline, stage::Plumber& plumber, int copy)>;
  virtual void ForEachPipelineAsync(CopyFn fn, std::function<void()> done) = 0;
  // The number of copies of the pipeline (the shards; 1 for the serial pipeline).
  virtual int copies() const { return 1; }
};

}  // namespace sluice::bgp
