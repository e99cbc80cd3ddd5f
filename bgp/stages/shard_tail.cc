#include "bgp/stages/shard_tail.h"

#include "absl/strings/str_cat.h"

namespace sluice::bgp {

namespace {
// A PrefixSource with no prefixes (the RIB branch is never refreshed).
class NoPrefixes : public PrefixSource {
 public:
  std::optional<net::Prefix> NextPrefix(const std::optional<net::Prefix>&) const override {
    return std::nullopt;
  }
};
const NoPrefixes kNoPrefixes;
}  // namespace

ShardTail::ShardTail(std::string name, boost::asio::io_context& io, ShardOutputSink* sink,
                     uint32_t branch, FlowControl* reader, const PrefixSource* loc_rib,
                     std::function<void()> on_destroy)
    : BranchTail(name),
      sink_(sink),
      branch_(branch),
      reader_(reader),
      on_destroy_(std::move(on_destroy)),
      refresh_(io, name + " refresh", loc_rib != nullptr ? loc_rib : &kNoPrefixes,
               PrefixWalk::Hooks{
                   .visit =
                       [this](const net::Prefix& p) {
                         if (upstream_ == nullptr) return;
                         if (std::optional<BgpRoute> r = upstream_->lookup_route(p)) {
                           ShardOut& o = sink_->Emit();
                           o.kind = ShardOut::Kind::kReadvertise;
                           o.branch = branch_;
                           o.new_route = *r;
                           ++emitted_;
                         }
                       },
                   .end_of_slice = [this] { sink_->Flush(); },
                   .can_run = [this] { return !blocked_; },
                   .paused = [this] { when_unblocked_.push_back(refresh_.Resumer()); },
               }) {}

ShardTail::~ShardTail() {
  if (on_destroy_) on_destroy_();
}

std::string ShardTail::Status() const {
  std::string s = absl::StrCat("branch=", branch_, " sent=", emitted_);
  if (blocked_) s += " blocked";
  if (refresh_.running()) s += " refreshing";
  return s;
}

void ShardTail::add_route(const BgpRoute& route, BgpStage*) {
  ShardOut& o = sink_->Emit();
  o.kind = ShardOut::Kind::kAdd;
  o.branch = branch_;
  o.new_route = route;
  ++emitted_;
}

void ShardTail::delete_route(const BgpRoute& route, BgpStage*) {
  ShardOut& o = sink_->Emit();
  o.kind = ShardOut::Kind::kDelete;
  o.branch = branch_;
  o.old_route = route;
  ++emitted_;
}

void ShardTail::replace_route(const BgpRoute& old_route, const BgpRoute& new_route, BgpStage*) {
  ShardOut& o = sink_->Emit();
  o.kind = ShardOut::Kind::kReplace;
  o.branch = branch_;
  o.old_route = old_route;
  o.new_route = new_route;
  ++emitted_;
}

void ShardTail::push(BgpStage*) { sink_->Flush(); }

void ShardTail::EndOfRib() {
  ShardOut& o = sink_->Emit();
  o.kind = ShardOut::Kind::kEndOfRib;
  o.branch = branch_;
  sink_->Flush();
}

void ShardTail::Refresh() { refresh_.Start(); }

void ShardTail::SetBlocked(bool blocked) {
  if (blocked_ == blocked) return;
  blocked_ = blocked;
  if (reader_ != nullptr) reader_->SetBlocked(blocked);
  if (blocked) return;
  std::vector<std::function<void()>> callbacks;
  callbacks.swap(when_unblocked_);
  for (auto& cb : callbacks) cb();
}

}  // namespace sluice::bgp
