#pragma once
// MergeStage: picks one route per prefix among several upstream stages by admin distance
// (XORP NSDI'05 §5.2, MergedTable; one stage with N parents instead of a tree of two-parent
// tables).
//
// For each prefix the merge sends downstream the preferred route among its parents' routes
// (rib_route.h Preferred: the lower admin distance wins; on equal distances the protocol whose
// name sorts first — documented so the choice never depends on arrival order). It stores
// nothing: on a change from one parent it asks the other parents (lookup_route) for their
// routes and sends the difference between the old and the new winner. lookup_route answers the
// preferred route among the parents' answers. Parents may be added at any time (a protocol's
// first route creates its origin); a new parent must be empty when plumbed.

#include <optional>
#include <string>
#include <vector>

#include "rib/rib_stage.h"

namespace sluice::rib {

class MergeStage : public RibStage {
 public:
  using RibStage::RibStage;

  std::string_view kind() const override { return "Merge"; }
  std::string Status() const override { return "parents=" + std::to_string(parents_.size()); }

  void add_route(const RibRoute& route, RibStage* caller) override;
  void delete_route(const RibRoute& route, RibStage* caller) override;
  void replace_route(const RibRoute& old_route, const RibRoute& new_route,
                     RibStage* caller) override;
  void push(RibStage* caller) override;
  std::optional<RibRoute> lookup_route(const net::Prefix& prefix) const override;

  std::vector<const StageBase*> upstream_stages() const override;
  std::vector<const StageBase*> downstream_stages() const override;
  void ConnectUpstream(RibStage* upstream) override;
  void ConnectDownstream(RibStage* downstream) override { downstream_ = downstream; }
  void DisconnectUpstream(RibStage* upstream) override;
  void DisconnectDownstream(RibStage* downstream) override;
  void ReplaceUpstream(RibStage* old_stage, RibStage* new_stage) override;
  void ReplaceDownstream(RibStage* old_stage, RibStage* new_stage) override;

 private:
  // The preferred route for `prefix` among the parents other than `except`.
  std::optional<RibRoute> BestOfOthers(const net::Prefix& prefix, const RibStage* except) const;

  std::vector<RibStage*> parents_;
  RibStage* downstream_ = nullptr;
};

}  // namespace sluice::rib
