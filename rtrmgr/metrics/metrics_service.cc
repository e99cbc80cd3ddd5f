#include "rtrmgr/metrics/metrics_service.h"

#include "base/log.h"

namespace sluice::rtrmgr::metrics {

MetricsService::MetricsService(boost::asio::io_context& io, ipc::XrlRouter& router,
                               Gatherer::ProcessList processes, std::chrono::milliseconds interval)
    : io_(io), router_(router), processes_(std::move(processes)), interval_(interval) {}

MetricsService::~MetricsService() {
  gatherer_.reset();
  endpoint_.Stop();
}

absl::Status MetricsService::Apply(const MetricsConfig& config) {
  if (config == applied_ && (endpoint_.serving() || !config.enabled)) return absl::OkStatus();
  if (!config.enabled) {
    gatherer_.reset();
    endpoint_.Stop();
    applied_ = config;
    SLUICE_LOG(kInfo) << "metrics: no longer served";
    return absl::OkStatus();
  }
  if (absl::Status s = endpoint_.Listen(config.address, config.port); !s.ok()) {
    gatherer_.reset();
    applied_ = MetricsConfig();
    return s;
  }
  applied_ = config;
  SLUICE_LOG(kInfo) << "metrics: serving http://" << config.ToString() << "/metrics";
  if (!gatherer_) {
    gatherer_ = std::make_unique<Gatherer>(
        io_, router_, processes_, [this](Snapshot s) { endpoint_.Publish(std::move(s)); },
        interval_);
    gatherer_->Start();
  }
  return absl::OkStatus();
}

}  // namespace sluice::rtrmgr::metrics
