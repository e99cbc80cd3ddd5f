#include "bgp/process/bmp_service.h"

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "ipc/methods/bgp.h"
#include "ipc/types_convert.h"

namespace sluice::bgp::process {

namespace {

using ipc::methods::bgp::kAddBmpStation;
using ipc::methods::bgp::kDeleteBmpStation;
using ipc::methods::bgp::kListBmpStations;

absl::StatusOr<std::pair<net::IPAddress, uint16_t>> Endpoint(const char* method,
                                                             const types::v1::IPAddress& a,
                                                             uint32_t port) {
  absl::StatusOr<net::IPAddress> address = ipc::FromProto(a);
  if (!address.ok()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: address: %s", method, address.status().message()));
  }
  if (port == 0 || port > 65535) {
    return absl::InvalidArgumentError(absl::StrFormat("%s: port %d out of range", method, port));
  }
  return std::make_pair(*address, uint16_t(port));
}

// What the station is sent of Route Monitoring (empty: everything). Errors: InvalidArgument
// naming an unknown value.
absl::StatusOr<uint8_t> RouteMonitoringOf(const v1::AddBmpStationRequest& r) {
  if (r.route_monitoring_size() == 0) return bmp::kMonitorAll;
  uint8_t bits = 0;
  for (int v : r.route_monitoring()) {
    switch (v) {
      case v1::BMP_PRE_POLICY:
        bits |= bmp::kMonitorPrePolicy;
        break;
      case v1::BMP_POST_POLICY:
        bits |= bmp::kMonitorPostPolicy;
        break;
      case v1::BMP_LOC_RIB:
        bits |= bmp::kMonitorLocRib;
        break;
      default:
        return absl::InvalidArgumentError(
            absl::StrFormat("add_bmp_station: route_monitoring: unknown value %d", v));
    }
  }
  return bits;
}

void RouteMonitoringToProto(uint8_t bits, v1::BmpStation* s) {
  if (bits & bmp::kMonitorPrePolicy) s->add_route_monitoring(v1::BMP_PRE_POLICY);
  if (bits & bmp::kMonitorPostPolicy) s->add_route_monitoring(v1::BMP_POST_POLICY);
  if (bits & bmp::kMonitorLocRib) s->add_route_monitoring(v1::BMP_LOC_RIB);
}

}  // namespace

BmpControl::BmpControl(boost::asio::io_context& io, BgpProcess* bgp, bmp::ExporterOptions options)
    : bgp_(bgp),
      exporter_(std::make_unique<bmp::BmpExporter>(io, static_cast<bmp::RouteSource*>(this),
                                                   std::move(options))) {
  bgp_->peers().AddTap(exporter_.get());
  auto [as, id] = LocalIdentity();
  exporter_->rib_monitor()->SetIdentity(as, id);
  bgp_->route_monitor().Set(exporter_->rib_monitor());
}

BmpControl::~BmpControl() {
  bgp_->route_monitor().Clear();  // the monitor itself stays alive as long as the slot
  bgp_->peers().RemoveTap(exporter_.get());
  exporter_.reset();
}

void BmpControl::ReadRoutesAsync(const RouteQuery& query,
                                 std::function<void(absl::StatusOr<std::vector<BgpRoute>>)> done) {
  bgp_->ReadRoutesAsync(query, std::move(done));
}

std::pair<uint32_t, uint32_t> BmpControl::LocalIdentity() {
  return {bgp_->local().as, bgp_->local().bgp_id.value()};
}

uint64_t BmpControl::AdjRibInRoutes(const net::IPAddress& peer) {
  absl::StatusOr<RoutingPeerStatus> s = bgp_->routing().Peer(peer);
  if (!s.ok()) return 0;
  uint64_t n = 0;
  for (const RoutingPeerStatus::Family& f : s->families) n += f.received;
  return n;
}

absl::Status ServeBmp(ipc::XrlRouter& router, BmpControl& bmp) {
  RETURN_IF_ERROR(router.Handle(
      kAddBmpStation,
      [&bmp](const v1::AddBmpStationRequest& r) -> absl::StatusOr<v1::AddBmpStationReply> {
        ASSIGN_OR_RETURN(auto ep, Endpoint("add_bmp_station", r.address(), r.port()));
        bmp::StationConfig c;
        c.address = ep.first;
        c.port = ep.second;
        if (r.buffer_bytes() != 0) c.buffer_bytes = r.buffer_bytes();
        ASSIGN_OR_RETURN(c.route_monitoring, RouteMonitoringOf(r));
        RETURN_IF_ERROR(bmp.exporter().AddStation(c));
        return v1::AddBmpStationReply();
      }));
  RETURN_IF_ERROR(router.Handle(
      kDeleteBmpStation,
      [&bmp](const v1::DeleteBmpStationRequest& r) -> absl::StatusOr<v1::DeleteBmpStationReply> {
        ASSIGN_OR_RETURN(auto ep, Endpoint("delete_bmp_station", r.address(), r.port()));
        RETURN_IF_ERROR(bmp.exporter().RemoveStation(ep.first, ep.second));
        return v1::DeleteBmpStationReply();
      }));
  RETURN_IF_ERROR(router.Handle(
      kListBmpStations,
      [&bmp](const v1::ListBmpStationsRequest&) -> absl::StatusOr<v1::ListBmpStationsReply> {
        v1::ListBmpStationsReply reply;
        for (const auto& [config, stats] : bmp.exporter().Stations()) {
          v1::BmpStation* s = reply.add_stations();
          ipc::ToProto(config.address, s->mutable_address());
          s->set_port(config.port);
          s->set_buffer_bytes(config.buffer_bytes);
          s->set_connected(stats.connected);
          s->set_synced(stats.synced);
          s->set_connects(stats.connects);
          s->set_overflows(stats.overflows);
          s->set_bytes_sent(stats.bytes_sent);
          s->set_queued_bytes(stats.queued_bytes);
          RouteMonitoringToProto(config.route_monitoring, s);
        }
        return reply;
      }));
  return absl::OkStatus();
}

}  // namespace sluice::bgp::process
