#include "bgp/stages/bgp_routing.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "base/cpus.h"
#include "boost/asio/executor_work_guard.hpp"

namespace sluice::bgp {

BgpRouting::BgpRouting(boost::asio::io_context& io, RouterConfig config, RoutingServices services,
                       PipelineOptions options)
    : config_(config),
      services_(services),
      nexthops_(std::make_unique<NexthopCache>(io, services.interest)),
      plumber_(io) {
  RouterSettings router;
  router.local_as = config_.local_as;
  router.router_id = config_.router_id;
  router.cluster_id = config_.cluster_id.value_or(config_.router_id.value());
  router.decision = config_.decision;
  PipelineServices ps;
  ps.plumber = &plumber_;
  ps.store = services_.store != nullptr ? services_.store : &AttributeStore::Default();
  services_.store = ps.store;
  ps.nexthops = nexthops_.get();
  ps.sources = &sources_;
  ps.rib = services_.rib;
  ps.profiler = services_.profiler;
  ps.validator = services_.validator;
  ps.route_monitor = services_.route_monitor;
  if (config_.encode_thread) {
    encoder_ = std::make_unique<EncodeThread>();
    options.peer_out.encoder = encoder_.get();
  }
  const int threads = config_.threads > 0 ? config_.threads : RouterConfig::DefaultThreads();
  if (threads > 1 || config_.shard_single_thread) {
    sharded_ = std::make_unique<ShardedRouting>(threads, router, ps, options,
                                                std::array<bool, 2>{config_.ipv4, config_.ipv6});
    families_ = {sharded_->family(0), sharded_->family(1)};
    // The shards' counts lag the UPDATEs handed to them: the session's limits look again once
    // the shards are through.
    sharded_->SetCountsChanged([this](uint32_t peer_id) {
      auto it = peers_by_id_.find(peer_id);
      if (it != peers_by_id_.end()) it->second->ReportCounts();
    });
    sharded_->SetBackpressure([this](bool full) { PauseInputs(full); });
    return;
  }
  if (config_.ipv4) {
    pipelines_[0] = std::make_unique<FamilyPipeline>(net::Family::kIPv4, router, ps, options);
  }
  if (config_.ipv6) {
    pipelines_[1] = std::make_unique<FamilyPipeline>(net::Family::kIPv6, router, ps, options);
  }
  families_ = {pipelines_[0].get(), pipelines_[1].get()};
}

void BgpRouting::VrpsChanging(const rpki::VrpDelta& delta, std::function<void()> ready) {
  std::vector<FamilyRouting*> families;
  for (FamilyRouting* f : families_) {
    if (f != nullptr) families.push_back(f);
  }
  if (services_.validator == nullptr || families.empty()) return ready();
  auto prefixes = std::make_shared<std::vector<net::Prefix>>();
  prefixes->reserve(delta.size());
  for (const rpki::Vrp& v : delta.added) prefixes->push_back(v.prefix);
  for (const rpki::Vrp& v : delta.removed) prefixes->push_back(v.prefix);
  auto left = std::make_shared<size_t>(families.size());
  for (FamilyRouting* f : families) {
    f->ForEachPipelineAsync(
        [prefixes](FamilyPipeline& p, stage::Plumber&, int) { p.PrepareRevalidation(*prefixes); },
        [left, ready] {
          if (--*left == 0) ready();
        });
  }
}

void BgpRouting::VrpsChanged() {
  if (services_.validator == nullptr) return;
  for (FamilyRouting* f : families_) {
    if (f == nullptr) continue;
    f->ForEachPipelineAsync([](FamilyPipeline& p, stage::Plumber&, int) { p.Revalidate(); }, [] {});
  }
}

int RouterConfig::DefaultThreads() { return base::UsableCpus(); }

int RouterConfig::DefaultParseThreads(int threads, int cores) {
  if (threads <= 1) return 0;
  return std::clamp(cores - threads - 1, 0, threads);
}

bool RouterConfig::DefaultEncodeThread(int threads, int cores) {
  return threads > 1 && cores >= threads + 2;
}

void BgpRouting::Settle() {
  do {
    if (sharded_ != nullptr) {
      sharded_->Settle();
    } else {
      io().restart();
      while (io().poll() > 0) {
      }
    }
  } while (SettleEncoder());
}

bool BgpRouting::SettleEncoder() {
  if (encoder_ == nullptr) return false;
  bool ran = false;
  auto guard = boost::asio::make_work_guard(io());
  io().restart();
  while (encoder_->pending() > 0) {  // its batches come back to the loop meanwhile
    if (io().run_one_for(std::chrono::milliseconds(1)) > 0) ran = true;
  }
  guard.reset();
  io().restart();
  while (io().poll() > 0) ran = true;
  return ran;
}

BgpRouting::~BgpRouting() {
  peers_by_id_.clear();
  peers_.clear();
  sharded_.reset();  // the shards' threads stop before the stages on the loop go
}

absl::Status BgpRouting::SetIdentity(uint32_t local_as, net::IPv4Address router_id) {
  if (local_as == 0) return absl::InvalidArgumentError("AS 0 is not a valid local AS");
  config_.local_as = local_as;
  config_.router_id = router_id;
  ApplyRouter();
  return absl::OkStatus();
}

void BgpRouting::SetClusterId(std::optional<uint32_t> cluster_id) {
  config_.cluster_id = cluster_id;
  ApplyRouter();
}

void BgpRouting::ApplyRouter() {
  RouterSettings router;
  router.local_as = config_.local_as;
  router.router_id = config_.router_id;
  router.cluster_id = config_.cluster_id.value_or(config_.router_id.value());
  router.decision = config_.decision;
  for (FamilyRouting* pipe : families_) {
    if (pipe != nullptr) pipe->SetRouter(router);
  }
  for (auto& [address, p] : peers_) {
    PeerSettings s = p->settings();
    s.ibgp = s.peer_as == config_.local_as;
    p->set_settings(s);
    for (FamilyRouting* pipe : families_) {
      if (pipe != nullptr) pipe->UpdatePeer(s);
    }
  }
}

PeerSettings BgpRouting::MakeSettings(const RoutingPeerConfig& c, uint32_t peer_id) const {
  PeerSettings s;
  s.peer_id = peer_id;
  s.name = c.name.empty() ? c.address.ToString() : c.name;
  s.address = c.address;
  s.peer_as = c.peer_as;
  s.ibgp = c.peer_as == config_.local_as;
  s.rr_client = c.rr_client;
  s.next_hop_self = c.next_hop_self;
  s.ebgp_requires_policy = c.ebgp_requires_policy;
  s.shared_subnet = c.shared_subnet;
  s.nexthop_v4 = c.nexthop_v4;
  s.nexthop_v6 = c.nexthop_v6;
  s.import_policy = c.import_policy;
  s.export_policy = c.export_policy;
  return s;
}

absl::StatusOr<SessionListener*> BgpRouting::AddPeer(const RoutingPeerConfig& config,
                                                     SessionSender* sender) {
  if (peers_.contains(config.address)) {
    return absl::AlreadyExistsError(
        absl::StrCat("peer ", config.address.ToString(), " is already configured"));
  }
  if (config.peer_as == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("peer ", config.address.ToString(), ": AS 0 is not a valid peer AS"));
  }
  if (sender == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("peer ", config.address.ToString(), ": no session"));
  }
  const uint32_t id = next_peer_id_++;
  PeerSettings settings = MakeSettings(config, id);
  std::array<FamilyRouting*, 2> pipes = families_;
  for (int i = 0; i < 2; ++i) {
    const AfiSafi f = i == 0 ? kIPv4Unicast : kIPv6Unicast;
    if (pipes[i] != nullptr && config.families.Has(f)) pipes[i]->AddPeer(settings);
  }
  auto peer = std::make_unique<BgpPeer>(io(), settings, config.families, sender, pipes, &sources_);
  peer->graceful().set_stale_routes_time(config_.stale_routes_time_s);
  BgpPeer* raw = peer.get();
  peers_.emplace(config.address, std::move(peer));
  peers_by_id_[id] = raw;
  if (input_paused_) sender->PauseInput(true);
  return raw;
}

void BgpRouting::PauseInputs(bool paused) {
  input_paused_ = paused;
  for (auto& [address, peer] : peers_) peer->sender()->PauseInput(paused);
}

BgpPeer* BgpRouting::peer(const net::IPAddress& address) {
  auto it = peers_.find(address);
  return it == peers_.end() ? nullptr : it->second.get();
}

absl::Status BgpRouting::UpdatePeer(const RoutingPeerConfig& config) {
  BgpPeer* p = peer(config.address);
  if (p == nullptr) {
    return absl::NotFoundError(absl::StrCat("no peer ", config.address.ToString()));
  }
  if (config.peer_as != p->settings().peer_as) {
    return absl::InvalidArgumentError(absl::StrCat(
        "peer ", config.address.ToString(), ": changing the peer AS needs a remove and an add"));
  }
  PeerSettings settings = MakeSettings(config, p->settings().peer_id);
  p->set_settings(settings);
  for (FamilyRouting* pipe : families_) {
    if (pipe != nullptr) pipe->UpdatePeer(settings);
  }
  return absl::OkStatus();
}

absl::Status BgpRouting::RemovePeer(const net::IPAddress& address) {
  auto it = peers_.find(address);
  if (it == peers_.end()) return absl::NotFoundError(absl::StrCat("no peer ", address.ToString()));
  it->second->OnSessionDown("peer removed");
  if (input_paused_) it->second->sender()->PauseInput(false);
  const uint32_t id = it->second->settings().peer_id;
  for (FamilyRouting* pipe : families_) {
    if (pipe != nullptr) pipe->RemovePeer(id);
  }
  peers_by_id_.erase(id);
  peers_.erase(it);
  return absl::OkStatus();
}

absl::Status BgpRouting::RequestRouteRefresh(const net::IPAddress& address, AfiSafi family) {
  BgpPeer* p = peer(address);
  if (p == nullptr) return absl::NotFoundError(absl::StrCat("no peer ", address.ToString()));
  if (!p->RequestRouteRefresh(family)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "peer ", address.ToString(), ": session down or no route refresh for ", family.ToString()));
  }
  return absl::OkStatus();
}

namespace {
RoutingPeerStatus MakeStatus(BgpPeer& p, std::array<FamilyRouting*, 2> pipes) {
  RoutingPeerStatus s;
  const PeerSettings& set = p.settings();
  s.name = set.name;
  s.address = set.address;
  s.peer_as = set.peer_as;
  s.ibgp = set.ibgp;
  s.established = p.established();
  s.established_since = p.established_since();
  s.last_down_reason = p.last_down_reason();
  s.remote_bgp_id = p.info().remote_bgp_id;
  for (int i = 0; i < 2; ++i) {
    const BgpPeer::FamilyState& st = p.family(i);
    if (!st.configured || pipes[i] == nullptr) continue;
    RoutingPeerStatus::Family f;
    f.family = i == 0 ? kIPv4Unicast : kIPv6Unicast;
    f.up = st.up;
    f.disabled = st.disabled;
    f.updates_received = st.updates_received;
    f.end_of_rib_received = st.end_of_rib_received;
    const PeerCounts c = pipes[i]->Counts(set.peer_id);
    f.received = c.received;
    f.accepted = c.accepted;
    f.advertised = c.advertised;
    f.updates_sent = c.updates_sent;
    f.end_of_rib_sent = c.end_of_rib_sent;
    f.stale = c.stale;
    s.families.push_back(f);
  }
  return s;
}

}  // namespace

std::vector<RoutingPeerStatus> BgpRouting::Peers() const {
  std::vector<RoutingPeerStatus> out;
  std::array<FamilyRouting*, 2> pipes = families_;
  for (const auto& [address, p] : peers_) out.push_back(MakeStatus(*p, pipes));
  return out;
}

absl::StatusOr<RoutingPeerStatus> BgpRouting::Peer(const net::IPAddress& address) const {
  auto it = peers_.find(address);
  if (it == peers_.end()) return absl::NotFoundError(absl::StrCat("no peer ", address.ToString()));
  return MakeStatus(*it->second, families_);
}

absl::Status BgpRouting::Originate(const net::Prefix& prefix, PathAttributes attributes) {
  FamilyRouting* pipe = routing(prefix.family());
  if (pipe == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(std::string(net::FamilyName(prefix.family())), " is not enabled"));
  }
  if (!attributes.NextHopFor(prefix.family())) {
    return absl::InvalidArgumentError(
        absl::StrCat("originate ", prefix.ToString(), ": a nexthop of the same family is needed"));
  }
  if (!attributes.origin) attributes.origin = Origin::kIgp;
  if (!attributes.as_path) attributes.as_path = AsPath();
  AttrRef attrs = services_.store->Intern(std::move(attributes));
  pipe->local_input()->Announce(prefix, attrs);
  pipe->local_input()->Push();
  return absl::OkStatus();
}

absl::Status BgpRouting::WithdrawOriginated(const net::Prefix& prefix) {
  FamilyRouting* pipe = routing(prefix.family());
  if (pipe == nullptr || !pipe->local_input()->Withdraw(prefix)) {
    return absl::NotFoundError(absl::StrCat(prefix.ToString(), " is not originated here"));
  }
  pipe->local_input()->Push();
  return absl::OkStatus();
}

void BgpRouting::OnRibBorn() {
  nexthops_->OnRibBorn();
  for (FamilyRouting* pipe : families_) {
    if (pipe != nullptr) pipe->RibBorn();
  }
}

void BgpRouting::RibSyncedAsync(std::function<void(bool synced)> done) {
  RibSyncedFrom(0, std::move(done));
}

// Family `family` and those after it, one after the other.
void BgpRouting::RibSyncedFrom(size_t family, std::function<void(bool synced)> done) {
  while (family < families_.size() && families_[family] == nullptr) ++family;
  if (family == families_.size()) return done(true);
  families_[family]->RibSyncedAsync([this, family, done = std::move(done)](bool synced) mutable {
    if (!synced) return done(false);
    RibSyncedFrom(family + 1, std::move(done));
  });
}

void BgpRouting::SetStaleRoutesTime(double seconds) {
  config_.stale_routes_time_s = seconds;
  for (auto& [address, p] : peers_) p->graceful().set_stale_routes_time(seconds);
}

void BgpRouting::CandidatesAsync(const net::Prefix& prefix,
                                 std::function<void(std::vector<BgpRoute>)> done) {
  FamilyRouting* pipe = routing(prefix.family());
  if (pipe == nullptr) return done({});
  pipe->CandidatesAsync(prefix, std::move(done));
}

std::string BgpRouting::Describe() const {
  std::string out = plumber_.Describe();
  for (const FamilyRouting* pipe : families_) {
    if (pipe != nullptr) out += pipe->DescribeShards();
  }
  return out;
}

void BgpRouting::DescribeAsync(std::function<void(std::string)> done) const {
  DescribeShardsFrom(0, plumber_.Describe(), std::move(done));
}

void BgpRouting::DescribeShardsFrom(size_t i, std::string text,
                                    std::function<void(std::string)> done) const {
  while (i < families_.size() && families_[i] == nullptr) ++i;
  if (i == families_.size()) return done(std::move(text));
  families_[i]->DescribeShardsAsync(
      [this, i, text = std::move(text), done = std::move(done)](std::string shards) {
        DescribeShardsFrom(i + 1, text + shards, done);
      });
}

std::vector<stage::Plumber::QueueDepth> BgpRouting::QueueDepths() const {
  std::vector<stage::Plumber::QueueDepth> out = plumber_.QueueDepths();
  if (sharded_ != nullptr) {
    for (stage::Plumber::QueueDepth& q : sharded_->QueueDepths()) out.push_back(std::move(q));
  }
  return out;
}

absl::StatusOr<std::vector<BgpRoute>> BgpRouting::ReadRoutes(const RouteQuery& q) {
  absl::StatusOr<std::pair<FamilyRouting*, uint32_t>> reader = Reader(q);
  if (!reader.ok()) return reader.status();
  return reader->first->ReadRoutes(q, reader->second);
}

void BgpRouting::ReadRoutesAsync(const RouteQuery& q, FamilyRouting::RoutesDone done) {
  absl::StatusOr<std::pair<FamilyRouting*, uint32_t>> reader = Reader(q);
  if (!reader.ok()) return done(reader.status());
  reader->first->ReadRoutesAsync(q, reader->second, std::move(done));
}

absl::StatusOr<std::pair<FamilyRouting*, uint32_t>> BgpRouting::Reader(const RouteQuery& q) {
  FamilyRouting* pipe = routing(q.family);
  if (pipe == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(std::string(net::FamilyName(q.family)), " is not enabled"));
  }
  uint32_t peer_id = 0;
  if (q.view != RibView::kLocRib) {
    if (!q.peer) return absl::InvalidArgumentError("the Adj-RIB-In and -Out need a peer");
    BgpPeer* p = peer(*q.peer);
    if (p == nullptr) return absl::NotFoundError(absl::StrCat("no peer ", q.peer->ToString()));
    peer_id = p->settings().peer_id;
  }
  return std::make_pair(pipe, peer_id);
}

}  // namespace sluice::bgp
