#pragma once
// Route monitoring (BMP, RFC 7854 §4.6 and RFC 9069): a pass-through stage that tells a
// RouteMonitor, when one is set, every change of the RIB it watches, a batch at a time.
//
//   PeerIn(P) → … → ImportFilter(P) → RouteMonitor(P) → … → Decision   post-policy Adj-RIB-In
//   Decision → RouteMonitor → Fanout                                   Loc-RIB
//
// The stage collects the changes it forwards and hands them to the monitor at push() — the end
// of one batch upstream, one UPDATE's worth — so the monitor can encode one message per
// attribute set rather than one per route. Changes past kMaxBatch are handed over early. Once the
// push has gone through the stages downstream, the monitor is told (OnPushDone).
//
// With `threads N` > 1 every shard's pipeline has its own stages, so the monitor is called from
// the shards' worker threads at once: it must be thread-safe and quick. Without a monitor, or
// while the monitor does not want the stage's RIB, the stage only forwards.

#include <atomic>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "bgp/stages/bgp_stage.h"

namespace sluice::bgp {

// Which RIB a RouteMonitorStage watches.
enum class MonitoredRib : uint8_t {
  kAdjRibInPost,  // one peer's Adj-RIB-In after its import policy (RFC 7854 §2, L flag)
  kLocRib,        // the family's Loc-RIB (RFC 9069)
};

// One change of a monitored RIB: `route` is now the RIB's route for its prefix, or, when
// `withdrawn`, the prefix (of `route`) has none any more.
struct RouteChange {
  BgpRoute route;
  bool withdrawn = false;
};

class RouteMonitor {
 public:
  virtual ~RouteMonitor() = default;
  // Whether changes of `rib` are wanted now (any thread; cheap). Stages skip collecting when not.
  virtual bool Wants(MonitoredRib rib) const = 0;
  // The changes of one batch of `rib`, in the order they happened (a prefix may appear more than
  // once; the last change counts). Post-policy changes of one call all come from one peer.
  virtual void OnRouteChanges(MonitoredRib rib, std::span<const RouteChange> changes) = 0;
  // The push that ended the batches given to OnRouteChanges on this thread has gone through
  // every stage downstream. Callers of OnRouteChanges call it, on the same thread, before the
  // routes' attribute sets may go: the monitor may keep them until then.
  virtual void OnPushDone() {}
};

// Where the pipelines find the monitor. Set and Clear may run on any thread while the stages
// read it; a monitor once set stays alive as long as the slot (so a stage that read it just
// before a Clear never calls a destroyed object).
class RouteMonitorSlot {
 public:
  RouteMonitor* get() const { return current_.load(std::memory_order_acquire); }
  void Set(std::shared_ptr<RouteMonitor> monitor);
  void Clear() { current_.store(nullptr, std::memory_order_release); }

 private:
  std::atomic<RouteMonitor*> current_{nullptr};
  std::mutex mu_;
  std::vector<std::shared_ptr<RouteMonitor>> kept_;
};

class RouteMonitorStage : public BgpLinearStage {
 public:
  static constexpr size_t kMaxBatch = 4096;  // changes held before the monitor is called anyway

  RouteMonitorStage(std::string name, const RouteMonitorSlot* slot, MonitoredRib rib)
      : BgpLinearStage(std::move(name)), slot_(slot), rib_(rib) {}
  ~RouteMonitorStage() override;
  std::string_view kind() const override { return "RouteMonitor"; }

  void add_route(const BgpRoute& route, BgpStage* caller) override;
  void delete_route(const BgpRoute& route, BgpStage* caller) override;
  void replace_route(const BgpRoute& old_route, const BgpRoute& new_route,
                     BgpStage* caller) override;
  void push(BgpStage* caller) override;

 private:
  void Collect(const BgpRoute& route, bool withdrawn);
  void Flush();

  const RouteMonitorSlot* slot_;
  const MonitoredRib rib_;
  std::vector<RouteChange> batch_;
  RouteMonitor* flushed_to_ = nullptr;  // told OnPushDone at the end of push
};

}  // namespace sluice::bgp
