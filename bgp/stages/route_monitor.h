#pragma once
// Route monitoring of the Loc-RIB (BMP, RFC 9069): a pass-through stage between Decision and the
// Fanout that tells a RouteMonitor, when one is set, every change of the family's Loc-RIB.
//
//   Decision → RouteMonitorStage → Fanout
//
// With `threads N` > 1 every shard's pipeline has its own stage, so the monitor is called from
// the shards' worker threads at once: it must be thread-safe, quick, and must not keep the
// route's attribute handle past the call (copy or encode what it needs). Without a monitor the
// stage only forwards.

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bgp/stages/bgp_stage.h"

namespace sluice::bgp {

class RouteMonitor {
 public:
  virtual ~RouteMonitor() = default;
  // `route` is now the Loc-RIB route for its prefix (added, or replacing another).
  virtual void OnLocRibAnnounce(const BgpRoute& route) = 0;
  // The prefix of `route` has no Loc-RIB route any more.
  virtual void OnLocRibWithdraw(const BgpRoute& route) = 0;
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
  RouteMonitorStage(std::string name, const RouteMonitorSlot* slot)
      : BgpLinearStage(std::move(name)), slot_(slot) {}
  std::string_view kind() const override { return "RouteMonitor"; }

  void add_route(const BgpRoute& route, BgpStage* caller) override;
  void delete_route(const BgpRoute& route, BgpStage* caller) override;
  void replace_route(const BgpRoute& old_route, const BgpRoute& new_route,
                     BgpStage* caller) override;

 private:
  const RouteMonitorSlot* slot_;
};

}  // namespace sluice::bgp
