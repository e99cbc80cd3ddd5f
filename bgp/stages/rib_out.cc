#include "bgp/stages/rib_out.h"

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "stage/route_arrival.h"

namespace sluice::bgp {

RibOut::RibOut(std::string name, RibRouteClient* client, net::Family family, FlowControl* reader,
               Options options, stage::Profiler* profiler)
    : BranchTail(std::move(name)),
      client_(client),
      family_(family),
      reader_(reader),
      options_(options),
      self_(std::make_shared<RibOut*>(this)) {
  if (profiler != nullptr) {
    queued_point_ = profiler->Point("bgp_queued_to_rib");
    sent_point_ = profiler->Point("bgp_sent_to_rib");
  }
  if (options_.gate != nullptr) {
    gate_observer_ = options_.gate->Observe([this](bool open) {
      gated_ = !open;
      UpdateBlocked();
    });
  }
}

RibOut::~RibOut() { *self_ = nullptr; }

std::string RibOut::Status() const {
  if (counters_.failed) return "failed";
  std::string s = absl::StrCat("sent=", counters_.sent, " acked=", counters_.acked);
  if (!queue_.empty()) absl::StrAppend(&s, " waiting=", queue_.size());
  if (in_flight_ > 0) absl::StrAppend(&s, " in-flight=", in_flight_);
  return s;
}

void RibOut::Queue(RibRouteChange::Op op, const BgpRoute& route) {
  if (counters_.failed || route.source == nullptr || route.source->local) return;
  RibRouteChange c;
  c.op = op;
  c.ibgp = route.source->ibgp;
  c.prefix = route.net;
  if (op == RibRouteChange::Op::kAdd) {
    if (std::optional<net::IPAddress> nh = route.nexthop()) c.nexthop = *nh;
    c.med = route.attrs->med.value_or(0);
  }
  if (queued_point_ != nullptr && queued_point_->enabled()) {
    queued_point_->Record(
        absl::StrCat(op == RibRouteChange::Op::kAdd ? "add " : "delete ", route.net.ToString()));
  }
  c.arrival_ns = stage::CurrentArrival();
  queue_.push_back(c);
  ++counters_.queued;
}

void RibOut::add_route(const BgpRoute& route, BgpStage*) { Queue(RibRouteChange::Op::kAdd, route); }

void RibOut::delete_route(const BgpRoute& route, BgpStage*) {
  Queue(RibRouteChange::Op::kDelete, route);
}

void RibOut::replace_route(const BgpRoute& old_route, const BgpRoute& new_route, BgpStage*) {
  const bool old_sent = old_route.source != nullptr && !old_route.source->local;
  const bool new_sent = new_route.source != nullptr && !new_route.source->local;
  if (new_sent) {
    // An add replaces the route in the RIB — unless the protocol changes (ebgp <-> ibgp): the
    // old one lives in the other origin table and must be deleted there.
    if (old_sent && old_route.source->ibgp != new_route.source->ibgp) {
      Queue(RibRouteChange::Op::kDelete, old_route);
    }
    Queue(RibRouteChange::Op::kAdd, new_route);
  } else if (old_sent) {
    Queue(RibRouteChange::Op::kDelete, old_route);
  }
}

void RibOut::Send() {
  while (!counters_.failed && in_flight_ < options_.window && !queue_.empty()) {
    const size_t n = std::min(options_.batch, queue_.size());
    std::vector<RibRouteChange> batch(queue_.begin(), queue_.begin() + n);
    queue_.erase(queue_.begin(), queue_.begin() + n);
    if (sent_point_ != nullptr && sent_point_->enabled()) {
      for (const RibRouteChange& c : batch) {
        sent_point_->Record(absl::StrCat(c.op == RibRouteChange::Op::kAdd ? "add " : "delete ",
                                         c.prefix.ToString()));
      }
    }
    ++in_flight_;
    ++counters_.batches;
    counters_.sent += n;
    std::weak_ptr<RibOut*> weak = self_;
    client_->SendRoutes(family_, std::move(batch), [weak, n](absl::Status status) {
      auto self = weak.lock();
      if (self && *self != nullptr) (*self)->OnDone(n, std::move(status));
    });
  }
  UpdateBlocked();
}

void RibOut::OnDone(size_t changes, absl::Status status) {
  --in_flight_;
  if (!status.ok()) {
    if (!counters_.failed) {
      SLUICE_LOG(kWarning) << name() << ": the RIB did not take a batch (" << status.ToString()
                           << "); waiting for it to come back";
    }
    counters_.failed = true;
    queue_.clear();
  } else {
    counters_.acked += changes;
  }
  Send();
}

void RibOut::UpdateBlocked() {
  const bool block =
      gated_ || (!counters_.failed && queue_.size() >= options_.batch * options_.window);
  if (block == blocked_) return;
  blocked_ = block;
  if (reader_ != nullptr) reader_->SetBlocked(block);
}

}  // namespace sluice::bgp
