#include "rtrmgr/metrics/endpoint.h"

#include <exception>

#include "absl/strings/str_cat.h"
#include "prometheus/collectable.h"
#include "prometheus/exposer.h"

namespace sluice::rtrmgr::metrics {

// The last snapshot, converted at each scrape (the age is the scrape's).
class Endpoint::Collectable : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override {
    std::lock_guard lock(mutex_);
    if (!snapshot_) return {};
    return ToMetricFamilies(*snapshot_, std::chrono::system_clock::now());
  }
  void Set(Snapshot s) {
    auto next = std::make_shared<const Snapshot>(std::move(s));
    std::lock_guard lock(mutex_);
    snapshot_ = std::move(next);
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const Snapshot> snapshot_;
};

Endpoint::Endpoint() : collectable_(std::make_shared<Collectable>()) {}
Endpoint::~Endpoint() {
  Stop();
  for (auto& [port, thread] : closing_) thread.join();
}

absl::Status Endpoint::Listen(const net::IPAddress& address, uint16_t port) {
  Stop();
  // The port is free once the server that had it is gone.
  for (auto it = closing_.begin(); it != closing_.end();) {
    if (port != 0 && it->first != port) {
      ++it;
      continue;
    }
    it->second.join();
    it = closing_.erase(it);
  }
  const std::string host =
      address.is_v6() ? absl::StrCat("[", address.ToString(), "]") : address.ToString();
  const std::string bind = absl::StrCat(host, ":", port);
  try {
    auto exposer = std::make_unique<prometheus::Exposer>(bind, 1);
    exposer->RegisterCollectable(collectable_);
    std::vector<int> ports = exposer->GetListeningPorts();
    port_ = ports.empty() ? port : static_cast<uint16_t>(ports.front());
    exposer_ = std::move(exposer);
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat("metrics: cannot listen on ", bind, ": ", e.what()));
  }
  return absl::OkStatus();
}

void Endpoint::Stop() {
  if (exposer_ == nullptr) return;
  closing_.emplace_back(
      port_, std::thread([exposer = std::move(exposer_)]() mutable { exposer.reset(); }));
  port_ = 0;
}

void Endpoint::Publish(Snapshot snapshot) { collectable_->Set(std::move(snapshot)); }

}  // namespace sluice::rtrmgr::metrics
