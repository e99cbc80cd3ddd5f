#include "bgp/stages/prefix_walk.h"

namespace sluice::bgp {

namespace {
// Prefixes per batch: a slice often ends after a few hundred (SliceBudget's time limit).
constexpr size_t kBatch = 64;
}  // namespace

PrefixWalk::PrefixWalk(boost::asio::io_context& io, std::string name, const PrefixSource* source,
                       Hooks hooks, size_t prefixes_per_slice)
    : source_(source),
      hooks_(std::move(hooks)),
      per_slice_(prefixes_per_slice),
      self_(std::make_shared<PrefixWalk*>(this)),
      task_(io, std::move(name), [this] { return Slice(); }) {}

PrefixWalk::~PrefixWalk() { *self_ = nullptr; }

std::function<void()> PrefixWalk::Resumer() {
  std::weak_ptr<PrefixWalk*> weak = self_;
  return [weak] {
    auto self = weak.lock();
    if (self && *self != nullptr) (*self)->Resume();
  };
}

void PrefixWalk::Start() {
  state_ = State::kRunning;
  cursor_.reset();
  visited_ = 0;
  if (in_slice_) {
    restart_ = true;  // Slice() returns true: the task goes on from the beginning
    return;
  }
  task_.Cancel();
  task_.Start();
}

void PrefixWalk::Resume() {
  if (state_ == State::kRunning) task_.Start();
}

void PrefixWalk::Cancel() {
  task_.Cancel();
  state_ = State::kIdle;
  cursor_.reset();
}

bool PrefixWalk::Slice() {
  in_slice_ = true;
  restart_ = false;
  ahead_.clear();
  ahead_next_ = 0;
  const bool more = SliceBody();
  in_slice_ = false;
  return more || restart_;
}

bool PrefixWalk::SliceBody() {
  if (state_ != State::kRunning) return false;
  if (hooks_.can_run && !hooks_.can_run()) {
    if (hooks_.paused) hooks_.paused();
    return false;
  }
  stage::SliceBudget budget(per_slice_);
  while (true) {
    std::optional<net::Prefix> next = Next();
    if (!next) {
      state_ = State::kFinished;
      if (hooks_.end_of_slice) hooks_.end_of_slice();
      if (hooks_.done) hooks_.done();  // may Start() again, or retire the owner (deferred)
      return false;
    }
    cursor_ = next;
    ++visited_;
    hooks_.visit(*next);
    if (budget.Exhausted()) break;
    if (hooks_.can_run && !hooks_.can_run()) break;
  }
  if (hooks_.end_of_slice) hooks_.end_of_slice();
  return true;
}

std::optional<net::Prefix> PrefixWalk::Next() {
  // A hook that restarted the walk moved the cursor off the batch's last answer.
  const bool stale = ahead_next_ > 0 && cursor_ != ahead_[ahead_next_ - 1];
  if (stale || ahead_next_ == ahead_.size()) {
    ahead_.clear();
    ahead_next_ = 0;
    source_->CollectPrefixes(cursor_, kBatch, &ahead_);
    if (ahead_.empty()) return std::nullopt;
  }
  return ahead_[ahead_next_++];
}

}  // namespace sluice::bgp
