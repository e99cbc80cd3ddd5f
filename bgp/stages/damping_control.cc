#include "bgp/stages/damping_control.h"

#include "absl/strings/str_cat.h"
#include "net/status_macros.h"

namespace sluice::bgp {

namespace {
constexpr net::Family kFamilies[] = {net::Family::kIPv4, net::Family::kIPv6};
}  // namespace

DampingControl::DampingControl(BgpRouting* routing, ClockFactory clocks)
    : routing_(routing), clocks_(std::move(clocks)) {
  if (!clocks_) {
    boost::asio::io_context* io = &routing_->io();
    clocks_ = [io] { return MakeAsioDampingClock(*io); };
  }
}

absl::Status DampingControl::SetParams(const DampingParams& params) {
  RETURN_IF_ERROR(params.Validate());
  params_ = params;
  for (const RoutingPeerStatus& status : routing_->Peers()) {
    for (DampingStage* s : Stages(status.address)) s->SetParams(params_);
  }
  return absl::OkStatus();
}

std::vector<DampingStage*> DampingControl::Stages(const net::IPAddress& address) {
  std::vector<DampingStage*> out;
  BgpPeer* peer = routing_->peer(address);
  if (peer == nullptr) return out;
  for (net::Family f : kFamilies) {
    FamilyPipeline* pipeline = routing_->pipeline(f);
    if (pipeline == nullptr) continue;
    ImportFilter* import = pipeline->import_filter(peer->settings().peer_id);
    if (import == nullptr) continue;
    if (auto* d = dynamic_cast<DampingStage*>(import->downstream())) out.push_back(d);
  }
  return out;
}

absl::Status DampingControl::Enable(const net::IPAddress& address) {
  BgpPeer* peer = routing_->peer(address);
  if (peer == nullptr) {
    return absl::NotFoundError(absl::StrCat("damping: no peer ", address.ToString()));
  }
  if (!Stages(address).empty()) return absl::OkStatus();
  for (net::Family f : kFamilies) {
    FamilyPipeline* pipeline = routing_->pipeline(f);
    if (pipeline == nullptr) continue;
    ImportFilter* import = pipeline->import_filter(peer->settings().peer_id);
    if (import == nullptr) continue;
    const std::string name = absl::StrCat(f == net::Family::kIPv4 ? "v4" : "v6", " Damping(",
                                          peer->settings().name, ")");
    auto* stage = routing_->plumber().Make<DampingStage>(name, params_, clocks_());
    // ImportFilter(P) → DampingStage(P) → NexthopResolver(P). Routes already past the filter
    // have no figure of merit yet: they pass as they are.
    stage::Plumber::InsertAfter<BgpRoute>(import, stage);
  }
  return absl::OkStatus();
}

absl::Status DampingControl::Disable(const net::IPAddress& address) {
  if (routing_->peer(address) == nullptr) {
    return absl::NotFoundError(absl::StrCat("damping: no peer ", address.ToString()));
  }
  for (DampingStage* s : Stages(address)) {
    s->ReleaseAll();  // suppressed routes go downstream first: downstream stays consistent
    routing_->plumber().SpliceOut<BgpRoute>(s);
  }
  return absl::OkStatus();
}

std::vector<net::IPAddress> DampingControl::DampedPeers() {
  std::vector<net::IPAddress> out;
  for (const RoutingPeerStatus& status : routing_->Peers()) {
    if (enabled(status.address)) out.push_back(status.address);
  }
  return out;
}

std::vector<PeerDampedPrefix> DampingControl::List(bool suppressed_only,
                                                   const std::optional<net::IPAddress>& peer) {
  std::vector<PeerDampedPrefix> out;
  for (const RoutingPeerStatus& status : routing_->Peers()) {
    if (peer && status.address != *peer) continue;
    for (DampingStage* s : Stages(status.address)) {
      for (DampedPrefix& d : s->List(suppressed_only)) {
        out.push_back(PeerDampedPrefix{status.address, std::move(d)});
      }
    }
  }
  return out;
}

}  // namespace sluice::bgp
