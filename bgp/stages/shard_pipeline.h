#pragma once
// ShardedRouting: the BGP pipeline spread over N worker threads (DESIGN.md § The shard stage;
// Juniper's RIB sharding with update threads). `bgp { threads N; }` with N > 1.
//
// It is the shard stage (stage/shard_stage.h) with a FamilyPipeline copy per family as each
// shard's sub-network: every peer's input (and the local one) is an input port, every output
// branch (a peer's, the RIB's) an output port.
//
//   event loop                                  shard i (worker thread i, its own loop)
//   BgpPeer ─UPDATE─▶ RouteInput ─InputPort─▶    FamilyPipeline copy, for the prefixes with
//     (hash of the prefix's /16 picks the shard)  ShardOf(prefix, N) == i:
//                                                 PeerIn → [Deletion] → ImportFilter →
//                                                 NexthopResolver → Decision → Fanout ─┬→
//                                                 ExportFilter(P) → ShardTail
//                                                                                      └→
//                                                                                      ShardTail(rib)
//   PeerOut(P) ◀─OutputPort─ (every shard's changes of one UPDATE, then one push)
//   RibOut     ◀─OutputPort─
//
// Each shard owns everything that is per prefix: the Adj-RIB-In of its prefixes (PeerIn and
// Deletion stages), the filters, the resolver's records, Decision and the Fanout's queue — so
// every lookup a stage makes on the hot path (Decision asking each peer's branch, re-filter and
// dump walks) stays on the shard's thread, and no shard reads another's state. What is not per
// prefix stays central: nexthop resolution (one NexthopCache read by every shard; its RIB calls
// run on the event loop). Attribute sets: the sessions' decoders intern into `services.store`;
// each shard's filters intern into that store's Local(i), so a shard's locks and tables are on
// lines no other thread writes, and equal sets of two shards are equal by content, not handle.
// What the export rules make is transient (AttributeStore::MakeTransient), and PeerOut groups by
// content.
//
// Outputs meet on the event loop in each peer's PeerOut: the shard stage delivers, epoch by epoch
// (one UPDATE in = one epoch), every shard's changes of that UPDATE through the stage contract
// and then pushes once, so PeerOut groups prefixes that share an attribute set across all shards
// into one UPDATE — the same UPDATEs as the serial pipeline. End-of-RIB goes out when every
// shard's dump is done (the kEndOfRib barrier); a refresh walks each shard's prefixes and each
// route comes back as BranchTail::Readvertise (the kReadvertise signal).
// Flow control: the branch's output port is its PeerOut's (or RibOut's) FlowControl; when it
// blocks, every shard's FanoutReader of that branch is blocked (a command in order with the
// routes), and unblocked likewise. Towards the
// input: the loop never waits for a shard; when a shard has more than
// PipelineOptions::shard_backlog routes not yet processed, the backpressure callback says so
// (BgpRouting then stops every session reading), and again when it is down to half. A shard
// with as many changes for the branches not yet delivered to them takes no routes meanwhile.
//
// Reads (`show bgp routes` and candidates, table dumps, BMP snapshots, the RIB-synced check) run
// on the shards' threads through ShardRunner::QueryAsync; the merged answer comes back to the
// loop, which goes on meanwhile. The peers' counts (max-prefix after each UPDATE, the peer list)
// are what the shards publish after each UPDATE and state change they process, so they lag by
// the UPDATEs in flight. Control that reaches into stages (damping, RPKI revalidation) goes to
// every shard in order with its routes (FamilyRouting::ForEachPipelineAsync) and answers later
// too: a VRP change is applied once every shard has noted what it covers. `show plumbing` and the
// consistency checks (tests) still wait for each shard in turn (ShardRunner::Query).
//
// Policy changes: BgpRouting::UpdatePeer reaches every shard at once; a new filter put into a
// peer's FilterSlot without UpdatePeer is noticed at the peer's next UPDATE (import) or within 64
// UPDATEs of any peer (export), then every shard re-filters its share.

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bgp/stages/family_pipeline.h"
#include "bgp/stages/family_routing.h"
#include "bgp/stages/shard_tail.h"
#include "stage/shard_stage.h"

namespace sluice::bgp {

class ShardedRouting {
 public:
  // `threads` shards (worker threads). `services`: the event loop's (its Plumber owns the PeerOut
  // and RibOut stages where the shards' outputs meet; shard i's filters intern into
  // services.store->Local(i)); `families[i]`: run IPv4 (0) / IPv6 (1).
  ShardedRouting(int threads, const RouterSettings& router, PipelineServices services,
                 PipelineOptions options, std::array<bool, 2> families);
  ~ShardedRouting();
  ShardedRouting(const ShardedRouting&) = delete;
  ShardedRouting& operator=(const ShardedRouting&) = delete;

  // The family's routing (slot 0 IPv4, 1 IPv6); null when not run.
  FamilyRouting* family(int slot);
  int threads() const;
  // Until the shards and the loop have nothing left to do (tests, benchmarks).
  void Settle();
  // Called on the loop with a peer's id once every shard has processed an UPDATE of the peer:
  // its published received and accepted counts (FamilyRouting::received / accepted) are then up
  // to date, which they were not when the UPDATE was handed over (max-prefix and the Adj-RIB-In
  // ceiling look again).
  void SetCountsChanged(std::function<void(uint32_t peer_id)> callback) {
    counts_changed_ = std::move(callback);
  }
  // Called on the loop with true when a shard's input passed PipelineOptions::shard_backlog
  // (stop feeding), and with false when every such shard is down to half of it.
  void SetBackpressure(std::function<void(bool full)> callback) {
    backpressure_ = std::move(callback);
  }
  // Consistency violations the shards' CacheStages found (PipelineOptions::consistency_checks),
  // after a check of every cache against its upstream.
  std::vector<std::string> Violations();
  // Each shard's input queue (routes handed to it and not yet processed: "shard 0 input", kind
  // "ShardInput") and its Fanouts ("shard 0 v4 Fanout", as the Fanout last published it), read
  // on the loop without waiting for the shards. The shards' other stages are not read.
  std::vector<stage::Plumber::QueueDepth> QueueDepths() const;

  struct Worker;  // one shard's sub-network (defined in the .cc)
  using Shards = stage::ShardStage<BgpRoute, Worker>;

 private:
  class Family;
  class Input;

  uint32_t NewPort() { return next_port_++; }
  // Retires a branch's PeerOut or RibOut and stops its output port.
  void RemoveBranch(uint32_t port, BranchTail* tail);
  // After every UPDATE a peer's input pushed: the export slots, every kExportCheckEvery.
  void AfterBatch();
  void CountsDelivered();

  RouterSettings router_;
  PipelineServices services_;
  PipelineOptions options_;
  std::unique_ptr<Shards> shards_;
  std::array<std::unique_ptr<Family>, 2> families_;
  // Peers' UPDATEs handed to the shards whose counts are not announced yet: (epoch, peer id), in
  // epoch order.
  std::deque<std::pair<uint64_t, uint32_t>> counts_pending_;
  std::function<void(uint32_t peer_id)> counts_changed_;
  std::function<void(bool full)> backpressure_;
  uint32_t next_port_ = 1;
  uint64_t pushes_ = 0;
};

}  // namespace sluice::bgp
