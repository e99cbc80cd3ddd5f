#include "stage/background_task.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "absl/time/clock.h"

namespace sluice::stage {

BackgroundTask::BackgroundTask(boost::asio::io_context& io, std::string name, Slice slice,
                               Done on_done)
    : io_(io),
      name_(std::move(name)),
      slice_(std::move(slice)),
      on_done_(std::move(on_done)),
      state_(std::make_shared<State>()) {}

BackgroundTask::~BackgroundTask() { state_->running = false; }

void BackgroundTask::Start() {
  if (state_->running) return;
  state_->running = true;
  ++state_->generation;
  Post();
}

void BackgroundTask::Cancel() {
  state_->running = false;
  ++state_->generation;
}

void BackgroundTask::Post() {
  if (state_->posted) return;
  state_->posted = true;
  std::weak_ptr<State> weak = state_;
  boost::asio::post(io_, [this, weak] {
    auto state = weak.lock();
    if (!state) return;  // the task is gone
    state->posted = false;
    if (state->running) RunSlice();
  });
}

void BackgroundTask::RunSlice() {
  ++state_->slices;
  // The slice may destroy this task (e.g. a dynamic stage retiring itself); keep the state.
  std::shared_ptr<State> state = state_;
  const uint64_t generation = state->generation;
  const bool more = slice_();
  // Cancelled, destroyed, or cancelled and restarted during the slice: the restart has posted
  // its own first slice, and this slice's result belongs to the old run.
  if (!state->running || state->generation != generation) return;
  if (more) {
    Post();
    return;
  }
  state->running = false;
  if (on_done_) on_done_();
}

SliceBudget::SliceBudget(uint64_t max_items, absl::Duration max_time)
    : max_items_(max_items), deadline_(absl::Now() + max_time) {}

bool SliceBudget::Exhausted() {
  ++used_;
  if (used_ >= max_items_) return true;
  return (used_ % 16) == 0 && absl::Now() >= deadline_;
}

}  // namespace sluice::stage
