#pragma once
// Decision: the Loc-RIB's choice among the routes of every peer for each prefix (RFC 4271
// §9.1.2; XORP NSDI'05 §5.1 DecisionTable).
//
// A merge point: one parent per peer branch (a NexthopResolver, or the PeerIn of originated
// routes) and one downstream stage (the Fanout). Decision stores nothing (XORP): when a change
// arrives from one parent, it looks the prefix up in every other parent, runs the decision
// process (decision_process.h) over the alternatives with the route before the change and with
// the route after it, and sends downstream the difference between the two winners — an add, a
// delete, a replace, or nothing when the winner did not change. lookup_route runs the decision
// process over every parent's answer, which is what was sent downstream because every parent
// answers what it sent — or, when the index below records the winner, asks its parent alone.
//
// Cost: one lookup per other parent per change, and one per parent per lookup_route — cheap with
// one full feed. From kIndexFromParents parents on, Decision also keeps, per prefix, the set of
// parents that answered a route the last time it asked (a bit per parent slot; BIRD keeps a
// net's routes in one list for the same reason), and asks only those: a peer that just came up
// gets its dump (DumpStage) at one lookup per route, not one per peer. The set is a superset of
// the parents that hold a route, since a parent's every change reaches Decision, which then
// asks again; a parent that connects holds nothing yet, and one that leaves has deleted its
// routes first. Below kIndexFromParents — one upstream, a downstream peer and the routes this
// process originates: two lookups per change, in tables that hold little — the index is dropped:
// a full IPv4 table would cost about 25 MB of it (a hash slot per prefix) to spare lookups that
// find nothing. A second full feed makes the winner recorded below worth it.
//
// The index also keeps the slot of the route last sent downstream and its RankBeforeMed
// (decision_process.h), so that most changes need no lookup in the other parents: a route ranked
// strictly above the winner arrives, leaves or is replaced by another such route — nothing
// changes; one ranked strictly below the winner arrives (or replaces the winner) — it wins, and
// Decision asks only the winner's parent for the route it replaces. Any other change (a tie on
// the rank, the winner leaving or getting worse) asks every holder as above. Every change of
// every parent reaches Decision, so the winner recorded is the one sent, and lookup_route (a
// peer's dump asks it for every prefix) answers it with one lookup when its parent still holds a
// route of the recorded rank.
//
// Decision counts the routes its parents hold (adds less deletes). When indexing starts while
// that count is 0 — the usual case: peers are configured, so their branches plumbed, before
// routes arrive — or when the count falls back to 0, the index is complete: a prefix it does not
// know has no holder, and its first route asks no one. A complete index also lists the prefixes
// that may have a route, in order (CollectIndexedPrefixes): the walks over the Loc-RIB
// (LocRibPrefixes, below) take each prefix once from it, instead of once per peer's table that
// holds it.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "bgp/stages/bgp_stage.h"
#include "bgp/stages/decision_process.h"
#include "bgp/stages/prefix_index.h"

namespace sluice::bgp {

class Decision : public BgpStage {
 public:
  // Parents from which the per-prefix index of holders is kept; the slots a mask can name.
  static constexpr size_t kIndexFromParents = 4;
  static constexpr size_t kMaskSlots = 64;

  Decision(std::string name, DecisionOptions options);

  std::string_view kind() const override { return "Decision"; }
  std::string Status() const override;
  const DecisionOptions& options() const { return options_; }
  size_t loc_rib_size() const { return routes_; }

  void add_route(const BgpRoute& route, BgpStage* caller) override;
  void delete_route(const BgpRoute& route, BgpStage* caller) override;
  void replace_route(const BgpRoute& old_route, const BgpRoute& new_route,
                     BgpStage* caller) override;
  void push(BgpStage* caller) override;
  std::optional<BgpRoute> lookup_route(const net::Prefix& prefix) const override;
  // The winner and every candidate for `prefix` (for `show bgp routes` detail).
  std::vector<BgpRoute> Candidates(const net::Prefix& prefix) const;

  std::vector<const stage::StageBase*> upstream_stages() const override;
  std::vector<const stage::StageBase*> downstream_stages() const override;
  void ConnectUpstream(BgpStage* s) override;
  void ConnectDownstream(BgpStage* s) override { downstream_ = s; }
  // Prefixes whose holders are indexed (0 below kIndexFromParents parents).
  size_t indexed_prefixes() const { return holders_.size(); }
  // Changes decided from the recorded winner, without asking the other parents.
  size_t decided_from_winner() const { return decided_from_winner_; }
  // Lookups answered by the recorded winner's parent alone.
  size_t looked_up_from_winner() const { return looked_up_from_winner_; }
  // Whether the index names every holder of every prefix (see the file comment).
  bool index_complete() const { return complete_; }
  // PrefixSource::CollectPrefixes from the index, when it names every prefix that may have a
  // route (complete, and every parent in a slot a mask can name); false, having collected
  // nothing, when it does not.
  bool CollectIndexedPrefixes(const std::optional<net::Prefix>& after, size_t limit,
                              std::vector<net::Prefix>* sorted) const;
  void DisconnectUpstream(BgpStage* s) override;
  void DisconnectDownstream(BgpStage* s) override {
    if (downstream_ == s) downstream_ = nullptr;
  }
  void ReplaceUpstream(BgpStage* old_stage, BgpStage* new_stage) override;
  void ReplaceDownstream(BgpStage* old_stage, BgpStage* new_stage) override {
    if (downstream_ == old_stage) downstream_ = new_stage;
  }

 private:
  using Routes = absl::InlinedVector<BgpRoute, 4>;
  using Slots = absl::InlinedVector<size_t, 4>;
  // What the index knows of a prefix.
  struct Known {
    uint64_t holders = 0;         // slots that answered a route when last asked
    uint64_t winner = kNoWinner;  // PackWinner of the route sent downstream
  };
  static constexpr uint64_t kNoWinner = ~uint64_t{0};
  // The rank above 8 bits of slot (below kMaskSlots); a winner is eligible, so never kNoWinner.
  static_assert(kRankBits + 8 <= 64 && kMaskSlots < 256);
  static uint64_t PackWinner(uint64_t rank, size_t slot) { return rank << 8 | slot; }

  void Decide(BgpStage* caller, const BgpRoute* old_route, const BgpRoute* new_route);
  // The change decided from the recorded winner alone (see the file comment): returns false,
  // having changed nothing, when it takes asking the holders.
  bool DecideFromWinner(size_t slot, const BgpRoute* old_route, const BgpRoute* new_route);
  // The route of the recorded `winner` (PackWinner) of `prefix`, asked of its parent alone;
  // nullopt when that parent is gone or does not answer a route of the recorded rank.
  std::optional<BgpRoute> WinnerRoute(const net::Prefix& prefix, uint64_t winner) const;
  // The winner of `prefix` changes from `old_best` to `new_best` (either may be null).
  void SendChange(const BgpRoute* old_best, const BgpRoute* new_best);
  // Looks `prefix` up in the parents that may hold it (all when not indexed), except `skip`,
  // appending the routes to `out` and, unless `slots` is null, their slots to `slots`; returns
  // the mask of the slots that answered.
  uint64_t Ask(const net::Prefix& prefix, const BgpStage* skip, Routes* out, Slots* slots) const;
  // Records which slots hold `prefix` and, unless `winner` is null, the winner (when indexing).
  void Remember(const net::Prefix& prefix, uint64_t holders, const uint64_t* winner) const;
  static uint64_t SlotBit(size_t slot) { return slot < kMaskSlots ? uint64_t{1} << slot : 0; }
  // The slot of `parent`; slots_.size() when it is none.
  size_t SlotOf(const BgpStage* parent) const;
  size_t parent_count() const;
  void UpdateIndexing();

  DecisionOptions options_;
  // Parents by slot; nullptr where one left (its slot is taken by the next that connects).
  std::vector<BgpStage*> slots_;
  BgpStage* downstream_ = nullptr;
  size_t routes_ = 0;  // prefixes with a winner
  bool indexing_ = false;
  size_t decided_from_winner_ = 0;            // changes DecideFromWinner decided
  mutable size_t looked_up_from_winner_ = 0;  // lookups the winner's parent answered
  size_t held_ = 0;                           // routes the parents hold: adds less deletes
  bool complete_ = false;  // indexing, and every holder of every prefix is indexed
  // Prefix -> what the index knows (slots past kMaskSlots: always asked, never recorded winners).
  mutable PrefixIndex<Known> holders_;
};

// The Loc-RIB's prefixes, for the walks over it (a new peer's dump, an export re-filter, a route
// refresh): Decision's index when it can list them (Decision::CollectIndexedPrefixes), each
// prefix once, else the union of the peer branches' tables, where a prefix comes once per table
// that holds it.
class LocRibPrefixes : public PrefixSource {
 public:
  explicit LocRibPrefixes(const PrefixSource* tables) : tables_(tables) {}
  void set_decision(const Decision* decision) { decision_ = decision; }

  std::optional<net::Prefix> NextPrefix(const std::optional<net::Prefix>& after) const override;
  void CollectPrefixes(const std::optional<net::Prefix>& after, size_t limit,
                       std::vector<net::Prefix>* sorted) const override;

 private:
  const PrefixSource* tables_;
  const Decision* decision_ = nullptr;
};

}  // namespace sluice::bgp
