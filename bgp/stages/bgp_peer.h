#pragma once
// BgpPeer: the routing side of one peer, the SessionListener of its session
// (bgp/session/session_link.h). It turns session events into pipeline calls:
//
//   OnEstablished   the peer's families come up in each FamilyPipeline (output branch, dump)
//   OnUpdate        withdrawn and announced NLRI into the family's input (Adj-RIB-In), one
//                   push per UPDATE, or one per read between BeginUpdates and EndUpdates;
//                   End-of-RIB noted; RFC 7606 AFI/SAFI disable takes the
//                   family's input down (the peer's routes of it go; what we send it stays);
//                   the received and accepted prefix counts go back to the session (after
//                   each UPDATE, or at the end of the read)
//   OnRouteRefresh  PeerOut re-announces everything the peer has (RFC 2918)
//   OnSessionDown   every family goes down: background deletion, output branch removed
//   OnSessionDownGraceful  RFC 4724 §4.2: the families the peer's capability lists keep their
//                   routes, stale (GracefulHelper: swept at the peer's End-of-RIB, when it comes
//                   back without the F bit, or when its restart time or the stale-routes time
//                   passes); the others go as above
//   OnWritable      PeerOut lets the fanout send again
//
// Made by BgpRouting::AddPeer; lives until RemovePeer.

#include <array>
#include <cstdint>
#include <string>

#include "absl/time/time.h"
#include "bgp/session/session_link.h"
#include "bgp/stages/family_pipeline.h"
#include "bgp/stages/family_routing.h"
#include "bgp/stages/graceful_helper.h"

namespace sluice::bgp {

class BgpPeer : public SessionListener {
 public:
  struct FamilyState {
    bool configured = false;  // the family is configured for this peer
    bool up = false;          // negotiated and running on the current session
    bool disabled = false;    // RFC 7606 AFI/SAFI disable on the current session: input down
    bool end_of_rib_received = false;
    uint64_t updates_received = 0;
    uint64_t prefixes_announced = 0;  // NLRI received (events)
    uint64_t prefixes_withdrawn = 0;
  };

  // `pipelines[i]`: the pipeline of AfiSafi index 0 (IPv4 unicast) and 2 (IPv6 unicast); null
  // when the family is not run by the router.
  // `io`: the event loop (graceful restart timers).
  BgpPeer(boost::asio::io_context& io, PeerSettings settings, AfiSafiSet families,
          SessionSender* sender, std::array<FamilyRouting*, 2> pipelines,
          PeerSourceRegistry* sources);
  ~BgpPeer() override;

  void OnEstablished(const EstablishedInfo& info) override;
  void OnUpdate(UpdateMessage& update) override;
  void BeginUpdates() override { holding_pushes_ = true; }
  void EndUpdates() override;
  void OnRouteRefresh(AfiSafi family) override;
  void OnSessionDown(const std::string& reason) override;
  void OnSessionDownGraceful(const std::string& reason) override;
  void OnWritable() override;

  // Graceful restart, receiving speaker (RFC 4724 §4.2): which families hold stale routes and
  // for how long.
  const GracefulHelper& graceful() const { return helper_; }
  GracefulHelper& graceful() { return helper_; }

  // Tells the session the peer's received and accepted counts (as OnUpdate does), while
  // Established: for a sharded routing side, whose counts settle after OnUpdate returned.
  void ReportCounts();
  // Asks the peer to send its routes of `family` again (RFC 2918), when it can.
  bool RequestRouteRefresh(AfiSafi family);

  const PeerSettings& settings() const { return settings_; }
  void set_settings(const PeerSettings& s) { settings_ = s; }
  SessionSender* sender() const { return sender_; }
  bool established() const { return established_; }
  const EstablishedInfo& info() const { return info_; }
  absl::Time established_since() const { return since_; }
  const std::string& last_down_reason() const { return down_reason_; }
  const FamilyState& family(int index) const { return families_[index]; }
  // Routes of this peer in its Adj-RIB-In and accepted by import, both families (what
  // max-prefix and the Adj-RIB-In ceiling count).
  size_t received() const;
  size_t accepted() const;

 private:
  static int Slot(const AfiSafi& f) { return f.afi == Afi::kIPv6 ? 1 : 0; }
  FamilyRouting* PipelineFor(const AfiSafi& f) {
    return f.safi == Safi::kUnicast ? pipelines_[Slot(f)] : nullptr;
  }
  void FamilyDown(int slot, bool keep_stale = false);
  // Pushes the inputs whose push OnUpdate held back.
  void PushHeld();
  void Down(const std::string& reason);
  // RFC 7606 AFI/SAFI disable of the families in `disabled`.
  void DisableInputs(AfiSafiSet disabled, const std::string& reason);

  PeerSettings settings_;
  SessionSender* sender_;
  std::array<FamilyRouting*, 2> pipelines_;
  std::array<RouteInput*, 2> in_{nullptr, nullptr};  // while the family is up
  bool holding_pushes_ = false;                      // between BeginUpdates and EndUpdates
  std::array<bool, 2> push_held_{false, false};      // an input changed and was not pushed yet
  bool counts_held_ = false;  // counts changed within the read: reported at its end
  PeerSourceRegistry* sources_;
  std::array<FamilyState, 2> families_;
  bool established_ = false;
  EstablishedInfo info_;
  absl::Time since_;
  std::string down_reason_;
  GracefulHelper helper_;
};

}  // namespace sluice::bgp
