#pragma once
// FamilyPipeline: the stages of one address family (IPv4 or IPv6 unicast) and how they are
// plumbed (DESIGN.md § Route stages):
//
//   PeerIn(P) → [Deletion]* → [OriginValidation(P)] → ImportFilter(P) → [Damping] →
//       [RouteMonitor(P)] → NexthopResolver(P) ┐
//   PeerIn(local) ─────────────────────────────┤
//                                     Decision ←┘
//   Decision → [RouteMonitor] → Fanout ─┬→ FanoutReader(P) → [Dump] → ExportFilter(P) → PeerOut(P)
//   → UPDATEs
//                      └→ FanoutReader(rib) → [Dump] → RibOut → RibRouteClient
//
// A peer's input branch exists from AddPeer to RemovePeer (empty while the session is down);
// its output branch (FanoutReader → Dump → ExportFilter → PeerOut) exists while the session is
// Established, and starts with a Dump of the Loc-RIB ending in End-of-RIB. Deletion and Dump
// stages are dynamic: they plumb and unplumb themselves. The RIB's branch is rebuilt (with a
// Dump) when the RIB is born again. With `consistency_checks` a CacheStage follows every stage
// (tests); violations() lists what they found.
//
// Everything runs on the event loop of `services.plumber`. The pipeline never touches sessions
// directly except through the SessionSender given to PeerUp.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bgp/session/session_link.h"
#include "bgp/stages/bgp_stage.h"
#include "bgp/stages/branch_tail.h"
#include "bgp/stages/decision.h"
#include "bgp/stages/dump_stage.h"
#include "bgp/stages/export_filter.h"
#include "bgp/stages/family_routing.h"
#include "bgp/stages/fanout.h"
#include "bgp/stages/import_filter.h"
#include "bgp/stages/nexthop_cache.h"
#include "bgp/stages/nexthop_resolver.h"
#include "bgp/stages/origin_validation.h"
#include "bgp/stages/peer_in.h"
#include "bgp/stages/peer_out.h"
#include "bgp/stages/rib_client.h"
#include "bgp/stages/rib_out.h"
#include "bgp/stages/route_monitor.h"
#include "stage/cache_stage.h"
#include "stage/plumber.h"
#include "stage/profile.h"

namespace sluice::bgp {

// The router's own BGP settings.
struct RouterSettings {
  uint32_t local_as = 0;
  net::IPv4Address router_id;  // BGP Identifier
  uint32_t cluster_id = 0;     // RFC 4456; the router id when not configured
  DecisionOptions decision;
};

// One peer's settings, for both families.
struct PeerSettings {
  uint32_t peer_id = 0;  // stable, non-zero
  std::string name;
  net::IPAddress address;
  uint32_t peer_as = 0;
  bool ibgp = false;                            // peer_as == local AS
  bool rr_client = false;                       // a route-reflector client of ours (RFC 4456)
  bool next_hop_self = false;                   // towards an internal peer too
  bool ebgp_requires_policy = true;             // RFC 8212 for an external peer
  std::optional<net::Prefix> shared_subnet;     // third-party nexthops (RFC 4271 §5.1.3)
  std::optional<net::IPAddress> nexthop_v4;     // our nexthop towards the peer, per family
  std::optional<net::IPAddress> nexthop_v6;     // (default: the session's local address)
  policy::FilterSlot* import_policy = nullptr;  // owned by the caller; outlive the peer
  policy::FilterSlot* export_policy = nullptr;
};

struct PipelineOptions {
  bool consistency_checks = false;  // a CacheStage after every stage (tests only)
  size_t deletion_slice = 1000;     // routes per background deletion slice
  size_t dump_slice = 1000;         // prefixes per dump slice
  PeerOut::Options peer_out;
  RibOut::Options rib_out;
  // The shard stage (RouterConfig::threads > 1): routes per hand-over batch; routes handed to
  // one shard and not yet processed above which the sessions stop reading (until it is down to
  // half); within a burst of UPDATEs, how long routes may wait for more before they are handed to
  // an idle shard (stage::ShardOptions::coalesce; 0: after every UPDATE). Every route waiting for
  // a shard, and every change waiting for the loop, holds its attribute set: the backlog is what
  // a burst (a full table, many peers' churn) keeps in memory; 4 batches are enough to keep the
  // shards busy (bench/convergence/README.md, Many peers).
  size_t shard_batch = 1024;
  size_t shard_backlog = 4096;
  // Changes one shard made for the loop (a change for each peer that takes a route) and the loop
  // has not delivered yet, above which the shard takes no more routes, after the UPDATE at hand,
  // until the loop is down to half (stage::ShardOptions::max_out_backlog). With many peers this,
  // not shard_backlog, bounds a burst's memory (bench/convergence/README.md, Many peers).
  size_t shard_out_backlog = 16384;
  int64_t shard_coalesce_us = 500;
};

struct PipelineServices {
  stage::Plumber* plumber = nullptr;
  AttributeStore* store = nullptr;
  NexthopCache* nexthops = nullptr;
  PeerSourceRegistry* sources = nullptr;
  RibRouteClient* rib = nullptr;        // null: no RIB branch
  stage::Profiler* profiler = nullptr;  // null: no profiling points
  // Null: branches end in PeerOut and RibOut. Otherwise the factory makes their tails (a shard's
  // copy of the pipeline, shard_pipeline.h); the RIB branch exists when it says so.
  BranchTailFactory* tails = nullptr;
  // Non-null: every peer's branch validates route origins against this VRP set (RPKI).
  const rpki::OriginValidator* validator = nullptr;
  // Non-null: RouteMonitorStages report changes to the slot's monitor (BMP, route_monitor.h):
  // one after each peer's ImportFilter (its post-policy Adj-RIB-In), one between Decision and
  // the Fanout (the Loc-RIB).
  const RouteMonitorSlot* route_monitor = nullptr;
};

class FamilyPipeline : public FamilyRouting {
 public:
  FamilyPipeline(net::Family family, const RouterSettings& router, PipelineServices services,
                 PipelineOptions options);
  ~FamilyPipeline() override;
  FamilyPipeline(const FamilyPipeline&) = delete;
  FamilyPipeline& operator=(const FamilyPipeline&) = delete;

  net::Family family() const override { return family_; }
  AfiSafi afi_safi() const { return AfiSafi{AfiOf(family_), Safi::kUnicast}; }

  void SetRouter(const RouterSettings& router) override;

  // --- Peers ---------------------------------------------------------------------------------
  void AddPeer(const PeerSettings& settings) override;
  // New import/export settings or policies: routes move over in background walks.
  void UpdatePeer(const PeerSettings& settings) override;
  // Takes the peer away (its session must be down): its stages go once its routes are gone.
  void RemovePeer(uint32_t peer_id) override;
  bool HasPeer(uint32_t peer_id) const { return branches_.contains(peer_id); }

  // The session is Established: routes from it come from `source`; its output branch starts
  // with a dump of the Loc-RIB, then End-of-RIB.
  void PeerUp(uint32_t peer_id, const PeerSource* source, SessionSender* sender,
              const EstablishedInfo& info) override;
  // The session left Established: its routes are deleted in the background, its output branch
  // goes away.
  void PeerDown(uint32_t peer_id) override;
  void PeerDownGraceful(uint32_t peer_id) override;
  void SweepStale(uint32_t peer_id) override;
  void InputDown(uint32_t peer_id) override;
  bool PeerIsUp(uint32_t peer_id) const;
  // The Adj-RIB-In of the peer: where its UPDATEs go (Announce/Withdraw/Push).
  PeerIn* peer_in(uint32_t peer_id);
  RouteInput* input(uint32_t peer_id) override { return peer_in(peer_id); }
  size_t received(uint32_t peer_id) override;
  size_t accepted(uint32_t peer_id) override;
  PeerCounts Counts(uint32_t peer_id) override;
  ImportFilter* import_filter(uint32_t peer_id);  // e.g. to plumb a Damping stage after it
  PeerOut* peer_out(uint32_t peer_id);            // null while down, or with other tails
  BranchTail* peer_tail(uint32_t peer_id);        // PeerOut or the factory's; null while down
  ExportFilter* export_filter(uint32_t peer_id);  // null while down
  // RFC 2918 from the peer: re-send what it has from us.
  void RouteRefresh(uint32_t peer_id) override;
  // The peer's session can take more.
  void Writable(uint32_t peer_id) override;

  // --- RPKI (origin_validation.h) -----------------------------------------------------------
  // The VRPs with these prefixes are about to enter or leave the set: every branch notes the
  // routes they cover. Then, once the set has changed, Revalidate re-checks them in the
  // background. No effect without a VRP set.
  void PrepareRevalidation(const std::vector<net::Prefix>& vrp_prefixes);
  void Revalidate();
  OriginValidation* origin_validation(uint32_t peer_id);  // null without RPKI

  // --- Originated routes ---------------------------------------------------------------------
  PeerIn* local_in() { return local_in_; }
  RouteInput* local_input() override { return local_in_; }

  // --- RIB -----------------------------------------------------------------------------------
  // A new RIB instance: rebuilds the RIB branch, which sends every route again.
  void RibBorn() override;
  bool RibSynced() override;
  RibOut* rib_out() { return rib_out_; }  // null without a RIB, or with other tails
  BranchTail* rib_tail() { return rib_tail_; }

  // --- Reading -------------------------------------------------------------------------------
  Decision* decision() { return decision_; }
  Fanout* fanout() { return fanout_; }
  const PrefixSource& loc_rib_prefixes() const { return loc_rib_prefixes_; }
  // The route the peer has from us for `prefix` (through its output branch).
  std::optional<BgpRoute> AdjRibOutLookup(uint32_t peer_id, const net::Prefix& prefix);
  absl::StatusOr<std::vector<BgpRoute>> ReadRoutes(const RouteQuery& query,
                                                   uint32_t peer_id) override;
  std::vector<BgpRoute> Candidates(const net::Prefix& prefix) override {
    return decision_->Candidates(prefix);
  }

  // One call, `fn(*this, plumber)`, at once (FamilyRouting::ForEachPipeline).
  void ForEachPipeline(const std::function<void(FamilyPipeline&, stage::Plumber&)>& fn) override {
    fn(*this, *plumber_);
  }
  void ForEachPipelineAsync(CopyFn fn, std::function<void()> done) override {
    fn(*this, *plumber_, 0);
    done();
  }

  // Violations found by the CacheStages (consistency_checks only), and a check of every
  // cache against its upstream (number of new violations).
  const std::vector<std::string>& violations() const { return *violations_; }
  size_t VerifyCaches();

 private:
  struct Output {
    FanoutReader* reader = nullptr;
    ExportFilter* exporter = nullptr;
    BranchTail* tail = nullptr;
    PeerOut* out = nullptr;  // the tail when it is a PeerOut
  };
  struct Branch {
    PeerSettings settings;
    std::unique_ptr<RouteTableSet> tables;
    PeerIn* in = nullptr;
    OriginValidation* validation = nullptr;  // with a VRP set only
    ImportFilter* import = nullptr;
    NexthopResolver* resolver = nullptr;
    std::vector<stage::StageBase*> stages;  // the input branch's stages as built
    std::optional<Output> output;
    EstablishedInfo info;
    bool removing = false;
  };

  // Plumbs `next` after `*tail` (with a cache in between when checking) and makes it the tail.
  template <class S>
  S* Append(BgpStage** tail, S* next, std::vector<stage::StageBase*>* stages,
            const std::string& where);
  ImportConfig MakeImportConfig(const PeerSettings& s) const;
  ExportConfig MakeExportConfig(const PeerSettings& s, const EstablishedInfo& info) const;
  // Unplumbs and retires the chain that hangs off `reader` (and the reader).
  void RemoveOutputChain(FanoutReader* reader);
  bool HasRib() const;
  void BuildRibBranch();
  void FinishRemoval(uint32_t peer_id);
  void Down(uint32_t peer_id, PeerIn::Down how);
  std::string Name(const std::string& kind, const std::string& peer) const;

  net::Family family_;
  RouterSettings router_;
  PipelineServices services_;
  PipelineOptions options_;
  stage::Plumber* plumber_;
  std::shared_ptr<std::vector<std::string>> violations_;
  std::vector<stage::CacheStage<BgpRoute>*> caches_;
  PrefixSourceUnion loc_rib_;  // the peer branches' tables
  LocRibPrefixes loc_rib_prefixes_{&loc_rib_};
  RouteTableSet local_tables_;
  PeerIn* local_in_ = nullptr;
  Decision* decision_ = nullptr;
  Fanout* fanout_ = nullptr;
  FanoutReader* rib_reader_ = nullptr;
  RibOut* rib_out_ = nullptr;
  BranchTail* rib_tail_ = nullptr;
  int rib_generation_ = 0;
  bool rib_dump_done_ = false;  // the current RIB branch's Dump finished
  std::map<uint32_t, Branch> branches_;
  // The export memos of the branches, one per transform (export_rules.h).
  std::shared_ptr<ExportMemoPool> export_memos_ = std::make_shared<ExportMemoPool>();
  // Table sets of removed branches, kept until their stages are destroyed.
  std::vector<std::unique_ptr<RouteTableSet>> retired_tables_;
  std::shared_ptr<FamilyPipeline*> self_;
};

}  // namespace sluice::bgp
