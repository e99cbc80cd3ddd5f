#include "bgp/bmp/exporter.h"

#include <pthread.h>

#include <chrono>

#include "absl/strings/str_format.h"

namespace sluice::bgp::bmp {

namespace asio = boost::asio;

namespace {

constexpr uint8_t kBgpUpdate = 2;
constexpr size_t kBgpHeaderSize = 19;

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

PeerHeader UnstampedHeaderOf(const TapPeer& peer) {
  PeerHeader h;
  h.type = PeerType::kGlobal;
  h.flags = peer.four_octet_as ? 0 : kFlagA;
  h.address = peer.remote_address;
  h.as = peer.remote_as;
  h.bgp_id = peer.remote_bgp_id.value();
  return h;
}

}  // namespace

BmpExporter::BmpExporter(asio::io_context& loop, RouteSource* routes, ExporterOptions options)
    : loop_(loop),
      routes_(routes),
      options_(std::move(options)),
      work_(asio::make_work_guard(io_)),
      thread_([this] {
        pthread_setname_np(pthread_self(), "bgp-bmp");  // top -H, perf, the benchmarks
        io_.run();
      }),
      stats_timer_(loop) {
  ScheduleStats();
}

BmpExporter::~BmpExporter() {
  FlushPrePolicy();
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
  FlushPrePolicy();
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
  PeerHeader h = UnstampedHeaderOf(peer);
  StampNow(&h);
  return h;
}

PeerHeader BmpExporter::PrePolicyHeaderOf(const TapPeer& peer) const {
  PeerHeader h = UnstampedHeaderOf(peer);
  h.seconds = pre_policy_stamp_.seconds;
  h.microseconds = pre_policy_stamp_.microseconds;
  return h;
}

SessionParams BmpExporter::MonitoredParams(const PeerRecord& r) {
  SessionParams p = r.info.params;
  p.add_path_send = p.add_path_receive;
  return p;
}

void BmpExporter::Broadcast(std::span<const uint8_t> message) {
  FlushPrePolicy();  // what came before goes before
  set_->Broadcast(message);
}

void BmpExporter::AppendPeerUpOf(const PeerRecord& r, std::vector<uint8_t>* out) const {
  AppendPeerUp(HeaderOf(r.peer), r.peer.local_address, r.peer.local_port, r.peer.remote_port,
               r.sent_open, r.received_open, "", out);
}

void BmpExporter::OnMessageReceived(const TapPeer& peer, std::span<const uint8_t> message) {
  if (!set_->Wants(kMonitorPrePolicy) || message.size() < kBgpHeaderSize ||
      message[18] != kBgpUpdate) {
    return;
  }
  if (!peers_.contains(peer.remote_address)) return;  // only while Established
  if (pre_policy_.empty()) {
    StampNow(&pre_policy_stamp_);  // the messages of one read were received together
    if (!pre_policy_flush_posted_) {
      pre_policy_flush_posted_ = true;
      std::weak_ptr<int> alive = alive_;
      asio::post(loop_, [this, alive] {
        if (alive.expired()) return;
        pre_policy_flush_posted_ = false;
        FlushPrePolicy();
      });
    }
  }
  AppendRouteMonitoring(PrePolicyHeaderOf(peer), message, &pre_policy_);
  if (pre_policy_.size() >= Station::kWriteNowBytes) FlushPrePolicy();
}

void BmpExporter::FlushPrePolicy() {
  if (pre_policy_.empty()) return;
  set_->Broadcast(kMonitorPrePolicy, pre_policy_);
  pre_policy_.clear();
}

void BmpExporter::OnPeerUp(const TapPeer& peer, const EstablishedInfo& info,
                           std::span<const uint8_t> sent_open,
                           std::span<const uint8_t> received_open) {
  PeerRecord& r = peers_[peer.remote_address];
  r.peer = peer;
  r.info = info;
  r.sent_open.assign(sent_open.begin(), sent_open.end());
  r.received_open.assign(received_open.begin(), received_open.end());
  rib_monitor_->PeerUp(peer.remote_address, HeaderOf(peer), MonitoredParams(r));
  if (stations_.empty()) return;
  std::vector<uint8_t> out;
  AppendPeerUpOf(r, &out);
  Broadcast(out);
}

void BmpExporter::OnPeerDown(const TapPeer& peer, TapDownReason reason,
                             std::span<const uint8_t> notification) {
  peers_.erase(peer.remote_address);
  rib_monitor_->PeerDown(peer.remote_address);
  if (stations_.empty()) return;
  std::vector<uint8_t> out;
  AppendPeerDown(HeaderOf(peer), BmpReason(reason), notification, 0, &out);
  Broadcast(out);
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
