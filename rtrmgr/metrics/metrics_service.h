#pragma once
// MetricsService: sluice-rtrmgr's `metrics { listen ADDRESS port N; }` — an Endpoint serving
// GET /metrics and a Gatherer feeding it, started, bound again or stopped as the running
// configuration's metrics block comes, changes or goes (at start and at every reload).

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <memory>

#include "absl/status/status.h"
#include "ipc/xrl_router.h"
#include "rtrmgr/config/config.h"
#include "rtrmgr/metrics/endpoint.h"
#include "rtrmgr/metrics/gatherer.h"

namespace sluice::rtrmgr::metrics {

class MetricsService {
 public:
  MetricsService(boost::asio::io_context& io, ipc::XrlRouter& router,
                 Gatherer::ProcessList processes,
                 std::chrono::milliseconds interval = std::chrono::seconds(5));
  ~MetricsService();

  // Serves as `config` says: nothing when it is not enabled; a changed address or port closes
  // the old socket and binds the new one. Errors: Unavailable (the address cannot be bound:
  // nothing is served until a later Apply succeeds).
  absl::Status Apply(const MetricsConfig& config);
  uint16_t port() const { return endpoint_.port(); }

 private:
  boost::asio::io_context& io_;
  ipc::XrlRouter& router_;
  Gatherer::ProcessList processes_;
  std::chrono::milliseconds interval_;
  Endpoint endpoint_;
  std::unique_ptr<Gatherer> gatherer_;
  MetricsConfig applied_;  // what is served now (enabled false: nothing)
};

}  // namespace sluice::rtrmgr::metrics
