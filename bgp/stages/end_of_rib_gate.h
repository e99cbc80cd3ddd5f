#pragma once
// EndOfRibGate: selection deferral while this speaker restarts (RFC 4724 §4.1). A restarting
// speaker defers route selection until its peers' End-of-RIB (or the deferral time), and only
// then tells its own peers that its table is complete; a peer helping it keeps our stale routes
// until that End-of-RIB, and the RIB keeps them in the FIB. While the gate is closed, the
// branches below the Loc-RIB take nothing: PeerOut and RibOut keep their FanoutReader blocked,
// so the Fanout merges each prefix's changes into one, and when the gate opens each prefix goes
// out once, with the route selected from every peer's table — no interim best path reaches a
// peer or the FIB. End-of-RIB markers wait for the gate too.
//
// While the gate is closed, WhenOpen() keeps its callbacks; Open() runs them, in order, and
// later WhenOpen() calls run at once. Observe() follows every change. One gate per process, used
// on the event loop only.

#include <functional>
#include <memory>
#include <vector>

namespace sluice::bgp {

class EndOfRibGate {
 public:
  // Keeps an observer registered: dropping it unregisters.
  using Observer = std::shared_ptr<std::function<void(bool open)>>;

  bool open() const { return open_; }
  void Close() { Set(false); }
  void Open() {
    Set(true);
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
  // Calls `fn(open())` now and at every change, for as long as the returned Observer is held.
  [[nodiscard]] Observer Observe(std::function<void(bool open)> fn) {
    auto observer = std::make_shared<std::function<void(bool)>>(std::move(fn));
    observers_.push_back(observer);
    (*observer)(open_);
    return observer;
  }

 private:
  void Set(bool open) {
    if (open_ == open) return;
    open_ = open;
    std::erase_if(observers_, [](const auto& o) { return o.expired(); });
    std::vector<std::weak_ptr<std::function<void(bool)>>> now = observers_;
    for (auto& weak : now) {
      if (auto o = weak.lock()) (*o)(open_);
    }
  }

  bool open_ = true;
  std::vector<std::function<void()>> waiting_;
  std::vector<std::weak_ptr<std::function<void(bool)>>> observers_;
};

}  // namespace sluice::bgp
