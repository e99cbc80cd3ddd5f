#include "bgp/stages/peer_in.h"

#include "absl/strings/str_cat.h"
#include "bgp/stages/deletion_stage.h"

namespace sluice::bgp {

PeerIn::PeerIn(std::string name, stage::Plumber* plumber, RouteTableSet* tables, Options options,
               stage::Profiler* profiler)
    : BgpLinearStage(std::move(name)),
      plumber_(plumber),
      tables_(tables),
      options_(std::move(options)),
      table_(std::make_unique<RouteTable>()),
      self_(std::make_shared<PeerIn*>(this)) {
  if (profiler != nullptr) route_in_ = profiler->Point("bgp_route_in");
  tables_->Add(table_.get());
}

// The table set is not touched here: the pipeline drops the branch's whole set when it
// retires the branch, and may destroy it before the Plumber destroys this stage.
PeerIn::~PeerIn() { *self_ = nullptr; }

std::string PeerIn::Status() const {
  std::string s = absl::StrCat("routes=", table_->size());
  if (!held_.empty()) absl::StrAppend(&s, " stale=", stale());
  if (source_ == nullptr) s += " down";
  return s;
}

void PeerIn::SessionUp(const PeerSource* source) { source_ = source; }

BgpRoute PeerIn::Make(const net::Prefix& prefix, const StoredRoute& stored) const {
  BgpRoute r = MakeRoute(prefix, stored, source_);
  if (options_.mark_resolved) r.flags = BgpRoute::kResolved;
  return r;
}

bool PeerIn::Announce(const net::Prefix& prefix, const AttrRef& attrs, uint32_t path_id) {
  return Announce(prefix, AttrRef(attrs), path_id);
}

bool PeerIn::Announce(const net::Prefix& prefix, AttrRef&& attrs, uint32_t path_id) {
  if (source_ == nullptr || !attrs) return false;
  if (route_in_ != nullptr && route_in_->enabled()) route_in_->Record(prefix.ToString());
  // One descent: insert an empty route, or find the route already there.
  auto [it, added] = table_->insert(prefix, StoredRoute{});
  StoredRoute& stored = *it;
  if (added) {
    stored.attrs = std::move(attrs);
    stored.path_id = path_id;
    if (downstream_ != nullptr) downstream_->add_route(Make(prefix, stored), this);
    return true;
  }
  if (stored.attrs == attrs && stored.path_id == path_id) return true;  // no change
  BgpRoute old_route = Make(prefix, stored);
  stored.attrs = std::move(attrs);
  stored.path_id = path_id;
  if (downstream_ != nullptr) downstream_->replace_route(old_route, Make(prefix, stored), this);
  return true;
}

bool PeerIn::Withdraw(const net::Prefix& prefix) {
  if (route_in_ != nullptr && route_in_->enabled()) {
    route_in_->Record(absl::StrCat(prefix.ToString(), " withdrawn"));
  }
  StoredRoute* existing = table_->find_value(prefix);
  if (existing == nullptr) return false;
  BgpRoute old_route = Make(prefix, *existing);
  table_->erase(prefix);
  if (downstream_ != nullptr) downstream_->delete_route(old_route, this);
  return true;
}

void PeerIn::Push() {
  if (downstream_ != nullptr) downstream_->push(this);
}

std::optional<BgpRoute> PeerIn::lookup_route(const net::Prefix& prefix) const {
  const StoredRoute* stored = table_->find_value(prefix);
  if (stored == nullptr) return std::nullopt;
  return Make(prefix, *stored);
}

DeletionStage* PeerIn::SessionDown(Down how) {
  const PeerSource* source = source_;
  source_ = nullptr;
  if (table_->empty()) return nullptr;
  std::unique_ptr<RouteTable> old = std::move(table_);
  table_ = std::make_unique<RouteTable>();
  tables_->Add(table_.get());
  ++deletions_started_;
  ++deletions_running_;
  std::weak_ptr<PeerIn*> weak = self_;
  std::string name = absl::StrCat(this->name(), "/deletion", deletions_started_);
  auto* deletion = plumber_->Make<DeletionStage>(
      std::move(name), plumber_, tables_, std::move(old), source,
      options_.mark_resolved ? BgpRoute::kResolved : uint8_t{0}, options_.deletion_slice, [weak] {
        auto self = weak.lock();
        if (!self || *self == nullptr) return;
        PeerIn* in = *self;
        --in->deletions_running_;
        if (in->options_.on_deletion_done) in->options_.on_deletion_done();
      });
  stage::Plumber::InsertAfter<BgpRoute>(this, deletion);
  if (how == Down::kKeepStale) {
    held_.push_back(deletion);
  } else {
    deletion->Start();
  }
  return deletion;
}

void PeerIn::SweepStale() {
  std::vector<DeletionStage*> held = std::move(held_);
  held_.clear();
  for (DeletionStage* d : held) d->Start();
}

size_t PeerIn::stale() const {
  size_t n = 0;
  for (const DeletionStage* d : held_) n += d->remaining();
  return n;
}

}  // namespace sluice::bgp
