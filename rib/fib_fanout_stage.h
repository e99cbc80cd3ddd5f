#pragma once
// FibFanoutStage: where the RIB's winners leave for every FEA it feeds (DESIGN.md § Processes:
// one sluice-rib feeding several sluice-fea instances; the multistage router of Bianco et al.,
// one control processor distributing one table to many forwarding engines).
//
//   ... → [Redist]* → FibFanout ─┬─ FeaOut(fea)   → FibClient
//                                ├─ FeaOut(fea-2) → FibClient
//                                └─ ...
//
// Every add, delete, replace and push from upstream goes to each downstream FeaOut in turn, on
// the same call stack: a FeaOutStage only queues (bounded by FeaOutOptions::max_backlog) and
// never waits for its FEA, so a slow, stopped or dead FEA delays none of the others. Lookups go
// upstream: every FEA is sent the same winners. Holds no routes.

#include <string>
#include <vector>

#include "rib/rib_stage.h"

namespace sluice::rib {

class FibFanoutStage : public RibStage {
 public:
  explicit FibFanoutStage(std::string name) : RibStage(std::move(name)) {}

  std::string_view kind() const override { return "FibFanout"; }
  std::string Status() const override;

  void add_route(const RibRoute& route, RibStage* caller) override;
  void delete_route(const RibRoute& route, RibStage* caller) override;
  void replace_route(const RibRoute& old_route, const RibRoute& new_route,
                     RibStage* caller) override;
  void push(RibStage* caller) override;
  std::optional<RibRoute> lookup_route(const net::Prefix& prefix) const override;

  RibStage* upstream() const { return upstream_; }

  std::vector<const stage::StageBase*> upstream_stages() const override;
  std::vector<const stage::StageBase*> downstream_stages() const override;
  void ConnectUpstream(RibStage* upstream) override { upstream_ = upstream; }
  void ConnectDownstream(RibStage* downstream) override;
  void DisconnectUpstream(RibStage* upstream) override;
  void DisconnectDownstream(RibStage* downstream) override;
  void ReplaceUpstream(RibStage* old_stage, RibStage* new_stage) override;
  void ReplaceDownstream(RibStage* old_stage, RibStage* new_stage) override;

 private:
  RibStage* upstream_ = nullptr;
  std::vector<RibStage*> downstreams_;  // in the order plumbed
};

}  // namespace sluice::rib
