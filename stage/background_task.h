#pragma once
// BackgroundTask: long work done in slices on the event loop (XORP NSDI'05 §5.1.2), so that
// new routes, timers and RPCs are served between slices.
//
// The slice function does a bounded amount of work and returns true while work remains. After
// each slice the task re-posts itself to the io_context, behind every handler already ready,
// so other events run between slices. Destroying the task cancels it; a slice never runs
// after its task is gone. A slice must not destroy its own task synchronously: a dynamic stage
// that owns its task retires itself through Plumber::Retire, which destroys it after the
// current event.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/time/time.h"

namespace boost::asio {
class io_context;
}

namespace sluice::stage {

class BackgroundTask {
 public:
  using Slice = std::function<bool()>;
  using Done = std::function<void()>;

  // `on_done` runs once, on the loop, after the last slice returned false (not on Cancel).
  BackgroundTask(boost::asio::io_context& io, std::string name, Slice slice, Done on_done = {});
  ~BackgroundTask();
  BackgroundTask(const BackgroundTask&) = delete;
  BackgroundTask& operator=(const BackgroundTask&) = delete;

  // Schedules the first slice. Idempotent while running.
  void Start();
  // Stops before the next slice.
  void Cancel();

  bool running() const { return state_->running; }
  const std::string& name() const { return name_; }
  uint64_t slices_run() const { return state_->slices; }

 private:
  struct State {
    bool running = false;
    bool posted = false;
    uint64_t slices = 0;
    uint64_t generation = 0;  // bumped by Start and Cancel: a slice's outcome is stale after
  };
  void Post();
  void RunSlice();

  boost::asio::io_context& io_;
  std::string name_;
  Slice slice_;
  Done on_done_;
  // Handlers hold a weak reference: a destroyed task's pending handler does nothing.
  std::shared_ptr<State> state_;
};

// A budget for one slice: `Exhausted()` turns true after `max_items` calls or once
// `max_time` has passed (checked every 16 items to keep the clock off the hot path).
//
// The time bound is the latency background work adds to everything else on the loop: an event
// that becomes ready during a slice (an UPDATE from a peer, an RPC) runs after at most about two
// slices — the current one and the one it posted before the loop polled for I/O. 250 us keeps a
// route that arrives during a full-table dump under the 1 ms BGP-to-FEA target of
// bench/rtrmgr/route_path_bench (bench/rtrmgr/README.md), at an overhead of a post and a
// non-blocking poll per slice.
class SliceBudget {
 public:
  explicit SliceBudget(uint64_t max_items = 1000,
                       absl::Duration max_time = absl::Microseconds(250));
  bool Exhausted();
  uint64_t used() const { return used_; }

 private:
  uint64_t max_items_;
  absl::Time deadline_;
  uint64_t used_ = 0;
};

}  // namespace sluice::stage
