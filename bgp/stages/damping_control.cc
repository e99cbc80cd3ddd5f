#include "bgp/stages/damping_control.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace sluice::bgp {

namespace {

constexpr net::Family kFamilies[] = {net::Family::kIPv4, net::Family::kIPv6};

// The damping stage after the peer's ImportFilter in `pipeline`, if plumbed.
DampingStage* StageOf(FamilyPipeline& pipeline, uint32_t peer_id) {
  ImportFilter* import = pipeline.import_filter(peer_id);
  if (import == nullptr) return nullptr;
  return dynamic_cast<DampingStage*>(import->downstream());
}

}  // namespace

DampingControl::DampingControl(BgpRouting* routing, ClockFactory clocks)
    : routing_(routing), clocks_(std::move(clocks)) {
  if (!clocks_) {
    clocks_ = [](boost::asio::io_context& io) { return MakeAsioDampingClock(io); };
  }
}

void DampingControl::ForEachStage(uint32_t peer_id,
                                  const std::function<void(DampingStage&, stage::Plumber&)>& fn) {
  for (net::Family f : kFamilies) {
    FamilyRouting* family = routing_->routing(f);
    if (family == nullptr) continue;
    family->ForEachPipeline([peer_id, &fn](FamilyPipeline& pipeline, stage::Plumber& plumber) {
      if (DampingStage* s = StageOf(pipeline, peer_id)) fn(*s, plumber);
    });
  }
}

absl::Status DampingControl::SetParams(const DampingParams& params) {
  RETURN_IF_ERROR(params.Validate());
  params_ = params;
  const DampingParams p = params_;
  for (const RoutingPeerStatus& status : routing_->Peers()) {
    BgpPeer* peer = routing_->peer(status.address);
    if (peer == nullptr) continue;
    ForEachStage(peer->settings().peer_id,
                 [&p](DampingStage& s, stage::Plumber&) { s.SetParams(p); });
  }
  return absl::OkStatus();
}

size_t DampingControl::StageCount(const net::IPAddress& address) {
  BgpPeer* peer = routing_->peer(address);
  if (peer == nullptr) return 0;
  size_t n = 0;
  ForEachStage(peer->settings().peer_id, [&n](DampingStage&, stage::Plumber&) { ++n; });
  return n;
}

absl::Status DampingControl::Enable(const net::IPAddress& address) {
  BgpPeer* peer = routing_->peer(address);
  if (peer == nullptr) {
    return absl::NotFoundError(absl::StrCat("damping: no peer ", address.ToString()));
  }
  const uint32_t peer_id = peer->settings().peer_id;
  const std::string peer_name = peer->settings().name;
  for (net::Family f : kFamilies) {
    FamilyRouting* family = routing_->routing(f);
    if (family == nullptr) continue;
    const std::string name =
        absl::StrCat(f == net::Family::kIPv4 ? "v4" : "v6", " Damping(", peer_name, ")");
    family->ForEachPipeline([&](FamilyPipeline& pipeline, stage::Plumber& plumber) {
      ImportFilter* import = pipeline.import_filter(peer_id);
      if (import == nullptr || StageOf(pipeline, peer_id) != nullptr) return;  // enabled: no-op
      auto* stage = plumber.Make<DampingStage>(name, params_, clocks_(plumber.io()));
      // ImportFilter(P) → DampingStage(P) → [RouteMonitor(P)] → NexthopResolver(P). Routes
      // already past the filter have no figure of merit yet: they pass as they are.
      stage::Plumber::InsertAfter<BgpRoute>(import, stage);
    });
  }
  return absl::OkStatus();
}

absl::Status DampingControl::Disable(const net::IPAddress& address) {
  BgpPeer* peer = routing_->peer(address);
  if (peer == nullptr) {
    return absl::NotFoundError(absl::StrCat("damping: no peer ", address.ToString()));
  }
  ForEachStage(peer->settings().peer_id, [](DampingStage& s, stage::Plumber& plumber) {
    s.ReleaseAll();  // suppressed routes go downstream first: downstream stays consistent
    plumber.SpliceOut<BgpRoute>(&s);
  });
  return absl::OkStatus();
}

std::vector<net::IPAddress> DampingControl::DampedPeers() {
  std::vector<net::IPAddress> out;
  for (const RoutingPeerStatus& status : routing_->Peers()) {
    if (enabled(status.address)) out.push_back(status.address);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<PeerDampedPrefix> DampingControl::List(bool suppressed_only,
                                                   const std::optional<net::IPAddress>& peer) {
  std::vector<PeerDampedPrefix> out;
  for (const RoutingPeerStatus& status : routing_->Peers()) {
    if (peer && status.address != *peer) continue;
    BgpPeer* p = routing_->peer(status.address);
    if (p == nullptr) continue;
    const net::IPAddress address = status.address;
    ForEachStage(p->settings().peer_id, [&](DampingStage& s, stage::Plumber&) {
      for (DampedPrefix& d : s.List(suppressed_only)) {
        out.push_back(PeerDampedPrefix{address, std::move(d)});
      }
    });
  }
  // Each stage lists its own prefixes in order; the shards' and families' lists interleave.
  std::stable_sort(out.begin(), out.end(),
                   [](const PeerDampedPrefix& a, const PeerDampedPrefix& b) {
                     if (a.peer != b.peer) return a.peer < b.peer;
                     return a.damped.prefix < b.damped.prefix;
                   });
  return out;
}

}  // namespace sluice::bgp
