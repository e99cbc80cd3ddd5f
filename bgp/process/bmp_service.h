#pragma once
// BMP in sluice-bgp: BmpControl owns the exporter (bgp/bmp/exporter.h), registered as a
// MessageTap of the process's sessions from construction (so it knows every Established peer
// before a station is configured), with the process as its RouteSource. ServeBmp registers
// bgp/1.0/add_bmp_station, delete_bmp_station and list_bmp_stations, thin adapters like
// damping_service.h. Everything on the event loop.

#include <memory>

#include "absl/status/status.h"
#include "bgp/bmp/exporter.h"
#include "bgp/process/bgp_process.h"
#include "ipc/xrl_router.h"

namespace sluice::bgp::process {

class BmpControl : private bmp::RouteSource {
 public:
  BmpControl(boost::asio::io_context& io, BgpProcess* bgp, bmp::ExporterOptions options);
  // Removes the tap, then stops the exporter (Termination to every station).
  ~BmpControl() override;
  BmpControl(const BmpControl&) = delete;
  BmpControl& operator=(const BmpControl&) = delete;

  bmp::BmpExporter& exporter() { return *exporter_; }

 private:
  void ReadRoutesAsync(const RouteQuery& query,
                       std::function<void(absl::StatusOr<std::vector<BgpRoute>>)> done) override;
  uint64_t AdjRibInRoutes(const net::IPAddress& peer) override;
  std::pair<uint32_t, uint32_t> LocalIdentity() override;

  BgpProcess* bgp_;
  std::unique_ptr<bmp::BmpExporter> exporter_;
};

// Registers the handlers (before router.Start()). Errors: those of XrlRouter::Handle.
absl::Status ServeBmp(ipc::XrlRouter& router, BmpControl& bmp);

}  // namespace sluice::bgp::process
