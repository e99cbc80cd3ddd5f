#pragma once
// ShardTail: the BranchTail of a shard's output branches in the sharded BGP pipeline
// (shard_pipeline.h): the exit of the branch's output port of the shard stage
// (stage/shard_stage.h). It hands the branch's changes to the event loop, where every shard's
// changes meet in the branch's PeerOut or RibOut; answers ROUTE-REFRESH with a walk over the
// shard's prefixes (each route the peer has goes out again as a kReadvertise signal); raises the
// kEndOfRib barrier when the branch's dump is done; blocks its FanoutReader while the loop says
// the branch is blocked (the peer's session is backed up, the RIB's window is full).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bgp/stages/branch_tail.h"
#include "bgp/stages/prefix_walk.h"
#include "bgp/stages/route.h"
#include "stage/shard_port.h"

namespace sluice::stage {
// What a replace waiting for the loop keeps of the old route: its attribute set and its source,
// what the ports' downstream stages read of it (PeerOut: the set advertised before; RibOut: the
// source's kind, for the RIB's origin table). Delivered, the old route has the new one's prefix
// and path id; its other fields (IGP metric, flags, validation state) are left unset.
template <>
struct ShardOldRoute<bgp::BgpRoute> {
  bgp::AttrRef attrs;
  const bgp::PeerSource* source = nullptr;
  static ShardOldRoute Keep(bgp::BgpRoute&& old_route) {
    return ShardOldRoute{std::move(old_route.attrs), old_route.source};
  }
  static bgp::BgpRoute Restore(ShardOldRoute&& kept, const bgp::BgpRoute& new_route) {
    bgp::BgpRoute r;
    r.net = new_route.net;
    r.path_id = new_route.path_id;
    r.attrs = std::move(kept.attrs);
    r.source = kept.source;
    return r;
  }
};
}  // namespace sluice::stage

namespace sluice::bgp {

using ShardOutputs = stage::ShardOutputs<BgpRoute>;
// The codes of a branch port's signal (one route) and barrier (every shard).
inline constexpr uint8_t kReadvertise = 1;  // a route of a refresh walk: BranchTail::Readvertise
inline constexpr uint8_t kEndOfRib = 1;     // the branch's initial dump is done: EndOfRib

class ShardTail : public BranchTail, public stage::ShardPortExit {
 public:
  // The exit of output port `port` in the shard whose outputs are `outputs`. `loc_rib` (for
  // refresh walks) may be null for the RIB's branch.
  ShardTail(std::string name, boost::asio::io_context& io, ShardOutputs* outputs, uint32_t port,
            FlowControl* reader, const PrefixSource* loc_rib);
  ~ShardTail() override;

  std::string_view kind() const override { return "ShardTail"; }
  std::string Status() const override;
  uint32_t port() const { return port_; }

  void add_route(const BgpRoute& route, BgpStage* caller) override;
  void add_route(BgpRoute&& route, BgpStage* caller) override;  // the output takes the route
  void delete_route(const BgpRoute& route, BgpStage* caller) override;
  void replace_route(const BgpRoute& old_route, const BgpRoute& new_route,
                     BgpStage* caller) override;
  void replace_route(BgpRoute&& old_route, BgpRoute&& new_route, BgpStage* caller) override;
  void push(BgpStage* caller) override;

  void EndOfRib() override;
  void Refresh() override;

  // From the loop: the branch's consumer is backed up (or no longer).
  void SetBlocked(bool blocked) override;

 private:
  ShardOutputs* outputs_;
  uint32_t port_;
  FlowControl* reader_;
  bool blocked_ = false;
  uint64_t emitted_ = 0;
  std::vector<std::function<void()>> when_unblocked_;
  PrefixWalk refresh_;
};

}  // namespace sluice::bgp
