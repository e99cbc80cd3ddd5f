#pragma once
// BgpDaemon: everything sluice-bgp runs, wired (main.cc adds only flags and signals; tests build
// the same thing in-process):
//
//   XrlRouter (class "bgp") ──serves──► bgp/1.0 (bgp_service.h)        ─┐
//                           ──serves──► rib_client/1.0 (bgp_service.h) ─┼─► BgpProcess
//                           ──serves──► profile/1.0 (ipc/)             ─┘  (sessions + pipeline)
//                           ──serves──► policy_backend/1.0 (policy_service.h) ─► the peers'
//                                       filter slots, BgpRedist (bgp_redist.h)
//   rib_client/1.0/redist_routes ──► BgpRedist ──► BgpProcess::Originate / WithdrawOriginated
//   BgpProcess ──NexthopInterestClient / RibRouteClient──► RibIpcClient ──► rib/1.0 calls
//   Finder birth of the RIB class ──► RibIpcClient::RegisterProtocols + BgpProcess::OnRibBorn
//   (or a call lost while it is up,     + BgpRedist::OnRibBorn (subscribe again)
//    after a backoff: ipc/resync.h)
//   bgp/1.0 damping methods (damping_service.h) ──► DampingControl ──plumbs──► DampingStages
//   Finder birth of sluice-rpki ──► RpkiIpcClient: subscribe; rpki_client/1.0/vrp_changes ──►
//                                     the OriginValidator the pipelines' OriginValidation
//                                     stages read, with BgpRouting::VrpsChanging before a
//                                     change (applied when it is ready) and VrpsChanged
//                                     (re-validation) after it
//   every session (MessageTap) ──► BmpControl ──► BMP stations (bmp_service.h, bgp/bmp/);
//                                     bgp/1.0 add/delete/list_bmp_station(s)
//   bgp/1.0 MRT methods (mrt_service.h) ──► MrtOutputs: update log (a MessageTap on the
//                                     sessions), periodic and on-demand TABLE_DUMP_V2 files
//   RIB register_protocol answer (stale routes) ──► RestartCoordinator ──► R bit, End-of-RIB
//                                     gate, rib/1.0/end_of_rib (restart_coordinator.h)
//
// Stops: Shutdown() is deliberate (SIGTERM, SIGINT, common/1.0/shutdown): Hard Reset to peers
// that negotiated RFC 8538, deregister_protocol at the RIB (it withdraws our routes at once).
// ExitForRestart() (SIGUSR2: the router manager restarts us) closes the connections without a
// NOTIFICATION and leaves the RIB alone: peers and the RIB keep our routes, stale, as after a
// crash, for the new process to refresh.
//
// Profiling points: bgp_route_in (a prefix enters BGP), bgp_queued_to_rib, bgp_sent_to_rib.
// describe_plumbing answers BgpRouting::Describe().

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "bgp/process/bgp_process.h"
#include "bgp/process/bgp_redist.h"
#include "bgp/process/bmp_service.h"
#include "bgp/process/mrt_outputs.h"
#include "bgp/process/policy_service.h"
#include "bgp/process/restart_coordinator.h"
#include "bgp/process/rib_ipc_client.h"
#include "bgp/process/rpki_ipc_client.h"
#include "bgp/stages/damping_control.h"
#include "ipc/resync.h"
#include "ipc/xrl_router.h"
#include "stage/profile.h"

namespace sluice::bgp::process {

struct BgpDaemonOptions {
  std::string instance = "bgp";  // our instance name (the RIB calls it back)
  ipc::RouterOptions router;     // the Finder's address, endpoints
  std::string rib = "rib";       // the RIB's class or instance; empty: run without a RIB
  std::string rpki;              // sluice-rpki's class to subscribe to; empty: no RPKI
  bool ipv4 = true;
  bool ipv6 = true;
  PipelineOptions pipeline;
  int threads = 1;             // BgpProcessOptions::threads
  int parse_threads = 0;       // BgpProcessOptions::parse_threads
  bool encode_thread = false;  // BgpProcessOptions::encode_thread
};

class BgpDaemon {
 public:
  BgpDaemon(boost::asio::io_context& io, BgpDaemonOptions options);
  ~BgpDaemon();
  BgpDaemon(const BgpDaemon&) = delete;
  BgpDaemon& operator=(const BgpDaemon&) = delete;

  // Registers the handlers and the RIB watch, then starts serving and registering.
  // Errors: those of XrlRouter::Handle and Start.
  absl::Status Start();
  // Status SHUTDOWN; every session ends with Cease / Administrative Shutdown (a Hard Reset
  // where RFC 8538 was negotiated); BGP's protocols are deregistered at the RIB. Idempotent.
  void Shutdown();
  // Status SHUTDOWN; sessions closed without a NOTIFICATION, nothing more sent to the RIB (see
  // above). Shutdown() does nothing after it.
  void ExitForRestart();
  RestartCoordinator& restart() { return *restart_; }

  BgpProcess& bgp() { return *bgp_; }
  ipc::XrlRouter& router() { return *router_; }
  stage::Profiler& profiler() { return profiler_; }
  RibIpcClient* rib() { return rib_.get(); }  // null without a RIB
  DampingControl& damping() { return *damping_; }
  BgpPolicyBackend& policy() { return *policy_; }
  BgpRedist* redist() { return redist_.get(); }  // null without a RIB
  RpkiIpcClient* rpki() { return rpki_.get(); }  // null without RPKI
  BmpControl& bmp() { return *bmp_; }
  MrtOutputs& mrt() { return *mrt_; }

 private:
  // Registers our protocols at the RIB, asks for the nexthops again and re-sends every route.
  // Registers and sends every route: at a RIB's birth, or after a lost call (ipc/resync.h).
  void SyncWithRib(bool after_lost_call);

  BgpDaemonOptions options_;
  // Destroyed in reverse: the core first (it may still send to the RIB), the router last.
  std::unique_ptr<ipc::XrlRouter> router_;
  stage::Profiler profiler_;
  std::unique_ptr<rpki::OriginValidator> vrps_;  // with RPKI; outlives the stages reading it
  std::unique_ptr<RibIpcClient> rib_;
  std::unique_ptr<BgpProcess> bgp_;
  std::unique_ptr<DampingControl> damping_;  // plumbs damping stages into bgp_'s pipelines
  std::unique_ptr<BgpRedist> redist_;        // uses bgp_ and rib_
  std::unique_ptr<BgpPolicyBackend> policy_;
  std::unique_ptr<RestartCoordinator> restart_;  // uses bgp_ and rib_
  std::unique_ptr<ipc::Resync> rib_resync_;      // with a RIB: when to re-synchronise it
  std::unique_ptr<VrpListener> vrp_listener_;    // VRP changes → bgp_'s re-validation
  std::unique_ptr<RpkiIpcClient> rpki_;
  std::unique_ptr<BmpControl> bmp_;  // taps bgp_'s sessions: destroyed before it
  std::unique_ptr<MrtOutputs> mrt_;  // the update log taps bgp_'s sessions
  bool shut_down_ = false;
};

}  // namespace sluice::bgp::process
