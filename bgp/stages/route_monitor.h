#pragma once
// Route monitoring (BMP, RFC 7854 §4.6 and RFC 9069): a pass-through stage that tells a
// RouteMonitor, when one is set, every change of the RIB it watches, a batch at a time.
//
//   PeerIn(P) → … → ImportFilter(P) → RouteMonitor(P) → … → Decision   post-policy Adj-RIB-In
//   Decision → RouteMonitor → Fanout                                   Loc-RIB
//
// The stage collects the changes it forwards and hands them to the monitor once the handler that
// made them has returned to the stage's event loop: one handler posted per thread hands over the
// batch of every RouteMonitorStage of that thread, in the order each collected its first change
// (a peer's post-policy stage before the Loc-RIB's it feeds), then tells the monitor (OnPushDone).
// A handler is an input batch on a shard (up to ShardOptions::batch_items routes) or a read of a
// session on the serial pipeline: the UPDATEs of many pushes, so the monitor takes its locks and
// its clock once for them and encodes one message per run of one attribute set. Changes past
// kMaxBatch are handed over early.
//
// With `threads N` > 1 every shard's pipeline has its own stages, so the monitor is called from
// the shards' worker threads at once: it must be thread-safe and quick. Without a monitor, or
// while the monitor does not want the stage's RIB, the stage only forwards. A stage lives and
// dies on the thread that runs its event loop.

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "bgp/stages/bgp_stage.h"
#include "bgp/wire/nlri.h"

namespace sluice::bgp {

// Which RIB a RouteMonitorStage watches.
enum class MonitoredRib : uint8_t {
  kAdjRibInPost,  // one peer's Adj-RIB-In after its import policy (RFC 7854 §2, L flag)
  kLocRib,        // the family's Loc-RIB (RFC 9069)
};

// A batch of changes of one monitored RIB, in the order they happened (a prefix may appear more
// than once; the last change counts), cut into runs: consecutive withdrawals, or consecutive
// announcements with one attribute set — what one UPDATE carries. A run holds a reference to its
// attribute set once, however many routes it has.
struct RouteChanges {
  struct Run {
    AttrRef attrs;   // null: withdrawals
    size_t end = 0;  // the run's NLRI end here in `nlri` (and start where the previous one ends)
    friend bool operator==(const Run&, const Run&) = default;
  };
  const PeerSource* source = nullptr;  // where the first change's route came from
  std::vector<Nlri> nlri;
  std::vector<Run> runs;

  // `route` is now the RIB's route for its prefix, or, when `withdrawn` (or without attributes),
  // its prefix has none any more.
  void Add(const BgpRoute& route, bool withdrawn);
  size_t size() const { return nlri.size(); }
  bool empty() const { return nlri.empty(); }
  void Clear();
  // The same changes in the same runs (sets compared as AttrRef does).
  friend bool operator==(const RouteChanges& a, const RouteChanges& b) {
    return a.nlri == b.nlri && a.runs == b.runs;
  }
};

class RouteMonitor {
 public:
  virtual ~RouteMonitor() = default;
  // Whether changes of `rib` are wanted now (any thread; cheap). Stages skip collecting when not.
  virtual bool Wants(MonitoredRib rib) const = 0;
  // A batch of changes of `rib` (not empty). Post-policy changes of one call all come from one
  // peer (the stage's). The monitor may take the batch by swapping `changes` with a batch of its
  // own instead of copying it; the caller clears whatever `changes` holds afterwards.
  virtual void OnRouteChanges(MonitoredRib rib, RouteChanges& changes) = 0;
  // Every stage of this thread that had a batch handed it over, and the routes behind them went
  // through every stage downstream. Callers of OnRouteChanges call it, on the same thread, before
  // the routes' attribute sets may go: the monitor may keep them until then.
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

  // `io`: the event loop the stage runs on, where the hand-over is posted.
  RouteMonitorStage(std::string name, boost::asio::io_context& io, const RouteMonitorSlot* slot,
                    MonitoredRib rib)
      : BgpLinearStage(std::move(name)), io_(io), slot_(slot), rib_(rib) {}
  // Hands over what it holds.
  ~RouteMonitorStage() override;
  std::string_view kind() const override { return "RouteMonitor"; }

  void add_route(const BgpRoute& route, BgpStage* caller) override;
  void delete_route(const BgpRoute& route, BgpStage* caller) override;
  void replace_route(const BgpRoute& old_route, const BgpRoute& new_route,
                     BgpStage* caller) override;

 private:
  struct Pending;  // this thread's stages holding a batch, and the loops a hand-over is posted to
  class HandOver;
  static Pending& ThisThread();

  void Collect(const BgpRoute& route, bool withdrawn);
  // Joins this thread's pending stages and has the hand-over posted to io_ if it is not.
  void Schedule();
  // Hands the batch, if any, to the monitor (told_ then).
  void Flush();
  // The posted handler: hands over every pending stage's batch, then tells their monitors.
  static void HandOverPending(boost::asio::io_context* io);

  boost::asio::io_context& io_;
  const RouteMonitorSlot* slot_;
  const MonitoredRib rib_;
  RouteChanges batch_;
  bool pending_ = false;          // in this thread's pending stages
  RouteMonitor* told_ = nullptr;  // had a batch since the last hand-over: owed OnPushDone
};

}  // namespace sluice::bgp
