#include "bgp/stages/route_monitor.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <utility>

#include "absl/container/inlined_vector.h"

namespace sluice::bgp {

void RouteMonitorSlot::Set(std::shared_ptr<RouteMonitor> monitor) {
  std::lock_guard lock(mu_);
  current_.store(monitor.get(), std::memory_order_release);
  kept_.push_back(std::move(monitor));
}

void RouteChanges::Add(const BgpRoute& route, bool withdrawn) {
  if (nlri.empty()) source = route.source;
  withdrawn = withdrawn || !route.attrs;
  const PathAttributes* attrs = withdrawn ? nullptr : route.attrs.get();
  // The last run holds its set: a set at the same address is that set.
  if (runs.empty() || runs.back().attrs.get() != attrs) {
    runs.push_back({withdrawn ? AttrRef() : route.attrs, nlri.size()});
  }
  nlri.push_back(Nlri{route.net, route.path_id});
  runs.back().end = nlri.size();
}

void RouteChanges::Clear() {
  source = nullptr;
  nlri.clear();
  runs.clear();
}

struct RouteMonitorStage::Pending {
  std::vector<RouteMonitorStage*> stages;  // in the order they joined
  // Loops with a hand-over posted and not yet run (one, unless a test runs several on a thread).
  std::vector<boost::asio::io_context*> posted;
};

RouteMonitorStage::Pending& RouteMonitorStage::ThisThread() {
  thread_local Pending p;
  return p;
}

// The posted hand-over. Destroyed unrun (its loop went first), it forgets that it was posted, so
// that a later loop at the same address gets one.
class RouteMonitorStage::HandOver {
 public:
  explicit HandOver(boost::asio::io_context* io) : io_(io) {}
  HandOver(HandOver&& o) noexcept : io_(std::exchange(o.io_, nullptr)) {}
  HandOver& operator=(HandOver&&) = delete;
  ~HandOver() {
    if (io_ != nullptr) std::erase(ThisThread().posted, io_);
  }
  void operator()() { HandOverPending(std::exchange(io_, nullptr)); }

 private:
  boost::asio::io_context* io_;
};

RouteMonitorStage::~RouteMonitorStage() {
  if (!pending_) return;
  std::erase(ThisThread().stages, this);
  Flush();
  if (told_ != nullptr) told_->OnPushDone();
}

void RouteMonitorStage::Collect(const BgpRoute& route, bool withdrawn) {
  if (batch_.empty()) {  // asked once per batch: Flush and the monitor check again
    RouteMonitor* m = slot_->get();
    if (m == nullptr || !m->Wants(rib_)) return;
  }
  batch_.Add(route, withdrawn);
  if (batch_.size() >= kMaxBatch) Flush();  // told OnPushDone with the others at the hand-over
  Schedule();
}

void RouteMonitorStage::Schedule() {
  // A pending stage's loop has its hand-over posted: every hand-over that runs empties the list.
  if (pending_) return;
  Pending& p = ThisThread();
  p.stages.push_back(this);
  pending_ = true;
  if (std::find(p.posted.begin(), p.posted.end(), &io_) != p.posted.end()) return;
  p.posted.push_back(&io_);
  boost::asio::post(io_, HandOver(&io_));
}

void RouteMonitorStage::Flush() {
  RouteMonitor* m = batch_.empty() ? nullptr : slot_->get();
  if (m != nullptr) {
    m->OnRouteChanges(rib_, batch_);
    told_ = m;
  }
  batch_.Clear();
}

void RouteMonitorStage::HandOverPending(boost::asio::io_context* io) {
  Pending& p = ThisThread();
  std::erase(p.posted, io);
  std::vector<RouteMonitorStage*> stages;
  stages.swap(p.stages);
  absl::InlinedVector<RouteMonitor*, 1> told;
  for (RouteMonitorStage* s : stages) {
    s->pending_ = false;
    s->Flush();
    RouteMonitor* m = std::exchange(s->told_, nullptr);
    if (m != nullptr && std::find(told.begin(), told.end(), m) == told.end()) told.push_back(m);
  }
  for (RouteMonitor* m : told) m->OnPushDone();
}

void RouteMonitorStage::add_route(const BgpRoute& route, BgpStage* caller) {
  Collect(route, false);
  BgpLinearStage::add_route(route, caller);
}

void RouteMonitorStage::delete_route(const BgpRoute& route, BgpStage* caller) {
  Collect(route, true);
  BgpLinearStage::delete_route(route, caller);
}

void RouteMonitorStage::replace_route(const BgpRoute& old_route, const BgpRoute& new_route,
                                      BgpStage* caller) {
  Collect(new_route, false);
  BgpLinearStage::replace_route(old_route, new_route, caller);
}

}  // namespace sluice::bgp
