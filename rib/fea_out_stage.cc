#include "rib/fea_out_stage.h"

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/lost_call.h"
#include "stage/route_arrival.h"

namespace sluice::rib {
namespace {

constexpr size_t kMaxReserve = 4096;  // changes reserved ahead for the batch being built

}  // namespace

FeaOutStage::FeaOutStage(std::string name, net::Family family, FibClient* client,
                         SourceRegistry* sources, boost::asio::io_context& io,
                         FeaOutOptions options, stage::Profiler* profiler)
    : RibLinearStage(std::move(name)),
      family_(family),
      io_(io),
      client_(client),
      sources_(sources),
      options_(options),
      queued_point_(profiler->Point("rib_queued_to_fea")),
      sent_point_(profiler->Point("rib_sent_to_fea")),
      catch_up_timer_(io),
      resync_(io, this->name() + " resync", [this] { return ResyncSlice(); }),
      alive_(std::make_shared<bool>(true)) {
  if (options_.batch_size == 0) options_.batch_size = 1;
  if (options_.max_in_flight == 0) options_.max_in_flight = 1;
}

FeaOutStage::~FeaOutStage() = default;

std::string FeaOutStage::Status() const {
  std::string s =
      absl::StrCat(fea_up_ ? "fea=up" : "fea=down", " queued=", queued(), " in_flight=", in_flight_,
                   " sent=", stats_.batches_sent, " failed=", stats_.batches_failed);
  if (resyncing_) s += " resyncing";
  if (lagging_) s += " lagging";
  if (stats_.lagged > 0) absl::StrAppend(&s, " lagged=", stats_.lagged);
  if (stats_.lost > 0) absl::StrAppend(&s, " lost=", stats_.lost);
  absl::StrAppend(&s, " peak_queued=", stats_.peak_queued);
  return s;
}

bool FeaOutStage::idle() const {
  return building_.empty() && ready_.empty() && in_flight_ == 0 && !resyncing_ && !lagging_;
}

void FeaOutStage::add_route(const RibRoute& route, RibStage* caller) {
  RibLinearStage::add_route(route, caller);
  Queue(FibChange::Op::kAdd, route);
}

void FeaOutStage::delete_route(const RibRoute& route, RibStage* caller) {
  RibLinearStage::delete_route(route, caller);
  Queue(FibChange::Op::kDelete, route);
}

void FeaOutStage::replace_route(const RibRoute& old_route, const RibRoute& new_route,
                                RibStage* caller) {
  RibLinearStage::replace_route(old_route, new_route, caller);
  if (FibRoute::From(old_route) == FibRoute::From(new_route)) return;  // tags, say
  Queue(FibChange::Op::kReplace, new_route);
}

void FeaOutStage::push(RibStage* caller) {
  RibLinearStage::push(caller);
  CloseBatch();
  SendReady();
}

void FeaOutStage::Queue(FibChange::Op op, const RibRoute& route) {
  if (!Wanted(route.network)) return;
  building_.push_back(FibChange{op, FibRoute::From(route)});
  building_arrival_ = stage::OldestArrival(building_arrival_, stage::CurrentArrival());
  ++stats_.changes_queued;
  stats_.peak_queued = std::max(stats_.peak_queued, ++queued_changes_);
  if (queued_point_->enabled()) {
    queued_point_->Record(absl::StrCat(FibOpName(op), " ", route.network.ToString()));
  }
  if (building_.size() >= options_.batch_size) {
    CloseBatch();
    SendReady();
  }
  if (options_.max_backlog > 0 && queued_changes_ > options_.max_backlog) FallBehind();
}

void FeaOutStage::FallBehind() {
  SLUICE_LOG(kWarning) << name() << ": the FEA is lagging: " << queued_changes_
                       << " changes queued, more than " << options_.max_backlog
                       << "; dropping them, and re-sending the whole FIB once the FEA has "
                          "answered the "
                       << in_flight_ << " batches in flight";
  lagging_ = true;
  ++stats_.lagged;
  DropQueue();
  StopWalk();  // the full push that follows walks the whole table again
  MaybeCaughtUp();
}

void FeaOutStage::DropQueue() {
  building_.clear();
  building_arrival_ = 0;
  ready_.clear();
  queued_changes_ = 0;
}

void FeaOutStage::StopWalk() {
  resyncing_ = false;
  resync_paused_ = false;
  resync_cursor_.reset();
  full_push_pending_ = false;
  resync_.Cancel();
}

void FeaOutStage::LoseBatch(uint64_t sequence, const absl::Status& status) {
  ++stats_.lost;
  if (lagging_ && catch_up_delay_s_ > 0) return;  // the repair of an earlier loss covers it
  catch_up_delay_s_ = lost_backoff_.Next();
  SLUICE_LOG(kWarning) << name() << ": FIB batch " << sequence << " did not reach the FEA ("
                       << status.ToString() << "); re-sending the whole FIB " << catch_up_delay_s_
                       << " s after it has answered the " << in_flight_ << " batches in flight";
  lagging_ = true;
  DropQueue();
  StopWalk();
}

void FeaOutStage::MaybeCaughtUp() {
  if (!lagging_ || in_flight_ > 0) return;
  // Run again by a later call, it finds a new generation (FeaBorn) and returns.
  auto catch_up = [this, weak = std::weak_ptr<bool>(alive_), generation = generation_] {
    if (!weak.lock() || generation != generation_ || !lagging_) return;
    SLUICE_LOG(kInfo) << name() << ": the FEA has caught up; re-sending the whole FIB";
    if (options_.on_caught_up) return options_.on_caught_up();
    if (client_ != nullptr) client_->BeginFullPush();
    FeaBorn();
  };
  if (catch_up_delay_s_ == 0) {
    boost::asio::post(io_, std::move(catch_up));
    return;
  }
  catch_up_timer_.expires_after(Backoff::Duration(catch_up_delay_s_));
  catch_up_timer_.async_wait([catch_up](const boost::system::error_code& ec) {
    if (!ec) catch_up();
  });
}

void FeaOutStage::CloseBatch() {
  if (building_.empty()) return;
  FibBatch batch;
  batch.family = family_;
  batch.sequence = next_sequence_++;
  batch.changes.swap(building_);
  // A batch closed early (at a push) keeps only what it holds: max_backlog bounds the changes
  // queued, and a mostly unused reservation per batch would multiply their memory.
  batch.changes.ShrinkIfSparse();
  batch.arrival_ns = std::exchange(building_arrival_, 0);
  ready_.push_back(std::move(batch));
  // The next batch fills up as this one did: grow once, not log2(batch_size) times per batch.
  building_.reserve(std::min(options_.batch_size, kMaxReserve), family_);
}

void FeaOutStage::SendReady() {
  while (fea_up_ && client_ != nullptr && in_flight_ < options_.max_in_flight && !ready_.empty()) {
    FibBatch batch = std::move(ready_.front());
    ready_.pop_front();
    queued_changes_ -= batch.changes.size();
    ++in_flight_;
    ++stats_.batches_sent;
    if (sent_point_->enabled()) {
      for (const FibChange& c : batch.changes) {
        sent_point_->Record(absl::StrCat(FibOpName(c.op), " ", c.route.network.ToString()));
      }
    }
    const uint64_t sequence = batch.sequence;
    const size_t changes = batch.changes.size();
    last_sent_ = sequence;
    in_flight_changes_ += changes;
    client_->SendBatch(std::move(batch),
                       [this, weak = std::weak_ptr<bool>(alive_), generation = generation_,
                        sequence, changes](absl::Status status) {
                         if (weak.lock()) Completed(generation, sequence, changes, status);
                       });
  }
  MaybeFullPushDone();
  RunWhenSent();
}

void FeaOutStage::WhenSent(std::function<void()> fn) {
  CloseBatch();
  when_sent_.emplace_back(next_sequence_ - 1, std::move(fn));
  SendReady();
}

void FeaOutStage::RunWhenSent() {
  std::vector<std::function<void()>> due;
  std::erase_if(when_sent_, [&](auto& w) {
    if (w.first > last_sent_) return false;
    due.push_back(std::move(w.second));
    return true;
  });
  for (auto& fn : due) fn();
}

void FeaOutStage::MaybeFullPushDone() {
  if (!full_push_pending_ || !fea_up_ || client_ == nullptr) return;
  if (last_sent_ < full_push_last_) return;  // the walk's last batch is still queued
  full_push_pending_ = false;
  client_->FullPushDone(family_);
}

void FeaOutStage::Completed(uint64_t generation, uint64_t sequence, size_t changes,
                            const absl::Status& status) {
  if (generation != generation_ || in_flight_ == 0) return;  // sent to an FEA since gone
  --in_flight_;
  in_flight_changes_ -= std::min(changes, in_flight_changes_);
  if (status.ok()) {
    ++stats_.batches_ok;
  } else if (IsLostCall(status)) {
    ++stats_.batches_failed;
    LoseBatch(sequence, status);
  } else {
    ++stats_.batches_failed;
    SLUICE_LOG(kWarning) << name() << ": FIB batch " << sequence
                         << " refused: " << status.ToString();
  }
  SendReady();
  if (resync_paused_) {
    resync_paused_ = false;
    resync_.Start();
  }
  MaybeCaughtUp();
}

void FeaOutStage::FeaBorn() {
  ++generation_;
  fea_up_ = true;
  lagging_ = false;
  catch_up_delay_s_ = 0;
  catch_up_timer_.cancel();
  DropQueue();
  in_flight_ = 0;
  in_flight_changes_ = 0;
  next_sequence_ = 1;
  last_sent_ = 0;
  when_sent_.clear();
  full_push_pending_ = false;
  resyncing_ = true;
  resync_paused_ = false;
  resync_cursor_.reset();
  ++stats_.resyncs;
  resync_.Start();
}

void FeaOutStage::FeaDied() {
  ++generation_;
  fea_up_ = false;
  lagging_ = false;
  catch_up_delay_s_ = 0;
  catch_up_timer_.cancel();
  DropQueue();
  in_flight_ = 0;
  in_flight_changes_ = 0;
  when_sent_.clear();
  StopWalk();
}

bool FeaOutStage::WalkMustWait() {
  const bool full = options_.max_backlog > 0 && queued_changes_ >= options_.max_backlog;
  if (full) {
    // What the walk queued goes out, and a completion resumes it: the walk alone never passes
    // the bound, only live changes can.
    CloseBatch();
    SendReady();
  }
  return ready_.size() >= options_.max_in_flight ||
         (options_.max_backlog > 0 && queued_changes_ >= options_.max_backlog);
}

bool FeaOutStage::ResyncSlice() {
  if (!resyncing_) return false;
  if (WalkMustWait()) {
    resync_paused_ = true;  // a completion resumes the walk
    return false;
  }
  stage::SliceBudget budget;
  const std::vector<RouteSource*>& sources = sources_->all();
  while (true) {
    const std::optional<net::Prefix> prefix = NextPrefix(sources, resync_cursor_);
    if (!prefix) {
      resyncing_ = false;
      resync_cursor_.reset();
      CloseBatch();
      full_push_pending_ = true;
      full_push_last_ = next_sequence_ - 1;  // 0 when the FIB is empty: done at once
      SendReady();
      return false;
    }
    resync_cursor_ = *prefix;
    if (upstream_ != nullptr) {
      if (std::optional<RibRoute> r = upstream_->lookup_route(*prefix)) {
        Queue(FibChange::Op::kAdd, *r);
        if (lagging_) return false;  // past the backlog: the walk starts again once caught up
      }
    }
    if (budget.Exhausted() || WalkMustWait()) break;
  }
  SendReady();
  return true;
}

}  // namespace sluice::rib
