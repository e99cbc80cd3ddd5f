#include "bgp/stages/export_filter.h"

namespace sluice::bgp {

ExportFilter::ExportFilter(std::string name, boost::asio::io_context& io,
                           const PrefixSource* loc_rib, FlowControl* reader, AttributeStore* store,
                           ExportConfig config, policy::FilterSlot* slot,
                           std::shared_ptr<ExportMemoPool> memos)
    : BgpLinearStage(name),
      reader_(reader),
      store_(store),
      slot_(slot),
      memos_(std::move(memos)),
      walk_(io, name + " re-filter", loc_rib,
            PrefixWalk::Hooks{
                .visit = [this](const net::Prefix& p) { Visit(p); },
                .end_of_slice =
                    [this] {
                      if (downstream_ != nullptr) downstream_->push(this);
                    },
                .can_run = [this] { return reader_ == nullptr || reader_->ready(); },
                .paused = [this] { reader_->WhenReady(walk_.Resumer()); },
                .done = [this] { WalkDone(); },
            }) {
  if (slot != nullptr) config.filter = slot_.seen();
  active_ = MakeContext(std::move(config));
}

std::unique_ptr<ExportFilter::Context> ExportFilter::MakeContext(ExportConfig config) const {
  auto c = std::make_unique<Context>();
  c->memo = memos_ != nullptr ? memos_->For(config) : std::make_shared<ExportMemo>();
  c->config = std::move(config);
  return c;
}

std::string ExportFilter::Status() const {
  std::string s = active_->config.ibgp ? "ibgp" : "ebgp";
  if (active_->config.rr_client) s += " rr-client";
  if (active_->config.filter != nullptr) s += " policy";
  if (walk_.running()) s += " re-filtering";
  return s;
}

void ExportFilter::SetConfig(ExportConfig config) {
  if (walk_.running()) {
    queued_ = std::make_unique<ExportConfig>(std::move(config));
    return;
  }
  pending_ = MakeContext(std::move(config));
  walk_.Start();
}

void ExportFilter::CheckSlot() {
  std::optional<std::shared_ptr<const policy::Filter>> polled = slot_.Poll();
  if (!polled) return;
  std::shared_ptr<const policy::Filter> f = std::move(*polled);
  const ExportConfig& newest = queued_ ? *queued_ : pending_ ? pending_->config : active_->config;
  if (f == newest.filter) return;
  ExportConfig next = newest;
  next.filter = std::move(f);
  SetConfig(std::move(next));
}

void ExportFilter::WalkDone() {
  active_ = std::move(pending_);
  if (queued_) {
    pending_ = MakeContext(std::move(*queued_));
    queued_.reset();
    walk_.Start();
  } else {
    walk_.Cancel();
  }
}

void ExportFilter::Visit(const net::Prefix& prefix) {
  if (upstream_ == nullptr) return;
  std::optional<BgpRoute> r = upstream_->lookup_route(prefix);
  if (!r) return;
  Emit(Export(*r, *active_), Export(*r, *pending_));
}

void ExportFilter::Emit(std::optional<BgpRoute> o, std::optional<BgpRoute> n) {
  if (downstream_ == nullptr) return;
  if (o && n) {
    if (!(*o == *n)) downstream_->replace_route(std::move(*o), std::move(*n), this);
  } else if (o) {
    downstream_->delete_route(*o, this);
  } else if (n) {
    downstream_->add_route(std::move(*n), this);
  }
}

void ExportFilter::add_route(const BgpRoute& route, BgpStage*) {
  Emit(std::nullopt, Export(route, ContextFor(route.net)));
}

void ExportFilter::delete_route(const BgpRoute& route, BgpStage*) {
  Emit(Export(route, ContextFor(route.net)), std::nullopt);
}

void ExportFilter::replace_route(const BgpRoute& old_route, const BgpRoute& new_route, BgpStage*) {
  const Context& c = ContextFor(new_route.net);
  Emit(Export(old_route, c), Export(new_route, c));
}

void ExportFilter::push(BgpStage*) {
  CheckSlot();
  if (downstream_ != nullptr) downstream_->push(this);
}

std::optional<BgpRoute> ExportFilter::lookup_route(const net::Prefix& prefix) const {
  if (upstream_ == nullptr) return std::nullopt;
  std::optional<BgpRoute> r = upstream_->lookup_route(prefix);
  if (!r) return std::nullopt;
  return Export(*r, ContextFor(prefix));
}

}  // namespace sluice::bgp
