#pragma once
// FlowControl: how the last stage of a branch (a BGP peer's PeerOut, the RibOut) tells what
// feeds the branch (a fanout's reader, a shard stage's output port) to hold changes back, and how
// background walks upstream of it learn when they may go on.

#include <functional>

namespace sluice::stage {

class FlowControl {
 public:
  virtual ~FlowControl() = default;
  // The branch cannot take more changes now (a peer's send backlog is high, the RIB's window is
  // full): the feeder queues them. SetBlocked(false) lets them flow again.
  virtual void SetBlocked(bool blocked) = 0;
  // True when the branch is not blocked and has received every change so far: only then may a
  // walk upstream of it look routes up and send them (its view is the current one).
  virtual bool ready() const = 0;
  // Calls `callback` once, on the event loop, the next time ready() becomes true (soon after
  // this call when it already is).
  virtual void WhenReady(std::function<void()> callback) = 0;
};

}  // namespace sluice::stage
