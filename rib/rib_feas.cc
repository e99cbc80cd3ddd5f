// Rib: the FEAs it feeds — one FeaOut per FEA and family below the FIB fanout (rib_network.h).
#include <boost/asio/steady_timer.hpp>
#include <memory>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "rib/rib.h"

namespace sluice::rib {

absl::Status Rib::AddFea(std::string_view fea, FibClient* fib) {
  if (fea.empty()) return absl::InvalidArgumentError("an FEA needs a name");
  if (feas_.contains(fea)) {
    return absl::AlreadyExistsError(absl::StrCat("the RIB already feeds FEA ", std::string(fea)));
  }
  const std::string name(fea);
  feas_.emplace(name, fib);
  fea_views_.emplace(name, std::make_unique<FeaView>([this, name](const FeaInterfacesView& view) {
                       FeaViewChanged(name, view);
                     }));
  for (RibNetwork* network : {v4_.get(), v6_.get()}) {
    network->AddFeaOut(name, fib, [this, name] { FeaCaughtUp(name); });
  }
  return absl::OkStatus();
}

absl::Status Rib::RemoveFea(std::string_view fea) {
  auto it = feas_.find(fea);
  if (it == feas_.end())
    return absl::NotFoundError(absl::StrCat("the RIB feeds no FEA ", std::string(fea)));
  v4_->RemoveFeaOut(it->first);
  v6_->RemoveFeaOut(it->first);
  fea_views_.erase(it->first);
  connected_union_.RemoveFea(it->first);
  PushConnected();
  feas_.erase(it);
  return absl::OkStatus();
}

std::vector<std::string> Rib::Feas() const {
  std::vector<std::string> out;
  for (const auto& [name, fib] : feas_) out.push_back(name);
  return out;
}

std::vector<FeaState> Rib::FeaStates() const {
  std::vector<FeaState> out;
  for (const auto& [name, fib] : feas_) {
    FeaState state{.name = name};
    for (const RibNetwork* network : {v4_.get(), v6_.get()}) {
      const FeaOutStage* stage = network->fea_out(name);
      if (stage == nullptr) continue;
      state.up = stage->fea_up();
      state.lagging |= stage->lagging();
      state.resyncing |= stage->resync_running();
      state.queued += stage->queued();
      state.in_flight += stage->in_flight_changes();
      // A birth or a catch-up starts the re-send in both families: count it once.
      state.full_pushes = stage->stats().resyncs;
      state.lagged += stage->stats().lagged;
      state.batches_failed += stage->stats().batches_failed;
    }
    state.interfaces_known = FeaViewKnown(name);
    out.push_back(std::move(state));
  }
  return out;
}

void Rib::FeaBorn(std::string_view fea) {
  for (RibNetwork* network : {v4_.get(), v6_.get()}) {
    if (FeaOutStage* out = network->fea_out(fea)) out->FeaBorn();
  }
}

void Rib::FeaDied(std::string_view fea) {
  for (RibNetwork* network : {v4_.get(), v6_.get()}) {
    if (FeaOutStage* out = network->fea_out(fea)) out->FeaDied();
  }
}

InterfaceEvents* Rib::FeaInterfaceEvents(std::string_view fea) {
  auto it = fea_views_.find(fea);
  return it == fea_views_.end() ? nullptr : it->second->events();
}

bool Rib::FeaViewKnown(std::string_view fea) const {
  auto it = fea_views_.find(fea);
  return it != fea_views_.end() && it->second->known();
}

void Rib::FeaViewChanged(const std::string& fea, const FeaInterfacesView& view) {
  connected_union_.SetFea(fea, view.subnets);
  PushConnected();
  bool up = false;
  for (RibNetwork* network : {v4_.get(), v6_.get()}) {
    if (FeaResolveStage* resolve = network->fea_resolve(fea)) resolve->SetView(view);
    if (FeaOutStage* out = network->fea_out(fea)) up |= out->fea_up();
  }
  SLUICE_LOG(kInfo) << "FEA " << fea << " has " << view.subnets.size() << " connected subnets on "
                    << view.interfaces_up.size() << " interfaces up"
                    << (up ? ": re-sending its FIB" : "");
  if (up) FeaCaughtUp(fea);
}

void Rib::FeaCaughtUp(std::string_view fea) {
  auto it = feas_.find(fea);
  if (it == feas_.end()) return;
  if (it->second != nullptr) it->second->BeginFullPush();
  FeaBorn(fea);
}

void Rib::WhenFeaSent(std::function<void()> fn, std::string_view fea) {
  FeaOutStage* v4 = v4_->fea_out(fea);
  FeaOutStage* v6 = v6_->fea_out(fea);
  if (v4 == nullptr || v6 == nullptr) return;
  auto left = std::make_shared<int>(2);
  auto one = [left, fn = std::move(fn)] {
    if (--*left == 0) fn();
  };
  v4->WhenSent(one);
  v6->WhenSent(one);
}

void Rib::WhenSettled(std::function<void()> fn, std::string_view fea) {
  if (!v4_->ext_int()->rewalk_running() && !v6_->ext_int()->rewalk_running()) {
    return WhenFeaSent(std::move(fn), fea);
  }
  auto timer =
      std::make_shared<boost::asio::steady_timer>(plumber_.io(), std::chrono::milliseconds(20));
  timer->async_wait([this, timer, fn = std::move(fn),
                     name = std::string(fea)](const boost::system::error_code& error) {
    if (!error) WhenSettled(std::move(fn), name);
  });
}

}  // namespace sluice::rib
