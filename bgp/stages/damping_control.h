#pragma once
// DampingControl: plumbs and unplumbs DampingStages (damping_stage.h) in a BgpRouting's
// pipelines — the only place that knows the damping stage exists (issue 13). Nothing else in
// bgp/stages changes: a stage is inserted with Plumber::InsertAfter(import_filter(peer), stage),
// and a peer's removal retires whatever was plumbed in its branch (FamilyPipeline::FinishRemoval).
//
//   `bgp { damping { half-life 15m; reuse 750; suppress 6000; max-suppress 1h; } }`
//        → SetParams (every damped peer takes them; penalties are kept)
//   `peer X { damping; }`      → Enable(X): one DampingStage per family after ImportFilter(X)
//   no `damping;` any more     → Disable(X): suppressed routes are released, the stages go
//   `show bgp damping`         → List()
//
// Damping belongs to a configured peer: when the peer is removed its stages go with it, and a
// peer added again must be enabled again (the router manager sends the configuration).
// Single-threaded: every call on the routing side's event loop.

#include <functional>
#include <memory>
#include <string>
#include <vector>

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
  using ClockFactory = std::function<std::unique_ptr<DampingClock>()>;
  // `clocks` makes each stage's clock; null: MakeAsioDampingClock on the routing side's loop.
  explicit DampingControl(BgpRouting* routing, ClockFactory clocks = nullptr);

  // Errors: InvalidArgument (DampingParams::Validate).
  absl::Status SetParams(const DampingParams& params);
  const DampingParams& params() const { return params_; }

  // Errors: NotFound for a peer that is not configured. Enabling twice is a no-op.
  absl::Status Enable(const net::IPAddress& peer);
  absl::Status Disable(const net::IPAddress& peer);
  bool enabled(const net::IPAddress& peer) { return !Stages(peer).empty(); }
  // The configured peers with damping on, by address.
  std::vector<net::IPAddress> DampedPeers();

  // Every damped prefix of every damped peer (or `peer` only), by peer then prefix.
  std::vector<PeerDampedPrefix> List(bool suppressed_only,
                                     const std::optional<net::IPAddress>& peer = std::nullopt);

  // The peer's damping stages (one per family run; none when not damped).
  std::vector<DampingStage*> Stages(const net::IPAddress& peer);

 private:
  BgpRouting* routing_;
  ClockFactory clocks_;
  DampingParams params_;
};

}  // namespace sluice::bgp
