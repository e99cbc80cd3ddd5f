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

void DampingControl::ForEachStage(uint32_t peer_id, StageFn fn) {
  for (net::Family f : kFamilies) {
    FamilyRouting* family = routing_->routing(f);
    if (family == nullptr) continue;
    family->ForEachPipelineAsync(
        [peer_id, fn](FamilyPipeline& pipeline, stage::Plumber& plumber, int) {
          if (DampingStage* s = StageOf(pipeline, peer_id)) fn(*s, plumber);
        },
        [] {});
  }
}

absl::Status DampingControl::SetParams(const DampingParams& params) {
  RETURN_IF_ERROR(params.Validate());
  params_ = params;
  const DampingParams p = params_;
  for (const RoutingPeerStatus& status : routing_->Peers()) {
    BgpPeer* peer = routing_->peer(status.address);
    if (peer == nullptr || !enabled_.contains(peer->settings().peer_id)) continue;
    ForEachStage(peer->settings().peer_id,
                 [p](DampingStage& s, stage::Plumber&) { s.SetParams(p); });
  }
  return absl::OkStatus();
}

size_t DampingControl::StageCount(const net::IPAddress& address) {
  BgpPeer* peer = routing_->peer(address);
  if (peer == nullptr) return 0;
  const uint32_t peer_id = peer->settings().peer_id;
  size_t n = 0;
  for (net::Family f : kFamilies) {
    FamilyRouting* family = routing_->routing(f);
    if (family == nullptr) continue;
    family->ForEachPipeline([peer_id, &n](FamilyPipeline& pipeline, stage::Plumber&) {
      if (StageOf(pipeline, peer_id) != nullptr) ++n;
    });
  }
  return n;
}

bool DampingControl::enabled(const net::IPAddress& address) {
  BgpPeer* peer = routing_->peer(address);
  return peer != nullptr && enabled_.contains(peer->settings().peer_id);
}

absl::Status DampingControl::Enable(const net::IPAddress& address) {
  BgpPeer* peer = routing_->peer(address);
  if (peer == nullptr) {
    return absl::NotFoundError(absl::StrCat("damping: no peer ", address.ToString()));
  }
  const uint32_t peer_id = peer->settings().peer_id;
  const std::string peer_name = peer->settings().name;
  enabled_.insert(peer_id);
  for (net::Family f : kFamilies) {
    FamilyRouting* family = routing_->routing(f);
    if (family == nullptr) continue;
    const std::string name =
        absl::StrCat(f == net::Family::kIPv4 ? "v4" : "v6", " Damping(", peer_name, ")");
    family->ForEachPipelineAsync(
        [peer_id, name, params = params_, clocks = clocks_](FamilyPipeline& pipeline,
                                                            stage::Plumber& plumber, int) {
          ImportFilter* import = pipeline.import_filter(peer_id);
          if (import == nullptr || StageOf(pipeline, peer_id) != nullptr) return;  // no-op
          auto* stage = plumber.Make<DampingStage>(name, params, clocks(plumber.io()));
          // ImportFilter(P) → DampingStage(P) → [RouteMonitor(P)] → NexthopResolver(P). Routes
          // already past the filter have no figure of merit yet: they pass as they are.
          stage::Plumber::InsertAfter<BgpRoute>(import, stage);
        },
        [] {});
  }
  return absl::OkStatus();
}

absl::Status DampingControl::Disable(const net::IPAddress& address) {
  BgpPeer* peer = routing_->peer(address);
  if (peer == nullptr) {
    return absl::NotFoundError(absl::StrCat("damping: no peer ", address.ToString()));
  }
  enabled_.erase(peer->settings().peer_id);
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

namespace {

// One ListAsync: a list per copy of each family's pipeline, each written by its copy's thread
// only; merged on the loop when the last family answered.
struct ListGather {
  std::vector<std::vector<PeerDampedPrefix>> parts;
  size_t families_left = 0;
  DampingControl::ListDone done;

  void Finish() {
    std::vector<PeerDampedPrefix> out;
    for (std::vector<PeerDampedPrefix>& part : parts) {
      out.insert(out.end(), std::make_move_iterator(part.begin()),
                 std::make_move_iterator(part.end()));
    }
    // Each stage lists its own prefixes in order; the shards' and families' lists interleave.
    std::stable_sort(out.begin(), out.end(),
                     [](const PeerDampedPrefix& a, const PeerDampedPrefix& b) {
                       if (a.peer != b.peer) return a.peer < b.peer;
                       return a.damped.prefix < b.damped.prefix;
                     });
    done(std::move(out));
  }
};

}  // namespace

void DampingControl::ListAsync(bool suppressed_only, const std::optional<net::IPAddress>& peer,
                               ListDone done) {
  std::vector<std::pair<net::IPAddress, uint32_t>> peers;  // address, peer id
  for (const RoutingPeerStatus& status : routing_->Peers()) {
    if (peer && status.address != *peer) continue;
    if (BgpPeer* p = routing_->peer(status.address)) {
      peers.emplace_back(status.address, p->settings().peer_id);
    }
  }
  std::vector<FamilyRouting*> families;
  size_t copies = 0;
  for (net::Family f : kFamilies) {
    if (FamilyRouting* family = routing_->routing(f)) {
      families.push_back(family);
      copies += size_t(family->copies());
    }
  }
  auto g = std::make_shared<ListGather>();
  g->parts.resize(copies);  // before any copy writes its part
  g->families_left = families.size();
  g->done = std::move(done);
  if (families.empty()) return g->Finish();
  size_t base = 0;
  for (FamilyRouting* family : families) {
    family->ForEachPipelineAsync(
        [g, base, peers, suppressed_only](FamilyPipeline& pipeline, stage::Plumber&, int copy) {
          std::vector<PeerDampedPrefix>& out = g->parts[base + size_t(copy)];
          for (const auto& [address, peer_id] : peers) {
            DampingStage* s = StageOf(pipeline, peer_id);
            if (s == nullptr) continue;
            for (DampedPrefix& d : s->List(suppressed_only)) {
              out.push_back(PeerDampedPrefix{address, std::move(d)});
            }
          }
        },
        [g] {
          if (--g->families_left == 0) g->Finish();
        });
    base += size_t(family->copies());
  }
}

}  // namespace sluice::bgp
