#include "bgp/bmp/exporter.h"

#include <chrono>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"
#include "bgp/wire/update_encoder.h"

namespace sluice::bgp::bmp {

namespace asio = boost::asio;

namespace {

constexpr uint8_t kBgpUpdate = 2;
constexpr size_t kBgpHeaderSize = 19;

void Now(PeerHeader* h) {
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                std::chrono::system_clock::now().time_since_epoch())
                .count();
  h->seconds = uint32_t(us / 1000000);
  h->microseconds = uint32_t(us % 1000000);
}

DownReason BmpReason(TapDownReason r) {
  switch (r) {
    case TapDownReason::kLocalNotification:
      return DownReason::kLocalNotification;
    case TapDownReason::kLocalNoNotification:
      return DownReason::kLocalNoNotification;
    case TapDownReason::kRemoteNotification:
      return DownReason::kRemoteNotification;
    case TapDownReason::kRemoteNoNotification:
      return DownReason::kRemoteNoData;
  }
  return DownReason::kRemoteNoData;
}

}  // namespace

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

BmpExporter::BmpExporter(asio::io_context& loop, RouteSource* routes, ExporterOptions options)
    : loop_(loop),
      routes_(routes),
      options_(std::move(options)),
      work_(asio::make_work_guard(io_)),
      thread_([this] { io_.run(); }),
      stats_timer_(loop) {
  ScheduleStats();
}

BmpExporter::~BmpExporter() {
  // The Loc-RIB monitor outlives us (its slot keeps it): a shard still inside a call must not
  // reach the stations, whose thread stops here.
  set_->Clear();
  stats_timer_.cancel();
  std::vector<uint8_t> term;
  AppendTermination(TerminationReason::kAdministrativelyClosed, &term);
  for (auto& [key, station] : stations_) station->Finish(term, 1.0);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
  for (auto& [key, station] : stations_) {
    while (!station->finished() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  work_.reset();
  io_.stop();
  thread_.join();
}

absl::Status BmpExporter::AddStation(const StationConfig& config) {
  if (config.port == 0) return absl::InvalidArgumentError("BMP station: port 0");
  if (config.buffer_bytes < (size_t{64} << 10)) {
    return absl::InvalidArgumentError("BMP station: buffer size under 64 KiB");
  }
  auto key = std::make_pair(config.address, config.port);
  if (stations_.contains(key)) {
    return absl::AlreadyExistsError(
        absl::StrFormat("BMP station %s port %d exists", config.address.ToString(), config.port));
  }
  std::weak_ptr<int> alive = alive_;
  auto weak = std::make_shared<std::weak_ptr<Station>>();  // filled once the station exists
  // The station calls back on its thread; the snapshot runs on the event loop.
  auto connected = [this, alive, weak](uint64_t generation) {
    asio::post(loop_, [this, alive, weak, generation] {
      if (alive.expired()) return;
      std::shared_ptr<Station> s = weak->lock();
      if (s != nullptr) OnStationConnected(std::move(s), generation);
    });
  };
  auto station = std::make_shared<Station>(io_, config, connected);
  *weak = station;
  stations_[key] = station;
  set_->Add(station);
  station->Start();
  return absl::OkStatus();
}

absl::Status BmpExporter::RemoveStation(const net::IPAddress& address, uint16_t port) {
  auto it = stations_.find({address, port});
  if (it == stations_.end()) {
    return absl::NotFoundError(
        absl::StrFormat("no BMP station %s port %d", address.ToString(), port));
  }
  std::vector<uint8_t> term;
  AppendTermination(TerminationReason::kPermanentlyClosed, &term);
  set_->Remove(it->second);
  it->second->Finish(std::move(term), 1.0);
  stations_.erase(it);
  return absl::OkStatus();
}

std::vector<std::pair<StationConfig, StationStats>> BmpExporter::Stations() const {
  std::vector<std::pair<StationConfig, StationStats>> out;
  for (const auto& [key, s] : stations_) out.emplace_back(s->config(), s->stats());
  return out;
}

PeerHeader BmpExporter::HeaderOf(const TapPeer& peer) const {
  PeerHeader h;
  h.type = PeerType::kGlobal;
  h.flags = peer.four_octet_as ? 0 : kFlagA;
  h.address = peer.remote_address;
  h.as = peer.remote_as;
  h.bgp_id = peer.remote_bgp_id.value();
  Now(&h);
  return h;
}

void BmpExporter::Broadcast(std::span<const uint8_t> message) { set_->Broadcast(message); }

void BmpExporter::AppendPeerUpOf(const PeerRecord& r, std::vector<uint8_t>* out) const {
  AppendPeerUp(HeaderOf(r.peer), r.peer.local_address, r.peer.local_port, r.peer.remote_port,
               r.sent_open, r.received_open, "", out);
}

void BmpExporter::OnMessageReceived(const TapPeer& peer, std::span<const uint8_t> message) {
  if (stations_.empty() || message.size() < kBgpHeaderSize || message[18] != kBgpUpdate) return;
  if (!peers_.contains(peer.remote_address)) return;  // only while Established
  std::vector<uint8_t> out;
  out.reserve(kCommonHeaderSize + kPerPeerHeaderSize + message.size());
  AppendRouteMonitoring(HeaderOf(peer), message, &out);
  Broadcast(out);
}

void BmpExporter::OnPeerUp(const TapPeer& peer, const EstablishedInfo& info,
                           std::span<const uint8_t> sent_open,
                           std::span<const uint8_t> received_open) {
  PeerRecord& r = peers_[peer.remote_address];
  r.peer = peer;
  r.info = info;
  r.sent_open.assign(sent_open.begin(), sent_open.end());
  r.received_open.assign(received_open.begin(), received_open.end());
  if (stations_.empty()) return;
  std::vector<uint8_t> out;
  AppendPeerUpOf(r, &out);
  Broadcast(out);
}

void BmpExporter::OnPeerDown(const TapPeer& peer, TapDownReason reason,
                             std::span<const uint8_t> notification) {
  peers_.erase(peer.remote_address);
  if (stations_.empty()) return;
  std::vector<uint8_t> out;
  AppendPeerDown(HeaderOf(peer), BmpReason(reason), notification, 0, &out);
  Broadcast(out);
}

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

void BmpExporter::ScheduleStats() {
  if (options_.stats_interval_s <= 0) return;
  stats_timer_.expires_after(std::chrono::milliseconds(int64_t(options_.stats_interval_s * 1000)));
  std::weak_ptr<int> alive = alive_;
  stats_timer_.async_wait([this, alive](const boost::system::error_code& ec) {
    if (ec || alive.expired()) return;
    SendStats();
    ScheduleStats();
  });
}

void BmpExporter::SendStats() {
  if (stations_.empty()) return;
  for (const auto& [address, r] : peers_) {
    Statistic s{kStatAdjRibInRoutes, routes_->AdjRibInRoutes(address)};
    std::vector<uint8_t> out;
    AppendStatisticsReport(HeaderOf(r.peer), std::span<const Statistic>(&s, 1), &out);
    Broadcast(out);
  }
}

}  // namespace sluice::bgp::bmp
