#include "bgp/stages/fanout.h"

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "absl/strings/str_cat.h"
#include "stage/route_arrival.h"

namespace sluice::bgp {

// --- FanoutReader ------------------------------------------------------------------------------

FanoutReader::FanoutReader(std::string name, Fanout* fanout)
    : BgpLinearStage(std::move(name)), fanout_(fanout) {}

std::string FanoutReader::Status() const {
  std::string s;
  if (const uint64_t n = behind(); n > 0) s = absl::StrCat("behind=", n);
  if (blocked_) absl::StrAppend(&s, s.empty() ? "" : " ", "blocked");
  return s;
}

uint64_t FanoutReader::behind() const {
  return fanout_ != nullptr ? fanout_->tail() - position_ : 0;
}

std::optional<BgpRoute> FanoutReader::lookup_route(const net::Prefix& prefix) const {
  if (fanout_ == nullptr) return std::nullopt;
  return fanout_->LookupFor(this, prefix);
}

void FanoutReader::SetBlocked(bool blocked) {
  if (blocked_ == blocked) return;
  blocked_ = blocked;
  if (!blocked && fanout_ != nullptr) fanout_->ReaderUnblocked(this);
}

bool FanoutReader::ready() const { return !blocked_ && behind() == 0; }

void FanoutReader::WhenReady(std::function<void()> callback) {
  when_ready_.push_back(std::move(callback));
  if (ready() && fanout_ != nullptr) fanout_->FireReady(this);
}

void FanoutReader::Deliver(const std::optional<BgpRoute>& old_route,
                           const std::optional<BgpRoute>& new_route) {
  if (downstream_ == nullptr) return;
  if (old_route && new_route) {
    downstream_->replace_route(*old_route, *new_route, this);
  } else if (old_route) {
    downstream_->delete_route(*old_route, this);
  } else if (new_route) {
    downstream_->add_route(*new_route, this);
  }
}

// --- Fanout ------------------------------------------------------------------------------------

Fanout::Fanout(std::string name, boost::asio::io_context& io)
    : BgpStage(name), io_(io), drain_task_(io, name + " drain", [this] { return DrainSlice(); }) {}

std::string Fanout::Status() const {
  std::string s = absl::StrCat("readers=", readers_.size());
  if (!entries_.empty()) absl::StrAppend(&s, " queued=", entries_.size());
  return s;
}

FanoutReader* Fanout::AddReader(stage::Plumber* plumber, std::string name) {
  auto* reader = plumber->Make<FanoutReader>(std::move(name), this);
  stage::Plumber::Plumb<BgpRoute>(this, reader);
  return reader;
}

void Fanout::RemoveReader(stage::Plumber* plumber, FanoutReader* reader) {
  stage::Plumber::Unplumb<BgpRoute>(this, reader);
  plumber->Retire(reader);
}

std::vector<const stage::StageBase*> Fanout::upstream_stages() const {
  if (upstream_ == nullptr) return {};
  return {upstream_};
}

std::vector<const stage::StageBase*> Fanout::downstream_stages() const {
  return {readers_.begin(), readers_.end()};
}

void Fanout::ConnectDownstream(BgpStage* s) {
  auto* reader = dynamic_cast<FanoutReader*>(s);
  if (reader == nullptr) return;  // only readers hang off a fanout
  if (std::find(readers_.begin(), readers_.end(), reader) != readers_.end()) return;
  reader->fanout_ = this;
  reader->position_ = tail();
  readers_.push_back(reader);
}

void Fanout::DisconnectDownstream(BgpStage* s) {
  auto it = std::find(readers_.begin(), readers_.end(), s);
  if (it == readers_.end()) return;
  (*it)->fanout_ = nullptr;
  readers_.erase(it);
  Trim();
}

void Fanout::add_route(const BgpRoute& route, BgpStage*) { Change(nullptr, &route); }
void Fanout::delete_route(const BgpRoute& route, BgpStage*) { Change(&route, nullptr); }
void Fanout::replace_route(const BgpRoute& old_route, const BgpRoute& new_route, BgpStage*) {
  Change(&old_route, &new_route);
}

static_assert(
    sizeof(BgpRoute) == 56,
    "Fanout::QueuedRoute carries every BgpRoute field but the prefix: add new ones there");

Fanout::QueuedRoute Fanout::Queued(const BgpRoute* route) {
  if (route == nullptr) return {};
  return QueuedRoute{route->attrs, route->source, route->path_id, route->igp_metric, route->flags,
                     route->rpki,  true};
}

std::optional<BgpRoute> Fanout::Unqueued(const net::Prefix& prefix, const QueuedRoute& route) {
  if (!route.present) return std::nullopt;
  BgpRoute r;
  r.net = prefix;
  r.attrs = route.attrs;
  r.source = route.source;
  r.path_id = route.path_id;
  r.igp_metric = route.igp_metric;
  r.flags = route.flags;
  r.rpki = route.rpki;
  return r;
}

void Fanout::Change(const BgpRoute* old_route, const BgpRoute* new_route) {
  const uint64_t old_tail = tail();
  // Readers that will not get this change now need it queued.
  bool store = false;
  uint64_t max_lagging = 0;
  for (const FanoutReader* r : readers_) {
    if (r->blocked_ || r->position_ != old_tail) {
      store = true;
      max_lagging = std::max(max_lagging, r->position_);
    }
  }
  if (store) {
    const net::Prefix& prefix = old_route != nullptr ? old_route->net : new_route->net;
    auto it = index_.find(prefix);
    // Merge into the prefix's last entry when no lagging reader has read it.
    if (it != index_.end() && max_lagging <= it->second.last) {
      Entry& last = at(it->second.last);
      last.new_route = Queued(new_route);
      last.nop = last.old_route == last.new_route;
      last.arrival_ns = stage::OldestArrival(last.arrival_ns, stage::CurrentArrival());
      ++merged_;
    } else {
      Entry e;
      e.prefix = prefix;
      e.old_route = Queued(old_route);
      e.new_route = Queued(new_route);
      e.arrival_ns = stage::CurrentArrival();
      entries_.push_back(std::move(e));
      if (it == index_.end()) {
        index_.emplace(prefix, Chain{old_tail, old_tail});
      } else {
        at(it->second.last).next_same = old_tail;
        it->second.last = old_tail;
      }
    }
    published_.store(entries_.size(), std::memory_order_relaxed);
  }
  const uint64_t new_tail = tail();
  // Index loop: a delivery may remove a reader (a session that fails while sending).
  for (size_t i = 0; i < readers_.size(); ++i) {
    FanoutReader* r = readers_[i];
    if (r->blocked_ || r->position_ != old_tail) continue;
    r->position_ = new_tail;
    if (r->downstream() == nullptr) continue;
    if (old_route != nullptr && new_route != nullptr) {
      r->downstream()->replace_route(*old_route, *new_route, r);
    } else if (old_route != nullptr) {
      r->downstream()->delete_route(*old_route, r);
    } else {
      r->downstream()->add_route(*new_route, r);
    }
  }
}

void Fanout::push(BgpStage*) {
  for (size_t i = 0; i < readers_.size(); ++i) {
    FanoutReader* r = readers_[i];
    if (!r->blocked_ && r->position_ == tail() && r->downstream() != nullptr) {
      r->downstream()->push(r);
    }
  }
  Trim();
}

std::optional<BgpRoute> Fanout::lookup_route(const net::Prefix& prefix) const {
  if (upstream_ == nullptr) return std::nullopt;
  return upstream_->lookup_route(prefix);
}

std::optional<BgpRoute> Fanout::LookupFor(const FanoutReader* reader,
                                          const net::Prefix& prefix) const {
  if (reader->position_ != tail()) {
    auto it = index_.find(prefix);
    if (it != index_.end()) {
      for (uint64_t s = it->second.first; s != kNone; s = at(s).next_same) {
        if (s >= reader->position_ && !at(s).nop) return Unqueued(prefix, at(s).old_route);
      }
    }
  }
  return lookup_route(prefix);
}

void Fanout::ReaderUnblocked(FanoutReader* reader) {
  if (reader->position_ != tail()) {
    drain_task_.Start();
  } else {
    FireReady(reader);
  }
}

void Fanout::FireReady(FanoutReader* reader) {
  if (reader->when_ready_.empty()) return;
  std::vector<std::function<void()>> callbacks;
  callbacks.swap(reader->when_ready_);
  for (auto& cb : callbacks) boost::asio::post(io_, std::move(cb));
}

bool Fanout::DrainSlice() {
  bool more = false;
  for (size_t i = 0; i < readers_.size(); ++i) {
    FanoutReader* r = readers_[i];
    if (r->blocked_ || r->position_ == tail()) continue;
    stage::SliceBudget budget(1000);
    while (r->position_ < tail() && !r->blocked_) {
      const uint64_t seq = r->position_++;
      const Entry& e = at(seq);
      if (!e.nop) {
        // Copies: a delivery may merge new changes into queued entries.
        std::optional<BgpRoute> o = Unqueued(e.prefix, e.old_route);
        std::optional<BgpRoute> n = Unqueued(e.prefix, e.new_route);
        stage::ArrivalScope arrival(e.arrival_ns);
        r->Deliver(o, n);
        if (i >= readers_.size() || readers_[i] != r) break;  // the reader went away
      }
      if (budget.Exhausted()) break;
    }
    if (i >= readers_.size() || readers_[i] != r) continue;
    if (r->downstream() != nullptr) r->downstream()->push(r);
    if (r->ready()) {
      FireReady(r);
    } else if (!r->blocked_) {
      more = true;
    }
  }
  Trim();
  return more;
}

void Fanout::Trim() {
  uint64_t head = tail();
  for (const FanoutReader* r : readers_) head = std::min(head, r->position_);
  while (base_ < head) {
    Entry& e = entries_.front();
    auto it = index_.find(e.prefix);
    if (it != index_.end()) {
      if (e.next_same == kNone) {
        index_.erase(it);
      } else {
        it->second.first = e.next_same;
      }
    }
    entries_.pop_front();
    ++base_;
  }
  // After a long lag, give the memory back (a hash map never shrinks by itself).
  if (entries_.empty() && index_.capacity() > 4096) {
    absl::flat_hash_map<net::Prefix, Chain>().swap(index_);
    EntryQueue().swap(entries_);
  }
  published_.store(entries_.size(), std::memory_order_relaxed);
}

}  // namespace sluice::bgp
