#include "bgp/stages/bgp_peer.h"

#include "absl/time/clock.h"
#include "base/log.h"

namespace sluice::bgp {
namespace {

bool Lists(const GracefulRestart& gr, AfiSafi family) {
  for (const GracefulRestart::Family& f : gr.families) {
    if (f.family == family) return true;
  }
  return false;
}

}  // namespace

BgpPeer::BgpPeer(boost::asio::io_context& io, PeerSettings settings, AfiSafiSet families,
                 SessionSender* sender, std::array<FamilyRouting*, 2> pipelines,
                 PeerSourceRegistry* sources)
    : settings_(std::move(settings)),
      sender_(sender),
      pipelines_(pipelines),
      sources_(sources),
      helper_(io, settings_.name, [this](int slot) {
        if (pipelines_[slot] != nullptr) pipelines_[slot]->SweepStale(settings_.peer_id);
      }) {
  families_[0].configured = families.Has(kIPv4Unicast) && pipelines_[0] != nullptr;
  families_[1].configured = families.Has(kIPv6Unicast) && pipelines_[1] != nullptr;
}

BgpPeer::~BgpPeer() = default;

void BgpPeer::OnEstablished(const EstablishedInfo& info) {
  if (established_) OnSessionDown("established again");
  established_ = true;
  info_ = info;
  since_ = absl::Now();
  down_reason_.clear();
  PeerSource source;
  source.peer_id = settings_.peer_id;
  source.name = settings_.name;
  source.address = info.remote_address;
  source.bgp_id = info.remote_bgp_id;
  source.remote_as = info.remote_as;
  source.ibgp = settings_.ibgp;
  source.rr_client = settings_.rr_client;
  const PeerSource* src = sources_->Intern(source);
  // RFC 4724 §4.2: what the peer did not preserve goes now; the rest waits for its End-of-RIB.
  helper_.Established(info.graceful_restart, info.params.families);
  for (int slot = 0; slot < 2; ++slot) {
    const AfiSafi f = slot == 0 ? kIPv4Unicast : kIPv6Unicast;
    FamilyState& st = families_[slot];
    st.end_of_rib_received = false;
    st.disabled = false;
    if (!st.configured || !info.params.families.Has(f)) continue;
    st.up = true;
    pipelines_[slot]->PeerUp(settings_.peer_id, src, sender_, info);
    in_[slot] = pipelines_[slot]->input(settings_.peer_id);
  }
}

void BgpPeer::OnUpdate(UpdateMessage& update) {
  if (!established_) return;
  if (update.errors.action() == UpdateAction::kAfiSafiDisable) {
    DisableInputs(update.errors.disabled_families, update.errors.reason);
  }
  if (update.end_of_rib) {
    if (update.end_of_rib->safi == Safi::kUnicast) {
      const int slot = Slot(*update.end_of_rib);
      families_[slot].end_of_rib_received = true;
      helper_.EndOfRib(slot);  // RFC 4724 §4.2: what is still stale goes
    }
    return;
  }
  bool touched[2] = {false, false};
  for (const Nlri& n : update.withdrawn) {
    const int slot = n.prefix.is_v6() ? 1 : 0;
    if (n.safi != Safi::kUnicast || in_[slot] == nullptr) continue;
    ++families_[slot].prefixes_withdrawn;
    in_[slot]->Withdraw(n.prefix);
    touched[slot] = true;
  }
  if (update.attributes) {
    for (const Nlri& n : update.announced) {
      const int slot = n.prefix.is_v6() ? 1 : 0;
      if (n.safi != Safi::kUnicast || in_[slot] == nullptr) continue;
      ++families_[slot].prefixes_announced;
      in_[slot]->Announce(n.prefix, update.attributes, n.path_id);
      touched[slot] = true;
    }
  }
  for (int slot = 0; slot < 2; ++slot) {
    if (!touched[slot]) continue;
    ++families_[slot].updates_received;
    if (holding_pushes_) {
      push_held_[slot] = true;
    } else {
      in_[slot]->Push();
    }
  }
  if (!touched[0] && !touched[1]) return;
  if (holding_pushes_) {
    counts_held_ = true;
  } else {
    ReportCounts();
  }
}

void BgpPeer::EndUpdates() {
  holding_pushes_ = false;
  PushHeld();
  if (counts_held_) {
    counts_held_ = false;
    ReportCounts();
  }
}

void BgpPeer::PushHeld() {
  for (int slot = 0; slot < 2; ++slot) {
    if (!push_held_[slot]) continue;
    push_held_[slot] = false;
    if (in_[slot] != nullptr) in_[slot]->Push();
  }
}

void BgpPeer::ReportCounts() {
  if (established_) sender_->ReportPrefixCount(received(), accepted());
}

void BgpPeer::DisableInputs(AfiSafiSet disabled, const std::string& reason) {
  bool changed = false;
  for (int slot = 0; slot < 2; ++slot) {
    FamilyState& st = families_[slot];
    const AfiSafi f = slot == 0 ? kIPv4Unicast : kIPv6Unicast;
    if (!disabled.Has(f) || !st.up || st.disabled) continue;
    SLUICE_LOG(kInfo) << settings_.name << ": withdrawing the peer's " << f.ToString()
                      << " routes (RFC 7606 AFI/SAFI disable): " << reason;
    st.disabled = true;
    PushHeld();
    in_[slot] = nullptr;
    pipelines_[slot]->InputDown(settings_.peer_id);
    changed = true;
  }
  if (changed) ReportCounts();
}

size_t BgpPeer::received() const {
  size_t n = 0;
  for (int slot = 0; slot < 2; ++slot) {
    if (pipelines_[slot] != nullptr) n += pipelines_[slot]->received(settings_.peer_id);
  }
  return n;
}

size_t BgpPeer::accepted() const {
  size_t n = 0;
  for (int slot = 0; slot < 2; ++slot) {
    if (pipelines_[slot] != nullptr) n += pipelines_[slot]->accepted(settings_.peer_id);
  }
  return n;
}

void BgpPeer::OnRouteRefresh(AfiSafi family) {
  FamilyRouting* p = PipelineFor(family);
  if (p != nullptr && families_[Slot(family)].up) p->RouteRefresh(settings_.peer_id);
}

void BgpPeer::FamilyDown(int slot, bool keep_stale) {
  if (!families_[slot].up) return;
  PushHeld();
  families_[slot].up = false;
  in_[slot] = nullptr;
  if (keep_stale) {
    pipelines_[slot]->PeerDownGraceful(settings_.peer_id);
  } else {
    pipelines_[slot]->PeerDown(settings_.peer_id);
  }
}

void BgpPeer::OnSessionDown(const std::string& reason) {
  helper_.Clear();  // the pipelines sweep whatever was stale
  Down(reason);
}

void BgpPeer::Down(const std::string& reason) {
  if (!established_) return;
  established_ = false;
  down_reason_ = reason;
  for (int slot = 0; slot < 2; ++slot) FamilyDown(slot);
}

void BgpPeer::OnSessionDownGraceful(const std::string& reason) {
  if (!established_) return;
  if (!info_.graceful_restart) return OnSessionDown(reason);
  const GracefulRestart& gr = *info_.graceful_restart;
  established_ = false;
  down_reason_ = reason;
  std::array<bool, 2> stale{false, false};
  for (int slot = 0; slot < 2; ++slot) {
    const AfiSafi f = slot == 0 ? kIPv4Unicast : kIPv6Unicast;
    // RFC 4724 §4.2: the families of the peer's capability keep their routes; the others go.
    // A family disabled by RFC 7606 has no routes left to keep.
    stale[slot] = families_[slot].up && !families_[slot].disabled && Lists(gr, f);
    FamilyDown(slot, stale[slot]);
  }
  helper_.SessionDown(stale, gr.restart_time);
}

void BgpPeer::OnWritable() {
  for (int slot = 0; slot < 2; ++slot) {
    if (families_[slot].up) pipelines_[slot]->Writable(settings_.peer_id);
  }
}

bool BgpPeer::RequestRouteRefresh(AfiSafi family) {
  if (!established_ || !info_.route_refresh || !info_.params.families.Has(family)) return false;
  sender_->SendRouteRefresh(family);
  return true;
}

}  // namespace sluice::bgp
