#include "bgp/process/bgp_daemon.h"

#include "base/log.h"
#include "base/status_macros.h"
#include "bgp/process/bgp_service.h"
#include "bgp/process/damping_service.h"
#include "bgp/process/mrt_service.h"
#include "ipc/profile_service.h"

namespace sluice::bgp::process {
namespace {

// VRP changes from sluice-rpki → the routing's re-validation.
class RoutingVrpListener : public VrpListener {
 public:
  explicit RoutingVrpListener(BgpRouting* routing) : routing_(routing) {}
  void BeforeChange(const rpki::VrpDelta& delta, std::function<void()> ready) override {
    routing_->VrpsChanging(delta, std::move(ready));
  }
  void AfterChange() override { routing_->VrpsChanged(); }

 private:
  BgpRouting* routing_;
};

}  // namespace

BgpDaemon::BgpDaemon(boost::asio::io_context& io, BgpDaemonOptions options)
    : options_(std::move(options)),
      router_(std::make_unique<ipc::XrlRouter>(io, "bgp", options_.instance, options_.router)) {
  for (const char* point : {"bgp_route_in", "bgp_queued_to_rib", "bgp_sent_to_rib"}) {
    profiler_.Point(point);
  }
  // RIB <- BGP: nexthop interest and winning routes over rib/1.0.
  if (!options_.rib.empty()) {
    rib_ = std::make_unique<RibIpcClient>(io, router_.get(), options_.rib, options_.instance);
  }
  if (!options_.rpki.empty()) vrps_ = std::make_unique<rpki::OriginValidator>();
  BgpProcessOptions o;
  o.validator = vrps_.get();
  o.interest = rib_.get();
  o.rib = rib_.get();
  o.profiler = &profiler_;
  o.pipeline = options_.pipeline;
  o.ipv4 = options_.ipv4;
  o.ipv6 = options_.ipv6;
  o.threads = options_.threads;
  o.parse_threads = options_.parse_threads;
  o.encode_thread = options_.encode_thread;
  bgp_ = std::make_unique<BgpProcess>(io, o);
  damping_ = std::make_unique<DampingControl>(&bgp_->routing());
  // RIB -> BGP: redistributed routes through the redist:PROTOCOL banks.
  if (rib_) {
    redist_ = std::make_unique<BgpRedist>(
        bgp_.get(), [rib = rib_.get()](net::Family f, const std::string& protocol, bool on) {
          rib->RedistSubscribe(f, protocol, on);
        });
  }
  policy_ = std::make_unique<BgpPolicyBackend>(bgp_.get(), redist_.get());
  std::function<void()> end_of_rib;
  if (rib_) end_of_rib = [rib = rib_.get()] { rib->EndOfRib(); };
  restart_ = std::make_unique<RestartCoordinator>(io, &bgp_->peers(), &bgp_->routing(),
                                                  &bgp_->end_of_rib_gate(), std::move(end_of_rib));
  if (!options_.rpki.empty()) {
    vrp_listener_ = std::make_unique<RoutingVrpListener>(&bgp_->routing());
    rpki_ = std::make_unique<RpkiIpcClient>(io, router_.get(), options_.rpki, vrps_.get(),
                                            vrp_listener_.get());
  }
  bmp::ExporterOptions bmp_options;
  bmp_options.sys_name = options_.instance;
  bmp_ = std::make_unique<BmpControl>(io, bgp_.get(), bmp_options);
  mrt_ = std::make_unique<MrtOutputs>(io, bgp_.get());
  if (rib_) {
    rib_resync_ =
        std::make_unique<ipc::Resync>(io, "RIB", [this](bool lost) { SyncWithRib(lost); });
    rib_->set_on_lost_call([this] { rib_resync_->OnLostCall(); });
  }
  // A new restart time: the RIB keeps our routes that long.
  bgp_->set_on_restart_time([this](uint16_t restart_time) {
    if (rib_ && !shut_down_) rib_->RegisterProtocols(restart_time, /*resync=*/false);
  });
}

BgpDaemon::~BgpDaemon() { Shutdown(); }

absl::Status BgpDaemon::Start() {
  // bgp/1.0, rib_client/1.0, profile/1.0 -> BgpProcess.
  RETURN_IF_ERROR(ServeBgp(*router_, *bgp_));
  RETURN_IF_ERROR(ServeDamping(*router_, *damping_));  // bgp/1.0 damping methods
  RETURN_IF_ERROR(ServeBmp(*router_, *bmp_));          // bgp/1.0 BMP station methods
  RETURN_IF_ERROR(ServeMrt(*router_, *mrt_));          // bgp/1.0 MRT methods
  if (rib_) RETURN_IF_ERROR(ServeRibClient(*router_, *bgp_, redist_.get()));
  RETURN_IF_ERROR(ServePolicyBackend(*router_, *policy_));
  if (rpki_) RETURN_IF_ERROR(rpki_->Start());  // rpki_client/1.0, and the rpki class's births
  RETURN_IF_ERROR(ipc::ServeProfile(
      *router_, profiler_,
      [this](std::function<void(std::string)> reply) { bgp_->DescribeAsync(std::move(reply)); },
      ipc::UnknownPointText::kWithKnownPoints));
  RETURN_IF_ERROR(ipc::ServeStageStats(*router_, [this] { return bgp_->routing().QueueDepths(); }));
  // Finder birth of a RIB -> register our protocols, re-ask nexthops, re-send every route; the
  // same after a call the RIB missed while up (ipc/resync.h).
  if (rib_) {
    router_->WatchClass(options_.rib, [this](const ipc::TargetEvent& e) {
      if (shut_down_) return;
      if (e.kind == ipc::TargetEvent::kBirth) {
        SLUICE_LOG(kInfo) << "RIB " << e.instance_name << " is up: registering and sending routes";
        rib_resync_->OnBirth();
      } else {
        SLUICE_LOG(kWarning) << "RIB " << e.instance_name << " died";
        rib_resync_->OnDeath();
      }
    });
  }
  // End-of-RIB waits for the RIB's answer (are we restarting?), at most the restart time.
  restart_->Start(rib_ != nullptr, bgp_->restart_time());
  return router_->Start();
}

void BgpDaemon::SyncWithRib(bool after_lost_call) {
  if (shut_down_) return;
  rib_->NewSession();
  rib_->RegisterProtocols(bgp_->restart_time(), after_lost_call, [this](uint32_t stale_routes) {
    if (!shut_down_) restart_->OnRibRegistered(stale_routes);
  });
  bgp_->OnRibBorn();
  redist_->OnRibBorn();
}

void BgpDaemon::Shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  if (rib_resync_) rib_resync_->Stop();
  router_->SetStatus(common::v1::SHUTDOWN, "shutting down");
  if (rib_) rib_->DeregisterProtocols();  // the RIB withdraws our routes now
  bgp_->Shutdown();
}

void BgpDaemon::ExitForRestart() {
  if (shut_down_) return;
  shut_down_ = true;
  if (rib_resync_) rib_resync_->Stop();
  router_->SetStatus(common::v1::SHUTDOWN, "exiting for a restart");
  if (rib_) rib_->Detach();
  bgp_->CloseForRestart();
}

}  // namespace sluice::bgp::process
