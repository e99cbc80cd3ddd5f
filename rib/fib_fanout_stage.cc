#include "rib/fib_fanout_stage.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace sluice::rib {

std::string FibFanoutStage::Status() const { return absl::StrCat("feas=", downstreams_.size()); }

void FibFanoutStage::add_route(const RibRoute& route, RibStage*) {
  for (RibStage* down : downstreams_) down->add_route(route, this);
}

void FibFanoutStage::delete_route(const RibRoute& route, RibStage*) {
  for (RibStage* down : downstreams_) down->delete_route(route, this);
}

void FibFanoutStage::replace_route(const RibRoute& old_route, const RibRoute& new_route,
                                   RibStage*) {
  for (RibStage* down : downstreams_) down->replace_route(old_route, new_route, this);
}

void FibFanoutStage::push(RibStage*) {
  for (RibStage* down : downstreams_) down->push(this);
}

std::optional<RibRoute> FibFanoutStage::lookup_route(const net::Prefix& prefix) const {
  if (upstream_ == nullptr) return std::nullopt;
  return upstream_->lookup_route(prefix);
}

std::vector<const stage::StageBase*> FibFanoutStage::upstream_stages() const {
  if (upstream_ == nullptr) return {};
  return {upstream_};
}

std::vector<const stage::StageBase*> FibFanoutStage::downstream_stages() const {
  return {downstreams_.begin(), downstreams_.end()};
}

void FibFanoutStage::ConnectDownstream(RibStage* downstream) {
  if (downstream == nullptr) return;
  if (std::ranges::find(downstreams_, downstream) == downstreams_.end()) {
    downstreams_.push_back(downstream);
  }
}

void FibFanoutStage::DisconnectUpstream(RibStage* upstream) {
  if (upstream_ == upstream) upstream_ = nullptr;
}

void FibFanoutStage::DisconnectDownstream(RibStage* downstream) {
  std::erase(downstreams_, downstream);
}

void FibFanoutStage::ReplaceUpstream(RibStage* old_stage, RibStage* new_stage) {
  if (upstream_ == old_stage) upstream_ = new_stage;
}

void FibFanoutStage::ReplaceDownstream(RibStage* old_stage, RibStage* new_stage) {
  std::ranges::replace(downstreams_, old_stage, new_stage);
}

}  // namespace sluice::rib
