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
using Out = stage::ShardOutput<BgpRoute>;
using Op = Out::Op;
}  // namespace

ShardTail::ShardTail(std::string name, boost::asio::io_context& io, ShardOutputs* outputs,
                     uint32_t port, FlowControl* reader, const PrefixSource* loc_rib)
    : BranchTail(name),
      outputs_(outputs),
      port_(port),
      reader_(reader),
      refresh_(io, name + " refresh", loc_rib != nullptr ? loc_rib : &kNoPrefixes,
               PrefixWalk::Hooks{
                   .visit =
                       [this](const net::Prefix& p) {
                         if (upstream_ == nullptr) return;
                         if (std::optional<BgpRoute> r = upstream_->lookup_route(p)) {
                           Out& o = outputs_->Emit(port_, Op::kSignal);
                           o.code = kReadvertise;
                           o.route = *r;
                           ++emitted_;
                         }
                       },
                   .end_of_slice = [this] { outputs_->Flush(); },
                   .can_run = [this] { return !blocked_; },
                   .paused = [this] { when_unblocked_.push_back(refresh_.Resumer()); },
               }) {
  outputs_->Attach(port_, this);
}

ShardTail::~ShardTail() { outputs_->Detach(port_); }

std::string ShardTail::Status() const {
  std::string s = absl::StrCat("port=", port_, " sent=", emitted_);
  if (blocked_) s += " blocked";
  if (refresh_.running()) s += " refreshing";
  return s;
}

void ShardTail::add_route(const BgpRoute& route, BgpStage* caller) {
  add_route(BgpRoute(route), caller);
}

void ShardTail::add_route(BgpRoute&& route, BgpStage*) {
  outputs_->Emit(port_, Op::kAdd).route = std::move(route);
  ++emitted_;
}

void ShardTail::delete_route(const BgpRoute& route, BgpStage*) {
  outputs_->Emit(port_, Op::kDelete).route = route;
  ++emitted_;
}

void ShardTail::replace_route(const BgpRoute& old_route, const BgpRoute& new_route,
                              BgpStage* caller) {
  replace_route(BgpRoute(old_route), BgpRoute(new_route), caller);
}

void ShardTail::replace_route(BgpRoute&& old_route, BgpRoute&& new_route, BgpStage*) {
  Out& o = outputs_->Emit(port_, Op::kReplace);
  o.old = stage::ShardOldRoute<BgpRoute>::Keep(std::move(old_route));
  o.route = std::move(new_route);
  ++emitted_;
}

void ShardTail::push(BgpStage*) { outputs_->Flush(); }

void ShardTail::EndOfRib() {
  outputs_->Emit(port_, Op::kBarrier).code = kEndOfRib;
  outputs_->Flush();
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
