// BmpExporter's re-synchronisation of a station that (re)connected: Initiation, Peer Up of the
// Loc-RIB and of every Established peer, then what the station monitors — each peer's
// Adj-RIB-In pre-policy and post-policy, then the Loc-RIB — a page per event loop turn while the
// station's buffer is under half full (exporter.h).
#include "bgp/bmp/exporter.h"
#include "bgp/wire/update_encoder.h"

namespace sluice::bgp::bmp {

namespace asio = boost::asio;

// One table to send: a peer's Adj-RIB-In (pre- or post-policy) or the Loc-RIB, of one family.
struct SyncTable {
  RibView view = RibView::kLocRib;
  net::IPAddress peer;  // Adj-RIB-In only
  net::Family family = net::Family::kIPv4;
};

// One re-synchronisation of one station: the tables of the peers Established when it began and
// the Loc-RIB's, walked in order, a page at a time.
struct BmpExporter::Sync {
  std::shared_ptr<Station> station;
  uint64_t generation = 0;
  std::vector<SyncTable> tables;
  size_t table = 0;
  std::optional<net::Prefix> after;
};

namespace {

constexpr net::Family kFamilies[] = {net::Family::kIPv4, net::Family::kIPv6};

std::vector<SyncTable> TablesOf(const Station& station, const std::vector<net::IPAddress>& peers) {
  std::vector<SyncTable> tables;
  for (const net::IPAddress& peer : peers) {
    for (auto [bit, view] : {std::pair{kMonitorPrePolicy, RibView::kAdjRibIn},
                             std::pair{kMonitorPostPolicy, RibView::kAdjRibInPost}}) {
      if (!station.monitors(bit)) continue;
      for (net::Family f : kFamilies) tables.push_back({view, peer, f});
    }
  }
  if (station.monitors(kMonitorLocRib)) {
    for (net::Family f : kFamilies) tables.push_back({RibView::kLocRib, {}, f});
  }
  return tables;
}

}  // namespace

void BmpExporter::OnStationConnected(std::shared_ptr<Station> station, uint64_t generation) {
  std::vector<uint8_t> out;
  AppendInitiation(options_.sys_name, options_.sys_descr, &out);
  auto [local_as, bgp_id] = routes_->LocalIdentity();
  rib_monitor_->SetIdentity(local_as, bgp_id);
  AppendLocRibPeerUp(local_as, bgp_id, &out);
  std::vector<net::IPAddress> peers;
  for (const auto& [address, r] : peers_) {
    AppendPeerUpOf(r, &out);
    peers.push_back(address);
  }
  auto sync = std::make_shared<Sync>();
  sync->station = station;
  sync->generation = generation;
  sync->tables = TablesOf(*station, peers);
  if (!station->AppendSync(generation, out)) return;
  SyncStep(std::move(sync));
}

void BmpExporter::SyncStep(std::shared_ptr<Sync> sync) {
  Station& station = *sync->station;
  // Pace the snapshot by what the station takes: wait while half its buffer is still to be
  // written. Live messages held meanwhile count against the buffer (an overflow drops the
  // connection) but not here: they leave only after the snapshot.
  if (station.unsent_bytes() > station.buffer_bytes() / 2) {
    auto timer = std::make_shared<asio::steady_timer>(loop_, std::chrono::milliseconds(20));
    std::weak_ptr<int> alive = alive_;
    timer->async_wait([this, alive, timer, sync](const boost::system::error_code& ec) {
      if (!ec && !alive.expired()) SyncStep(sync);
    });
    return;
  }
  SyncPage(std::move(sync));
}

void BmpExporter::SyncPage(std::shared_ptr<Sync> sync) {
  // Skips the tables of peers gone since (their Peer Down follows).
  for (; sync->table < sync->tables.size(); ++sync->table, sync->after.reset()) {
    const SyncTable& t = sync->tables[sync->table];
    if (t.view == RibView::kLocRib || peers_.contains(t.peer)) break;
  }
  if (sync->table == sync->tables.size()) {
    sync->station->EndSync(sync->generation);
    return;
  }
  const SyncTable& t = sync->tables[sync->table];
  RouteQuery q;
  q.view = t.view;
  q.family = t.family;
  if (t.view != RibView::kLocRib) q.peer = t.peer;
  q.after = sync->after;
  q.max = options_.snapshot_page;
  std::weak_ptr<int> alive = alive_;
  routes_->ReadRoutesAsync(
      q, [this, alive, sync, max = q.max](absl::StatusOr<std::vector<BgpRoute>> routes) mutable {
        if (!alive.expired()) OnSyncPage(std::move(sync), max, std::move(routes));
      });
}

void BmpExporter::OnSyncPage(std::shared_ptr<Sync> sync, size_t max,
                             absl::StatusOr<std::vector<BgpRoute>> routes) {
  if (!routes.ok() || routes->empty()) {
    ++sync->table;
    sync->after.reset();
    return PostSyncStep(std::move(sync));
  }
  RouteChanges changes;
  for (const BgpRoute& r : *routes) changes.Add(r, false);
  std::vector<uint8_t> out;
  const bool sent = EncodeSyncPage(*sync, changes, &out);
  if (!sent || routes->size() < max) {
    ++sync->table;
    sync->after.reset();
  } else {
    sync->after = routes->back().net;
  }
  if (!out.empty() && !sync->station->AppendSync(sync->generation, out)) return;  // gone
  PostSyncStep(std::move(sync));
}

bool BmpExporter::EncodeSyncPage(const Sync& sync, const RouteChanges& changes,
                                 std::vector<uint8_t>* out) const {
  const SyncTable& t = sync.tables[sync.table];
  if (t.view == RibView::kLocRib) {
    AppendRouteChanges(changes, LocRibParams(),
                       LocRibHeader(rib_monitor_->local_as(), rib_monitor_->bgp_id()), out);
    return true;
  }
  auto it = peers_.find(t.peer);
  if (it == peers_.end()) return false;  // went down while the page was read
  PeerHeader h = HeaderOf(it->second.peer);
  if (t.view == RibView::kAdjRibInPost) h.flags |= kFlagL;
  AppendRouteChanges(changes, MonitoredParams(it->second), h, out);
  return true;
}

void BmpExporter::PostSyncStep(std::shared_ptr<Sync> sync) {
  std::weak_ptr<int> alive = alive_;
  asio::post(loop_, [this, alive, sync] {
    if (!alive.expired()) SyncStep(sync);
  });
}

}  // namespace sluice::bgp::bmp
