#pragma once
// PrefixWalk: background work over every prefix of a PrefixSource, in prefix order, in slices
// on the event loop (XORP NSDI'05 §5.1.2), while routes keep flowing.
//
// The walk keeps a cursor, the last prefix it visited. Stages that run a walk use Covers(p) to
// decide, for a change that arrives meanwhile, whether the walk has already dealt with its
// prefix (then the change follows the new rules: pass it on, use the new policy) or not (then
// the walk will see the final state when it gets there). Visiting p moves the cursor to p before
// calling `visit`, so a lookup made during the visit already counts p as covered.
//
// The walk asks its source for the next prefixes in batches (PrefixSource::CollectPrefixes) and
// forgets the batch at the end of each slice, since the tables change between slices.
//
// Flow control: when `can_run` says no, the walk pauses after the current prefix; Resume()
// continues it (a stage calls it from FlowControl::WhenReady).

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bgp/stages/bgp_stage.h"
#include "stage/background_task.h"

namespace sluice::bgp {

class PrefixWalk {
 public:
  struct Hooks {
    std::function<void(const net::Prefix&)> visit = {};  // each prefix, in order
    std::function<void()> end_of_slice = {};             // e.g. push downstream; optional
    std::function<bool()> can_run = {};                  // optional; false pauses the walk
    std::function<void()> paused = {};                   // optional; called when can_run said no
    std::function<void()> done = {};                     // after the last prefix; optional. May
                                                         // retire the stage that owns the walk.
  };
  enum class State { kIdle, kRunning, kFinished };

  PrefixWalk(boost::asio::io_context& io, std::string name, const PrefixSource* source, Hooks hooks,
             size_t prefixes_per_slice = 1000);
  ~PrefixWalk();
  PrefixWalk(const PrefixWalk&) = delete;
  PrefixWalk& operator=(const PrefixWalk&) = delete;

  // Starts from the first prefix (again, if it ran before). May be called from the hooks.
  void Start();
  // Continues a paused walk; no effect unless running.
  void Resume();
  // Stops; state becomes kIdle.
  void Cancel();
  // A callback that resumes this walk if it still exists (for FlowControl::WhenReady).
  std::function<void()> Resumer();

  State state() const { return state_; }
  bool running() const { return state_ == State::kRunning; }
  // kFinished: every prefix; kRunning: prefixes up to the cursor; kIdle: none.
  bool Covers(const net::Prefix& prefix) const {
    if (state_ == State::kFinished) return true;
    if (state_ == State::kIdle) return false;
    return cursor_.has_value() && prefix <= *cursor_;
  }
  const std::optional<net::Prefix>& cursor() const { return cursor_; }
  uint64_t visited() const { return visited_; }

 private:
  bool Slice();
  bool SliceBody();
  // The prefix after the cursor, from the batch (refilled when used up); nullopt at the end.
  std::optional<net::Prefix> Next();

  const PrefixSource* source_;
  Hooks hooks_;
  size_t per_slice_;
  State state_ = State::kIdle;
  std::optional<net::Prefix> cursor_;
  uint64_t visited_ = 0;
  std::vector<net::Prefix> ahead_;  // the source's next prefixes after the cursor, this slice
  size_t ahead_next_ = 0;
  bool in_slice_ = false;
  bool restart_ = false;
  std::shared_ptr<PrefixWalk*> self_;
  stage::BackgroundTask task_;
};

}  // namespace sluice::bgp
