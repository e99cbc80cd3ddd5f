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
// answers what it sent.
//
// Cost: one lookup per other parent per change (cheap with a few peers; a full table from each
// of many peers would want a Loc-RIB index, which costs memory — not done).

#include <string>
#include <vector>

#include "bgp/stages/bgp_stage.h"
#include "bgp/stages/decision_process.h"

namespace sluice::bgp {

class Decision : public BgpStage {
 public:
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
  void DisconnectUpstream(BgpStage* s) override;
  void DisconnectDownstream(BgpStage* s) override {
    if (downstream_ == s) downstream_ = nullptr;
  }
  void ReplaceUpstream(BgpStage* old_stage, BgpStage* new_stage) override;
  void ReplaceDownstream(BgpStage* old_stage, BgpStage* new_stage) override {
    if (downstream_ == old_stage) downstream_ = new_stage;
  }

 private:
  void Decide(BgpStage* caller, const BgpRoute* old_route, const BgpRoute* new_route);

  DecisionOptions options_;
  std::vector<BgpStage*> parents_;
  BgpStage* downstream_ = nullptr;
  size_t routes_ = 0;  // prefixes with a winner
};

}  // namespace sluice::bgp
