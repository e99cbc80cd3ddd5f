#pragma once
// EndOfRibGate: holds back End-of-RIB while this speaker restarts (RFC 4724 §4.1). A restarting
// speaker defers its selection until its peers' End-of-RIB, and only then tells its own peers
// that its table is complete; a peer helping it keeps our stale routes until that End-of-RIB.
// Routes themselves go out as they are selected; only the End-of-RIB markers wait.
//
// While the gate is closed, WhenOpen() keeps its callbacks; Open() runs them, in order, and
// later WhenOpen() calls run at once. One gate per process, used on the event loop only.

#include <functional>
#include <vector>

namespace sluice::bgp {

class EndOfRibGate {
 public:
  bool open() const { return open_; }
  void Close() { open_ = false; }
  void Open() {
    open_ = true;
    std::vector<std::function<void()>> waiting;
    waiting.swap(waiting_);
    for (auto& fn : waiting) fn();
  }
  // Runs `fn` now when open, else when Open() is called. `fn` must check that what it refers to
  // still exists.
  void WhenOpen(std::function<void()> fn) {
    if (open_) return fn();
    waiting_.push_back(std::move(fn));
  }
  size_t waiting() const { return waiting_.size(); }

 private:
  bool open_ = true;
  std::vector<std::function<void()>> waiting_;
};

}  // namespace sluice::bgp
