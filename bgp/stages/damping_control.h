#pragma once
// DampingControl: plumbs and unplumbs DampingStages (damping_stage.h) in a BgpRouting's
// pipelines — the only place that knows the damping stage exists. Nothing else in
// bgp/stages changes: a stage is inserted with Plumber::InsertAfter(import_filter(peer), stage),
// and a peer's removal retires whatever was plumbed in its branch (FamilyPipeline::FinishRemoval).
//
//   `bgp { damping { half-life 15m; reuse 750; suppress 6000; max-suppress 1h; } }`
//        → SetParams (every damped peer takes them; penalties are kept)
//   `peer X { damping; }`      → Enable(X): one DampingStage per family after ImportFilter(X)
//   no `damping;` any more     → Disable(X): suppressed routes are released, the stages go
//   `show bgp damping`         → List()
//
// Threads: with `bgp { threads N; }` (N > 1) every shard owns a copy of the pipeline
// for its share of the prefixes, so a damped peer has one DampingStage per family in every shard,
// each living on its shard's thread with its timer on that shard's event loop, and damping only
// the prefixes of its shard — which is all a prefix's figure of merit needs (RFC 2439 §4.2 is per
// prefix). Every operation here reaches the copies through FamilyRouting::ForEachPipelineAsync
// (on their threads, in order with the routes handed to them, the event loop going on
// meanwhile), so the results are the same for 1 and N threads; no pointer to a stage ever leaves
// its thread. SetParams, Enable and Disable return once the change is on its way to every copy;
// ListAsync answers later on the loop. StageCount waits for the copies (tests).
//
// Damping belongs to a configured peer: when the peer is removed its stages go with it, and a
// peer added again must be enabled again (the router manager sends the configuration).
// Every call on the routing side's event loop.

#include <boost/asio/io_context.hpp>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "bgp/stages/bgp_routing.h"
#include "bgp/stages/damping_stage.h"

namespace sluice::bgp {

struct PeerDampedPrefix {
  net::IPAddress peer;
  DampedPrefix damped;
};

class DampingControl {
 public:
  // Makes the clock of a stage whose stages run on the loop `io` (the event loop's, or a shard's
  // with threads > 1); called on that loop's thread. The clock's timer must fire on `io`.
  using ClockFactory = std::function<std::unique_ptr<DampingClock>(boost::asio::io_context& io)>;
  // `clocks`: null → MakeAsioDampingClock(io).
  explicit DampingControl(BgpRouting* routing, ClockFactory clocks = nullptr);

  // Errors: InvalidArgument (DampingParams::Validate).
  absl::Status SetParams(const DampingParams& params);
  const DampingParams& params() const { return params_; }

  // Errors: NotFound for a peer that is not configured. Enabling twice is a no-op.
  absl::Status Enable(const net::IPAddress& peer);
  absl::Status Disable(const net::IPAddress& peer);
  // Enabled and not disabled since (for the peer as configured now).
  bool enabled(const net::IPAddress& peer);
  // The configured peers with damping on, by address.
  std::vector<net::IPAddress> DampedPeers();

  // Every damped prefix of every damped peer (or `peer` only), merged from every shard, sorted
  // by peer address then prefix; through `done` on the event loop.
  using ListDone = std::function<void(std::vector<PeerDampedPrefix>)>;
  void ListAsync(bool suppressed_only, const std::optional<net::IPAddress>& peer, ListDone done);

  // The number of the peer's damping stages: one per family run per pipeline copy (so 2 with
  // both families and one thread, 2·N with N shards); 0 when the peer is not damped or unknown.
  size_t StageCount(const net::IPAddress& peer);

 private:
  // Runs `fn` on the peer's DampingStage in every copy of every family's pipeline, on the copy's
  // thread (ForEachPipelineAsync); copies where the peer has no stage are skipped. `fn` runs in
  // several copies at once.
  using StageFn = std::function<void(DampingStage&, stage::Plumber&)>;
  void ForEachStage(uint32_t peer_id, StageFn fn);

  BgpRouting* routing_;
  ClockFactory clocks_;
  DampingParams params_;
  absl::flat_hash_set<uint32_t> enabled_;  // peer ids (a peer added again has a new one)
};

}  // namespace sluice::bgp
