#include "bgp/stages/dump_stage.h"

#include "absl/strings/str_cat.h"

namespace sluice::bgp {

DumpStage::DumpStage(std::string name, stage::Plumber* plumber, const PrefixSource* loc_rib,
                     FlowControl* reader, std::function<void()> on_done, size_t prefixes_per_slice)
    : BgpLinearStage(name),
      plumber_(plumber),
      reader_(reader),
      on_done_(std::move(on_done)),
      walk_(plumber->io(), name, loc_rib,
            PrefixWalk::Hooks{
                .visit = [this](const net::Prefix& p) { Visit(p); },
                .end_of_slice =
                    [this] {
                      if (downstream_ != nullptr) downstream_->push(this);
                    },
                .can_run = [this] { return reader_->ready(); },
                .paused = [this] { reader_->WhenReady(walk_.Resumer()); },
                .done = [this] { Done(); },
            },
            prefixes_per_slice) {
  set_dynamic(true);
}

std::string DumpStage::Status() const {
  std::string s = absl::StrCat("dumped=", dumped_);
  if (walk_.cursor()) absl::StrAppend(&s, " at=", walk_.cursor()->ToString());
  return s;
}

void DumpStage::add_route(const BgpRoute& route, BgpStage* caller) {
  if (walk_.Covers(route.net)) BgpLinearStage::add_route(route, caller);
}

void DumpStage::delete_route(const BgpRoute& route, BgpStage* caller) {
  if (walk_.Covers(route.net)) BgpLinearStage::delete_route(route, caller);
}

void DumpStage::replace_route(const BgpRoute& old_route, const BgpRoute& new_route,
                              BgpStage* caller) {
  if (walk_.Covers(new_route.net)) BgpLinearStage::replace_route(old_route, new_route, caller);
}

std::optional<BgpRoute> DumpStage::lookup_route(const net::Prefix& prefix) const {
  if (!walk_.Covers(prefix)) return std::nullopt;
  return BgpLinearStage::lookup_route(prefix);
}

void DumpStage::Visit(const net::Prefix& prefix) {
  if (upstream_ == nullptr || downstream_ == nullptr) return;
  std::optional<BgpRoute> r = upstream_->lookup_route(prefix);
  if (!r) return;
  ++dumped_;
  downstream_->add_route(*r, this);
}

void DumpStage::Done() {
  std::function<void()> on_done = std::move(on_done_);
  plumber_->SpliceOut<BgpRoute>(this);  // destroyed after this event
  if (on_done) on_done();
}

}  // namespace sluice::bgp
