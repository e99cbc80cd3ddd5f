#include "rib/rib_network.h"

#include "absl/strings/str_cat.h"

namespace sluice::rib {

RibNetwork::RibNetwork(net::Family family, stage::Plumber* plumber, RibNetworkOptions options)
    : family_(family), plumber_(plumber), options_(std::move(options)) {
  if (options_.profiler == nullptr) options_.profiler = &stage::Profiler::Default();
  boost::asio::io_context& io = plumber_->io();
  igp_merge_ = plumber_->Make<MergeStage>(Name("merge-igp"));
  egp_merge_ = plumber_->Make<MergeStage>(Name("merge-egp"));
  ext_int_ = plumber_->Make<ExtIntStage>(Name("ext-int"), &sources_, io);
  register_ = plumber_->Make<RegisterStage>(Name("register"), &sources_, io);
  fanout_ = plumber_->Make<FibFanoutStage>(Name("fib-fanout"));
  // Merge(igp) -> ExtInt (internal); Merge(egp) -> ExtInt (external).
  ext_int_->PlumbInternal(CacheAfter(igp_merge_));
  ext_int_->PlumbExternal(CacheAfter(egp_merge_));
  // ExtInt -> Register -> FibFanout (redistribution stages go in before it).
  stage::Plumber::Plumb<RibRoute>(CacheAfter(ext_int_), register_);
  stage::Plumber::Plumb<RibRoute>(CacheAfter(register_), fanout_);
}

FeaOutStage* RibNetwork::AddFeaOut(const std::string& fea, FibClient* client,
                                   std::function<void()> on_caught_up) {
  if (FeaOutStage* existing = fea_out(fea)) return existing;
  FeaOutOptions options = options_.fea;
  options.on_caught_up = std::move(on_caught_up);
  auto* resolve = plumber_->Make<FeaResolveStage>(Name("fea-resolve/" + fea));
  auto* out = plumber_->Make<FeaOutStage>(Name("fea-out/" + fea), family_, client, &sources_,
                                          plumber_->io(), std::move(options), options_.profiler);
  // No cache stage between them: a new view resets the stream with a full push.
  stage::Plumber::Plumb<RibRoute>(fanout_, resolve);
  stage::Plumber::Plumb<RibRoute>(resolve, out);
  fea_outs_.emplace(fea, FeaStages{resolve, out});
  return out;
}

void RibNetwork::RemoveFeaOut(const std::string& fea) {
  auto it = fea_outs_.find(fea);
  if (it == fea_outs_.end()) return;
  stage::Plumber::Unplumb<RibRoute>(it->second.resolve, it->second.out);
  stage::Plumber::Unplumb<RibRoute>(fanout_, it->second.resolve);
  plumber_->Retire(it->second.out);
  plumber_->Retire(it->second.resolve);
  fea_outs_.erase(it);
}

FeaOutStage* RibNetwork::fea_out(std::string_view fea) const {
  auto it = fea_outs_.find(fea);
  return it == fea_outs_.end() ? nullptr : it->second.out;
}

FeaResolveStage* RibNetwork::fea_resolve(std::string_view fea) const {
  auto it = fea_outs_.find(fea);
  return it == fea_outs_.end() ? nullptr : it->second.resolve;
}

std::string RibNetwork::Name(std::string_view what) const {
  return absl::StrCat(std::string(net::FamilyName(family_)), "/", std::string(what));
}

stage::CacheStage<RibRoute>* RibNetwork::MakeCache(const std::string& after) {
  auto* cache = plumber_->Make<stage::CacheStage<RibRoute>>(absl::StrCat("cache<", after, ">"),
                                                            options_.on_violation);
  caches_.push_back(cache);
  return cache;
}

RibStage* RibNetwork::CacheAfter(RibStage* stage) {
  if (!options_.insert_cache_stages) return stage;
  auto* cache = MakeCache(stage->name());
  stage::Plumber::Plumb<RibRoute>(stage, cache);
  return cache;
}

OriginStage* RibNetwork::origin(Symbol protocol) const {
  auto it = origins_.find(protocol.id());
  return it == origins_.end() ? nullptr : it->second;
}

std::vector<OriginStage*> RibNetwork::origins() const {
  std::vector<OriginStage*> out;
  for (const auto& [id, o] : origins_) out.push_back(o);
  return out;
}

OriginStage* RibNetwork::EnsureOrigin(Symbol protocol, ProtocolClass protocol_class,
                                      uint16_t admin_distance) {
  if (OriginStage* o = origin(protocol)) return o;
  auto* o = plumber_->Make<OriginStage>(Name("origin/" + protocol.name()), protocol, protocol_class,
                                        admin_distance, &nexthops_, plumber_->io());
  MergeStage* merge = protocol_class == ProtocolClass::kEgp ? egp_merge_ : igp_merge_;
  stage::Plumber::Plumb<RibRoute>(CacheAfter(o), merge);
  origins_.emplace(protocol.id(), o);
  sources_.Add(o);
  return o;
}

DeletionStage* RibNetwork::HandOver(Symbol protocol) {
  OriginStage* o = origin(protocol);
  if (o == nullptr || o->route_count() == 0) return nullptr;
  auto table = o->HandOver();
  auto* deletion = plumber_->Make<DeletionStage>(
      Name(absl::StrCat("deletion/", protocol.name(), "#", ++deaths_)), std::move(table), protocol,
      o->protocol_class(), o->admin_distance(), &nexthops_, plumber_->io(),
      [this](DeletionStage* done) {
        sources_.Remove(done);
        std::erase(deletions_, done);
        plumber_->SpliceOut<RibRoute>(done);
      });
  // Origin -> [Cache] -> Deletion -> (what followed the origin).
  stage::Plumber::InsertAfter<RibRoute>(o, deletion);
  if (options_.insert_cache_stages) {
    stage::Plumber::InsertAfter<RibRoute>(o, MakeCache(o->name()));
  }
  sources_.Add(deletion);
  deletions_.push_back(deletion);
  return deletion;
}

void RibNetwork::ProtocolDied(Symbol protocol) {
  SweepStale(protocol);
  if (DeletionStage* deletion = HandOver(protocol)) deletion->Start();
}

void RibNetwork::ProtocolStale(Symbol protocol) { HandOver(protocol); }

size_t RibNetwork::SweepStale(Symbol protocol) {
  size_t stale = 0;
  // Start() may finish a stage at once and erase it from deletions_: iterate over a copy.
  for (DeletionStage* d : std::vector<DeletionStage*>(deletions_)) {
    if (d->held() && d->source_protocol() == protocol) {
      stale += d->remaining();
      d->Start();
    }
  }
  return stale;
}

size_t RibNetwork::StaleCount(Symbol protocol) const {
  size_t stale = 0;
  for (const DeletionStage* d : deletions_) {
    if (d->held() && d->source_protocol() == protocol) stale += d->remaining();
  }
  return stale;
}

std::optional<RibRoute> RibNetwork::LookupPrefix(const net::Prefix& prefix) const {
  if (prefix.family() != family_) return std::nullopt;
  return fanout_->lookup_route(prefix);
}

std::optional<RibRoute> RibNetwork::LookupDestination(const net::IPAddress& address) const {
  if (address.family() != family_) return std::nullopt;
  for (const net::Prefix& candidate : CoveringPrefixes(sources_.all(), address)) {
    if (std::optional<RibRoute> r = fanout_->lookup_route(candidate)) return r;
  }
  return std::nullopt;
}

std::vector<RibRoute> RibNetwork::ListRoutes(const std::optional<net::Prefix>& after,
                                             size_t max) const {
  std::vector<RibRoute> out;
  std::optional<net::Prefix> cursor = after;
  while (out.size() < max) {
    cursor = NextPrefix(sources_.all(), cursor);
    if (!cursor) break;
    if (std::optional<RibRoute> r = fanout_->lookup_route(*cursor)) out.push_back(std::move(*r));
  }
  return out;
}

absl::Status RibNetwork::RedistSubscribe(RedistSubscriber* subscriber, Symbol protocol,
                                         RedistPolicy policy) {
  RedistStage*& stage = redists_[protocol.id()];
  if (stage == nullptr) {
    const std::string what = protocol.empty() ? "all" : protocol.name();
    stage = plumber_->Make<RedistStage>(Name("redist/" + what), family_, protocol, &sources_,
                                        plumber_->io());
    stage::Plumber::InsertBetween<RibRoute>(fanout_->upstream(), fanout_, stage);
    if (options_.insert_cache_stages) {
      // Routes already flow here: the new cache first learns what its upstream has sent.
      auto* cache = MakeCache(stage->name());
      for (std::optional<net::Prefix> p = NextPrefix(sources_.all(), std::nullopt); p;
           p = NextPrefix(sources_.all(), p)) {
        if (std::optional<RibRoute> r = stage->lookup_route(*p)) cache->add_route(*r, nullptr);
      }
      stage::Plumber::InsertBetween<RibRoute>(stage, fanout_, cache);
      redist_caches_[protocol.id()] = cache;
    }
  }
  return stage->Subscribe(subscriber, std::move(policy));
}

absl::Status RibNetwork::RedistUnsubscribe(RedistSubscriber* subscriber, Symbol protocol) {
  auto it = redists_.find(protocol.id());
  if (it == redists_.end()) {
    return absl::NotFoundError(absl::StrCat("no redistribution of ",
                                            std::string(net::FamilyName(family_)), " ",
                                            protocol.empty() ? "all" : protocol.name()));
  }
  absl::Status status = it->second->Unsubscribe(subscriber);
  if (it->second->subscriber_count() == 0) {
    plumber_->SpliceOut<RibRoute>(it->second);
    redists_.erase(it);
    if (auto c = redist_caches_.find(protocol.id()); c != redist_caches_.end()) {
      std::erase(caches_, c->second);
      plumber_->SpliceOut<RibRoute>(c->second);
      redist_caches_.erase(c);
    }
  }
  return status;
}

void RibNetwork::RedistUnsubscribeAll(RedistSubscriber* subscriber) {
  std::vector<uint32_t> ids;
  for (const auto& [id, stage] : redists_) {
    if (stage->subscribed(subscriber)) ids.push_back(id);
  }
  for (uint32_t id : ids) {
    auto it = redists_.find(id);
    if (it != redists_.end()) RedistUnsubscribe(subscriber, it->second->protocol()).IgnoreError();
  }
}

bool RibNetwork::Idle() const {
  for (const DeletionStage* d : deletions_) {
    if (!d->held()) return false;
  }
  if (ext_int_->rewalk_running()) return false;
  for (const auto& [fea, stages] : fea_outs_) {
    if (!stages.out->idle()) return false;
  }
  for (const auto& [id, o] : origins_) {
    if (o->admin_distance_change_running()) return false;
  }
  for (const auto& [id, r] : redists_) {
    if (r->dumping_count() > 0) return false;
  }
  return true;
}

size_t RibNetwork::VerifyCaches() const {
  size_t found = 0;
  for (const auto* cache : caches_) found += cache->Verify();
  return found;
}

}  // namespace sluice::rib
