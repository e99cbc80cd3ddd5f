// BmpExporter's re-synchronisation of a station that (re)connected: Initiation, Peer Up of the
// Loc-RIB and of every Established peer, each peer's Adj-RIB-In, then the Loc-RIB, a page per
// event loop turn while the station's buffer is under half full (exporter.h).
#include "absl/container/flat_hash_map.h"
#include "bgp/bmp/exporter.h"
#include "bgp/wire/update_encoder.h"

namespace sluice::bgp::bmp {

namespace asio = boost::asio;

// One re-synchronisation of one station: the peers Established when it began, walked peer by
// peer, family by family, a page at a time.
struct BmpExporter::Sync {
  std::shared_ptr<Station> station;
  uint64_t generation = 0;
  std::vector<net::IPAddress> peers;
  size_t peer_index = 0;
  int family = 0;          // 0 IPv4, 1 IPv6
  int loc_rib_family = 0;  // then the Loc-RIB's: 0 IPv4, 1 IPv6, 2 done
  std::optional<net::Prefix> after;
};

void BmpExporter::OnStationConnected(std::shared_ptr<Station> station, uint64_t generation) {
  std::vector<uint8_t> out;
  AppendInitiation(options_.sys_name, options_.sys_descr, &out);
  auto [local_as, bgp_id] = routes_->LocalIdentity();
  loc_rib_->SetIdentity(local_as, bgp_id);
  AppendLocRibPeerUp(local_as, bgp_id, &out);
  auto sync = std::make_shared<Sync>();
  sync->station = station;
  sync->generation = generation;
  for (const auto& [address, r] : peers_) {
    AppendPeerUpOf(r, &out);
    sync->peers.push_back(address);
  }
  if (!station->AppendSync(generation, out)) return;
  SyncStep(std::move(sync));
}

void BmpExporter::SyncStep(std::shared_ptr<Sync> sync) {
  Station& station = *sync->station;
  // Pace the snapshot by what the station takes: wait while its buffer is half full.
  if (station.queued_bytes() > station.buffer_bytes() / 2) {
    auto timer = std::make_shared<asio::steady_timer>(loop_, std::chrono::milliseconds(20));
    std::weak_ptr<int> alive = alive_;
    timer->async_wait([this, alive, timer, sync](const boost::system::error_code& ec) {
      if (!ec && !alive.expired()) SyncStep(sync);
    });
    return;
  }
  std::vector<uint8_t> out;
  bool more = SyncPage(*sync, &out);
  if (!out.empty() && !station.AppendSync(sync->generation, out)) return;  // connection gone
  if (!more) {
    station.EndSync(sync->generation);
    return;
  }
  std::weak_ptr<int> alive = alive_;
  asio::post(loop_, [this, alive, sync] {
    if (!alive.expired()) SyncStep(sync);
  });
}

bool BmpExporter::SyncPage(Sync& sync, std::vector<uint8_t>* out) {
  while (sync.peer_index < sync.peers.size()) {
    auto it = peers_.find(sync.peers[sync.peer_index]);
    if (it == peers_.end() || sync.family > 1) {  // gone since (its Peer Down follows), or done
      ++sync.peer_index;
      sync.family = 0;
      sync.after.reset();
      continue;
    }
    const PeerRecord& r = it->second;
    RouteQuery q;
    q.view = RibView::kAdjRibIn;
    q.family = sync.family == 0 ? net::Family::kIPv4 : net::Family::kIPv6;
    q.peer = r.peer.remote_address;
    q.after = sync.after;
    q.max = options_.snapshot_page;
    absl::StatusOr<std::vector<BgpRoute>> routes = routes_->ReadRoutes(q);
    if (!routes.ok() || routes->empty()) {
      ++sync.family;
      sync.after.reset();
      continue;
    }
    sync.after = routes->back().net;
    if (routes->size() < q.max) {
      ++sync.family;
      sync.after.reset();
    }
    SessionParams params = r.info.params;
    params.add_path_send = params.add_path_receive;
    AppendRoutes(*routes, params, HeaderOf(r.peer), out);
    return true;
  }
  return LocRibPage(sync, out);
}

bool BmpExporter::LocRibPage(Sync& sync, std::vector<uint8_t>* out) {
  while (sync.loc_rib_family <= 1) {
    RouteQuery q;
    q.view = RibView::kLocRib;
    q.family = sync.loc_rib_family == 0 ? net::Family::kIPv4 : net::Family::kIPv6;
    q.after = sync.after;
    q.max = options_.snapshot_page;
    absl::StatusOr<std::vector<BgpRoute>> routes = routes_->ReadRoutes(q);
    if (!routes.ok() || routes->empty()) {
      ++sync.loc_rib_family;
      sync.after.reset();
      continue;
    }
    sync.after = routes->back().net;
    if (routes->size() < q.max) {
      ++sync.loc_rib_family;
      sync.after.reset();
    }
    AppendRoutes(*routes, LocRibParams(), LocRibHeader(loc_rib_->local_as(), loc_rib_->bgp_id()),
                 out);
    return true;
  }
  return false;
}

void BmpExporter::AppendRoutes(const std::vector<BgpRoute>& routes, const SessionParams& params,
                               const PeerHeader& header, std::vector<uint8_t>* out) {
  // Group the page's prefixes by attribute set, one UPDATE (or more) per set.
  UpdateEncoder encoder(params, /*readvertise=*/false);
  absl::flat_hash_map<const PathAttributes*, std::vector<Nlri>> groups;
  for (const BgpRoute& route : routes) {
    if (!route.attrs) continue;
    groups[route.attrs.get()].push_back(Nlri{route.net, route.path_id});
  }
  std::vector<uint8_t> updates;
  for (const auto& [attrs, nlri] : groups) {
    updates.clear();
    if (!encoder.Announce(*attrs, nlri, &updates).ok()) continue;
    for (std::span<const uint8_t> m : SplitBgpMessages(updates)) {
      AppendRouteMonitoring(header, m, out);
    }
  }
}

}  // namespace sluice::bgp::bmp
