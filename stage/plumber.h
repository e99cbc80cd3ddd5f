#pragma once
// Plumber: owns a process's stages and changes their connections at run time (XORP §5.1.2).
//
// Stages are created by the Plumber (Make) or handed to it (Adopt) and live until retired.
// A retired stage is disconnected at once and destroyed after the current event of the
// io_context, so a stage may splice itself out from inside its own add_route or background
// slice. All calls happen on the process's event loop.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "stage/stage.h"

namespace boost::asio {
class io_context;
}

namespace sluice::stage {

class Plumber {
 public:
  explicit Plumber(boost::asio::io_context& io);
  ~Plumber();
  Plumber(const Plumber&) = delete;
  Plumber& operator=(const Plumber&) = delete;

  boost::asio::io_context& io() const { return io_; }

  // Creates a stage owned by the Plumber.
  template <class S, class... Args>
  S* Make(Args&&... args) {
    auto stage = std::make_unique<S>(std::forward<Args>(args)...);
    S* raw = stage.get();
    stages_.push_back(std::move(stage));
    return raw;
  }
  // Takes ownership of a stage made elsewhere.
  template <class S>
  S* Adopt(std::unique_ptr<S> stage) {
    S* raw = stage.get();
    stages_.push_back(std::move(stage));
    return raw;
  }

  // upstream -> downstream.
  template <StageRoute R>
  static void Plumb(Stage<R>* upstream, Stage<R>* downstream) {
    upstream->ConnectDownstream(downstream);
    downstream->ConnectUpstream(upstream);
  }
  // Removes the edge upstream -> downstream.
  template <StageRoute R>
  static void Unplumb(Stage<R>* upstream, Stage<R>* downstream) {
    upstream->DisconnectDownstream(downstream);
    downstream->DisconnectUpstream(upstream);
  }
  // upstream -> downstream becomes upstream -> middle -> downstream.
  template <StageRoute R>
  static void InsertBetween(Stage<R>* upstream, Stage<R>* downstream, Stage<R>* middle) {
    upstream->ReplaceDownstream(downstream, middle);
    middle->ConnectUpstream(upstream);
    middle->ConnectDownstream(downstream);
    downstream->ReplaceUpstream(upstream, middle);
  }
  // Inserts `middle` right after `existing`, which must have exactly one downstream stage (or
  // none, in which case `middle` becomes the end of the chain).
  template <StageRoute R>
  static void InsertAfter(LinearStage<R>* existing, Stage<R>* middle) {
    if (existing->downstream() == nullptr) {
      Plumb<R>(existing, middle);
    } else {
      InsertBetween<R>(existing, existing->downstream(), middle);
    }
  }
  // Connects `middle`'s upstream to its downstream directly and retires `middle`.
  template <StageRoute R>
  void SpliceOut(LinearStage<R>* middle) {
    Stage<R>* up = middle->upstream();
    Stage<R>* down = middle->downstream();
    if (up != nullptr && down != nullptr) {
      up->ReplaceDownstream(middle, down);
      down->ReplaceUpstream(middle, up);
    } else if (up != nullptr) {
      up->DisconnectDownstream(middle);
    } else if (down != nullptr) {
      down->DisconnectUpstream(middle);
    }
    middle->ConnectUpstream(nullptr);
    middle->ConnectDownstream(nullptr);
    Retire(middle);
  }

  // Destroys `stage` after the current event. The caller has already disconnected it.
  void Retire(const StageBase* stage);

  // Every live stage, in creation order.
  std::vector<const StageBase*> stages() const;
  size_t size() const { return stages_.size(); }
  // The stage network as text, one stage per line, following downstream edges from each
  // stage without an upstream; a stage reached twice (a merge point) is shown once and
  // referred to afterwards. Format: "name [Kind] status", indented by depth.
  std::string Describe() const;

  // One stage's queue, for sluice_stage_queue_depth.
  struct QueueDepth {
    std::string stage;  // its name, as Describe shows it
    std::string kind;
    uint64_t queued = 0;
  };
  // Every live stage that keeps a queue (StageBase::queue_depth), in creation order. On the
  // Plumber's thread.
  std::vector<QueueDepth> QueueDepths() const;

 private:
  void DestroyRetired();

  boost::asio::io_context& io_;
  std::vector<std::unique_ptr<StageBase>> stages_;
  std::vector<const StageBase*> retired_;
  bool destroy_posted_ = false;
};

}  // namespace sluice::stage
