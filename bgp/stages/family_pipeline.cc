#include "bgp/stages/family_pipeline.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "absl/strings/str_cat.h"
#include "base/log.h"

namespace sluice::bgp {

namespace {
using Cache = stage::CacheStage<BgpRoute>;
}  // namespace

FamilyPipeline::FamilyPipeline(net::Family family, const RouterSettings& router,
                               PipelineServices services, PipelineOptions options)
    : family_(family),
      router_(router),
      services_(services),
      options_(options),
      plumber_(services.plumber),
      violations_(std::make_shared<std::vector<std::string>>()),
      self_(std::make_shared<FamilyPipeline*>(this)) {
  if (router_.cluster_id == 0) router_.cluster_id = router_.router_id.value();
  // Locally originated routes: PeerIn(local) → Decision.
  PeerIn::Options local_options;
  local_options.mark_resolved = true;
  local_in_ = plumber_->Make<PeerIn>(Name("PeerIn", "local"), plumber_, &local_tables_,
                                     local_options, services_.profiler);
  local_in_->SessionUp(services_.sources->Local());
  loc_rib_.Add(&local_tables_);
  decision_ = plumber_->Make<Decision>(Name("Decision", ""), router_.decision);
  loc_rib_prefixes_.set_decision(decision_);
  BgpStage* tail = local_in_;
  std::vector<stage::StageBase*> ignored;
  Append(&tail, decision_, &ignored, "local");
  // Decision → Fanout.
  fanout_ = plumber_->Make<Fanout>(Name("Fanout", ""), plumber_->io());
  tail = decision_;
  if (services_.route_monitor != nullptr) {
    Append(&tail,
           plumber_->Make<RouteMonitorStage>(Name("RouteMonitor", ""), plumber_->io(),
                                             services_.route_monitor, MonitoredRib::kLocRib),
           &ignored, "decision");
  }
  Append(&tail, fanout_, &ignored, "decision");
  if (HasRib()) BuildRibBranch();
}

bool FamilyPipeline::HasRib() const {
  return services_.tails != nullptr ? services_.tails->rib() : services_.rib != nullptr;
}

FamilyPipeline::~FamilyPipeline() { *self_ = nullptr; }

std::string FamilyPipeline::Name(const std::string& kind, const std::string& peer) const {
  std::string s = absl::StrCat(family_ == net::Family::kIPv4 ? "v4 " : "v6 ", kind);
  if (!peer.empty()) absl::StrAppend(&s, "(", peer, ")");
  return s;
}

template <class S>
S* FamilyPipeline::Append(BgpStage** tail, S* next, std::vector<stage::StageBase*>* stages,
                          const std::string& where) {
  if (options_.consistency_checks) {
    std::weak_ptr<std::vector<std::string>> v = violations_;
    auto* cache = plumber_->Make<Cache>(Name("Cache", where + " > " + std::string((*tail)->name())),
                                        [v](const std::string& what) {
                                          if (auto list = v.lock()) list->push_back(what);
                                        });
    caches_.push_back(cache);
    stages->push_back(cache);
    stage::Plumber::Plumb<BgpRoute>(*tail, cache);
    *tail = cache;
  }
  stage::Plumber::Plumb<BgpRoute>(*tail, next);
  *tail = next;
  return next;
}

ImportConfig FamilyPipeline::MakeImportConfig(const PeerSettings& s) const {
  ImportConfig c;
  c.local_as = router_.local_as;
  c.router_id = router_.router_id;
  c.cluster_id = router_.cluster_id;
  c.ebgp_requires_policy = s.ebgp_requires_policy;
  c.context.local_as = router_.local_as;
  c.context.peer = s.address;
  return c;
}

ExportConfig FamilyPipeline::MakeExportConfig(const PeerSettings& s,
                                              const EstablishedInfo& info) const {
  ExportConfig c;
  c.peer_id = s.peer_id;
  c.ibgp = s.ibgp;
  c.rr_client = s.rr_client;
  c.local_as = router_.local_as;
  c.router_id = router_.router_id;
  c.cluster_id = router_.cluster_id;
  c.peer_address = s.address;
  c.self_v4 = s.nexthop_v4;
  c.self_v6 = s.nexthop_v6;
  if (!c.self_v4 && info.local_address.is_v4() && !info.local_address.is_unspecified()) {
    c.self_v4 = info.local_address;
  }
  if (!c.self_v6 && info.local_address.is_v6()) c.self_v6 = info.local_address;
  c.next_hop_self = s.next_hop_self;
  c.shared_subnet = s.shared_subnet;
  c.ebgp_requires_policy = s.ebgp_requires_policy;
  c.default_local_pref = router_.decision.default_local_pref;
  return c;
}

void FamilyPipeline::SetRouter(const RouterSettings& router) {
  const DecisionOptions decision = router_.decision;
  router_ = router;
  router_.decision = decision;
  if (router_.cluster_id == 0) router_.cluster_id = router_.router_id.value();
  for (auto& [id, b] : branches_) {
    if (b.validation != nullptr) b.validation->set_local_as(router_.local_as);
  }
}

void FamilyPipeline::PrepareRevalidation(const std::vector<net::Prefix>& vrp_prefixes) {
  std::vector<net::Prefix> mine;
  for (const net::Prefix& p : vrp_prefixes) {
    if (p.family() == family_) mine.push_back(p);
  }
  if (mine.empty()) return;
  for (auto& [id, b] : branches_) {
    if (b.validation != nullptr) b.validation->Prepare(mine);
  }
}

void FamilyPipeline::Revalidate() {
  for (auto& [id, b] : branches_) {
    if (b.validation != nullptr) b.validation->Revalidate();
  }
}

OriginValidation* FamilyPipeline::origin_validation(uint32_t peer_id) {
  auto it = branches_.find(peer_id);
  return it == branches_.end() ? nullptr : it->second.validation;
}

void FamilyPipeline::AddPeer(const PeerSettings& settings) {
  if (branches_.contains(settings.peer_id)) return;
  Branch& b = branches_[settings.peer_id];
  b.settings = settings;
  b.tables = std::make_unique<RouteTableSet>();
  const uint32_t id = settings.peer_id;
  std::weak_ptr<FamilyPipeline*> weak = self_;
  PeerIn::Options in_options;
  in_options.deletion_slice = options_.deletion_slice;
  in_options.on_deletion_done = [weak, id] {
    auto self = weak.lock();
    if (!self || *self == nullptr) return;
    FamilyPipeline* p = *self;
    auto it = p->branches_.find(id);
    if (it != p->branches_.end() && it->second.removing &&
        it->second.in->deletions_running() == 0) {
      p->FinishRemoval(id);
    }
  };
  b.in = plumber_->Make<PeerIn>(Name("PeerIn", settings.name), plumber_, b.tables.get(), in_options,
                                services_.profiler);
  b.stages.push_back(b.in);
  BgpStage* tail = b.in;
  if (services_.validator != nullptr) {
    b.validation = Append(
        &tail,
        plumber_->Make<OriginValidation>(Name("OriginValidation", settings.name), plumber_->io(),
                                         b.tables.get(), services_.validator, router_.local_as),
        &b.stages, settings.name);
    b.stages.push_back(b.validation);
  }
  b.import = Append(&tail,
                    plumber_->Make<ImportFilter>(
                        Name("ImportFilter", settings.name), plumber_->io(), b.tables.get(),
                        services_.store, MakeImportConfig(settings), settings.import_policy),
                    &b.stages, settings.name);
  b.stages.push_back(b.import);
  if (services_.route_monitor != nullptr) {
    b.stages.push_back(Append(
        &tail,
        plumber_->Make<RouteMonitorStage>(Name("RouteMonitor", settings.name), plumber_->io(),
                                          services_.route_monitor, MonitoredRib::kAdjRibInPost),
        &b.stages, settings.name));
  }
  b.resolver =
      Append(&tail,
             plumber_->Make<NexthopResolver>(Name("NexthopResolver", settings.name), plumber_->io(),
                                             services_.nexthops, b.tables.get()),
             &b.stages, settings.name);
  b.stages.push_back(b.resolver);
  Append(&tail, decision_, &b.stages, settings.name);
  loc_rib_.Add(b.tables.get());
}

void FamilyPipeline::UpdatePeer(const PeerSettings& settings) {
  auto it = branches_.find(settings.peer_id);
  if (it == branches_.end()) return;
  Branch& b = it->second;
  b.settings = settings;
  ImportConfig ic = MakeImportConfig(settings);
  ic.filter = settings.import_policy != nullptr ? settings.import_policy->Get() : nullptr;
  b.import->SetConfig(std::move(ic));
  if (b.output) {
    ExportConfig ec = MakeExportConfig(settings, b.info);
    ec.filter = settings.export_policy != nullptr ? settings.export_policy->Get() : nullptr;
    b.output->exporter->SetConfig(std::move(ec));
  }
}

void FamilyPipeline::PeerUp(uint32_t peer_id, const PeerSource* source, SessionSender* sender,
                            const EstablishedInfo& info) {
  auto it = branches_.find(peer_id);
  if (it == branches_.end()) return;
  Branch& b = it->second;
  if (b.output) PeerDown(peer_id);
  b.info = info;
  b.in->SessionUp(source);
  const std::string& name = b.settings.name;
  Output o;
  o.reader = fanout_->AddReader(plumber_, Name("FanoutReader", name));
  std::vector<stage::StageBase*> ignored;
  BgpStage* tail = o.reader;
  // The dump's on_done needs PeerOut, made below: look it up when it runs.
  std::weak_ptr<FamilyPipeline*> weak = self_;
  auto* dump = plumber_->Make<DumpStage>(
      Name("Dump", name), plumber_, &loc_rib_prefixes_, o.reader,
      [weak, peer_id] {
        auto self = weak.lock();
        if (!self || *self == nullptr) return;
        if (BranchTail* tail = (*self)->peer_tail(peer_id)) tail->EndOfRib();
      },
      options_.dump_slice);
  stage::Plumber::Plumb<BgpRoute>(tail, dump);
  tail = dump;
  o.exporter = Append(
      &tail,
      plumber_->Make<ExportFilter>(Name("ExportFilter", name), plumber_->io(), &loc_rib_prefixes_,
                                   o.reader, services_.store, MakeExportConfig(b.settings, info),
                                   b.settings.export_policy, export_memos_),
      &ignored, name);
  if (services_.tails != nullptr) {
    o.tail = Append(&tail,
                    services_.tails->MakePeerTail(plumber_, Name("PeerOut", name), peer_id,
                                                  o.reader, &loc_rib_prefixes_),
                    &ignored, name);
  } else {
    o.out =
        Append(&tail,
               plumber_->Make<PeerOut>(Name("PeerOut", name), plumber_->io(), sender, info.params,
                                       afi_safi(), o.reader, &loc_rib_prefixes_, options_.peer_out),
               &ignored, name);
    o.tail = o.out;
  }
  b.output = o;
  dump->Start();
}

void FamilyPipeline::PeerDown(uint32_t peer_id) { Down(peer_id, PeerIn::Down::kDelete); }

void FamilyPipeline::PeerDownGraceful(uint32_t peer_id) { Down(peer_id, PeerIn::Down::kKeepStale); }

void FamilyPipeline::Down(uint32_t peer_id, PeerIn::Down how) {
  auto it = branches_.find(peer_id);
  if (it == branches_.end()) return;
  Branch& b = it->second;
  if (b.output) {
    RemoveOutputChain(b.output->reader);
    b.output.reset();
  }
  if (how == PeerIn::Down::kDelete) b.in->SweepStale();
  b.in->SessionDown(how);
}

void FamilyPipeline::SweepStale(uint32_t peer_id) {
  if (PeerIn* in = peer_in(peer_id)) in->SweepStale();
}

void FamilyPipeline::InputDown(uint32_t peer_id) {
  if (PeerIn* in = peer_in(peer_id)) {
    in->SweepStale();
    in->SessionDown();
  }
}

bool FamilyPipeline::PeerIsUp(uint32_t peer_id) const {
  auto it = branches_.find(peer_id);
  return it != branches_.end() && it->second.output.has_value();
}

void FamilyPipeline::RemoveOutputChain(FanoutReader* reader) {
  std::vector<BgpStage*> chain;
  for (BgpStage* s = reader->downstream(); s != nullptr;) {
    chain.push_back(s);
    auto* linear = dynamic_cast<BgpLinearStage*>(s);
    s = linear != nullptr ? linear->downstream() : nullptr;
  }
  fanout_->RemoveReader(plumber_, reader);
  BgpStage* up = reader;
  for (BgpStage* s : chain) {
    stage::Plumber::Unplumb<BgpRoute>(up, s);
    up = s;
  }
  for (BgpStage* s : chain) {
    std::erase(caches_, s);
    plumber_->Retire(s);
  }
}

void FamilyPipeline::RemovePeer(uint32_t peer_id) {
  auto it = branches_.find(peer_id);
  if (it == branches_.end()) return;
  if (it->second.output) PeerDown(peer_id);
  it->second.in->SweepStale();
  it->second.removing = true;
  if (it->second.in->deletions_running() == 0) FinishRemoval(peer_id);
}

void FamilyPipeline::FinishRemoval(uint32_t peer_id) {
  auto it = branches_.find(peer_id);
  if (it == branches_.end()) return;
  Branch& b = it->second;
  // Every stage from PeerIn to Decision — whatever was plumbed in between (a Damping stage,
  // caches) — is unplumbed and retired.
  std::vector<BgpLinearStage*> chain;
  for (BgpStage* s = b.in; s != nullptr && s != decision_;) {
    auto* linear = dynamic_cast<BgpLinearStage*>(s);
    if (linear == nullptr) break;
    chain.push_back(linear);
    s = linear->downstream();
  }
  if (!chain.empty()) stage::Plumber::Unplumb<BgpRoute>(chain.back(), decision_);
  for (BgpLinearStage* s : chain) {
    std::erase(caches_, s);
    s->ConnectUpstream(nullptr);
    s->ConnectDownstream(nullptr);
    plumber_->Retire(s);
  }
  loc_rib_.Remove(b.tables.get());
  retired_tables_.push_back(std::move(b.tables));
  branches_.erase(it);
  // The retired stages are destroyed by a handler the Plumber posted; free the table sets after.
  std::weak_ptr<FamilyPipeline*> weak = self_;
  boost::asio::post(plumber_->io(), [weak] {
    auto self = weak.lock();
    if (self && *self != nullptr) (*self)->retired_tables_.clear();
  });
}

PeerIn* FamilyPipeline::peer_in(uint32_t peer_id) {
  auto it = branches_.find(peer_id);
  return it == branches_.end() ? nullptr : it->second.in;
}

ImportFilter* FamilyPipeline::import_filter(uint32_t peer_id) {
  auto it = branches_.find(peer_id);
  return it == branches_.end() ? nullptr : it->second.import;
}

PeerOut* FamilyPipeline::peer_out(uint32_t peer_id) {
  auto it = branches_.find(peer_id);
  if (it == branches_.end() || !it->second.output) return nullptr;
  return it->second.output->out;
}

BranchTail* FamilyPipeline::peer_tail(uint32_t peer_id) {
  auto it = branches_.find(peer_id);
  if (it == branches_.end() || !it->second.output) return nullptr;
  return it->second.output->tail;
}

ExportFilter* FamilyPipeline::export_filter(uint32_t peer_id) {
  auto it = branches_.find(peer_id);
  if (it == branches_.end() || !it->second.output) return nullptr;
  return it->second.output->exporter;
}

size_t FamilyPipeline::received(uint32_t peer_id) {
  PeerIn* in = peer_in(peer_id);
  return in != nullptr ? in->size() : 0;
}

size_t FamilyPipeline::accepted(uint32_t peer_id) {
  ImportFilter* f = import_filter(peer_id);
  return f != nullptr ? f->counters().accepted : 0;
}

PeerCounts FamilyPipeline::Counts(uint32_t peer_id) {
  PeerCounts c;
  c.received = received(peer_id);
  c.accepted = accepted(peer_id);
  if (PeerIn* in = peer_in(peer_id)) c.stale = in->stale();
  if (PeerOut* out = peer_out(peer_id)) {
    c.advertised = out->counters().advertised;
    c.updates_sent = out->counters().updates;
    c.end_of_rib_sent = out->counters().end_of_rib_sent;
  }
  return c;
}

void FamilyPipeline::RouteRefresh(uint32_t peer_id) {
  if (BranchTail* tail = peer_tail(peer_id)) tail->Refresh();
}

void FamilyPipeline::Writable(uint32_t peer_id) {
  if (BranchTail* tail = peer_tail(peer_id)) tail->OnWritable();
}

std::optional<BgpRoute> FamilyPipeline::AdjRibOutLookup(uint32_t peer_id,
                                                        const net::Prefix& prefix) {
  BranchTail* out = peer_tail(peer_id);
  if (out == nullptr || out->upstream() == nullptr) return std::nullopt;
  return out->upstream()->lookup_route(prefix);
}

void FamilyPipeline::BuildRibBranch() {
  ++rib_generation_;
  const std::string name = rib_generation_ == 1 ? "rib" : absl::StrCat("rib#", rib_generation_);
  rib_reader_ = fanout_->AddReader(plumber_, Name("FanoutReader", name));
  rib_dump_done_ = false;
  std::weak_ptr<FamilyPipeline*> weak = self_;
  const int generation = rib_generation_;
  auto* dump = plumber_->Make<DumpStage>(
      Name("Dump", name), plumber_, &loc_rib_prefixes_, rib_reader_,
      [weak, generation] {
        auto self = weak.lock();
        if (self && *self != nullptr && (*self)->rib_generation_ == generation) {
          (*self)->rib_dump_done_ = true;
        }
      },
      options_.dump_slice);
  stage::Plumber::Plumb<BgpRoute>(rib_reader_, dump);
  BgpStage* tail = dump;
  std::vector<stage::StageBase*> ignored;
  if (services_.tails != nullptr) {
    rib_tail_ =
        Append(&tail, services_.tails->MakeRibTail(plumber_, Name("RibOut", name), rib_reader_),
               &ignored, name);
  } else {
    rib_out_ = Append(&tail,
                      plumber_->Make<RibOut>(Name("RibOut", name), services_.rib, family_,
                                             rib_reader_, options_.rib_out, services_.profiler),
                      &ignored, name);
    rib_tail_ = rib_out_;
  }
  dump->Start();
}

bool FamilyPipeline::RibSynced() {
  if (rib_reader_ == nullptr) return true;
  if (!rib_dump_done_ || !rib_reader_->ready()) return false;
  return rib_out_ == nullptr || rib_out_->waiting() == 0;
}

void FamilyPipeline::RibBorn() {
  if (!HasRib()) return;
  if (rib_reader_ != nullptr) RemoveOutputChain(rib_reader_);
  rib_reader_ = nullptr;
  rib_out_ = nullptr;
  rib_tail_ = nullptr;
  BuildRibBranch();
}

size_t FamilyPipeline::VerifyCaches() {
  size_t n = 0;
  for (Cache* c : caches_) n += c->Verify();
  return n;
}

}  // namespace sluice::bgp

namespace sluice::bgp {

absl::StatusOr<std::vector<BgpRoute>> FamilyPipeline::ReadRoutes(const RouteQuery& q,
                                                                 uint32_t peer_id) {
  const bool adj_in = q.view == RibView::kAdjRibIn || q.view == RibView::kAdjRibInPost;
  PeerIn* in = adj_in ? peer_in(peer_id) : nullptr;
  if (adj_in && in == nullptr) return absl::NotFoundError("the peer does not run this family");
  // The Adj-RIB-In through the validation stage, so its routes carry their RPKI state; after
  // the import filter for the post-policy view.
  const BgpStage* adj_rib_in = in;
  if (OriginValidation* v = in != nullptr ? origin_validation(peer_id) : nullptr) adj_rib_in = v;
  if (q.view == RibView::kAdjRibInPost) adj_rib_in = import_filter(peer_id);
  auto view = [&](const net::Prefix& p) -> std::optional<BgpRoute> {
    switch (q.view) {
      case RibView::kAdjRibIn:
      case RibView::kAdjRibInPost:
        return adj_rib_in->lookup_route(p);
      case RibView::kLocRib:
        return decision_->lookup_route(p);
      case RibView::kAdjRibOut:
        return AdjRibOutLookup(peer_id, p);
    }
    return std::nullopt;
  };
  auto lookup = [&](const net::Prefix& p) -> std::optional<BgpRoute> {
    std::optional<BgpRoute> r = view(p);
    if (r && q.rpki && r->rpki != q.rpki) return std::nullopt;
    return r;
  };
  std::vector<BgpRoute> out;
  if (q.prefix) {
    if (std::optional<BgpRoute> r = lookup(*q.prefix)) out.push_back(std::move(*r));
    return out;
  }
  auto next = [&](const std::optional<net::Prefix>& after) {
    return adj_in ? NextPrefixIn(in->table(), after) : loc_rib_prefixes_.NextPrefix(after);
  };
  std::optional<net::Prefix> cursor = q.after;
  if (q.within && (!cursor || *cursor < *q.within)) {
    // The subtree starts at `within` itself (a covering prefix sorts first).
    if (std::optional<BgpRoute> r = lookup(*q.within)) out.push_back(std::move(*r));
    cursor = q.within;
  }
  while (out.size() < q.max) {
    cursor = next(cursor);
    if (!cursor || (q.within && !q.within->Contains(*cursor))) break;
    if (std::optional<BgpRoute> r = lookup(*cursor)) out.push_back(std::move(*r));
  }
  return out;
}

}  // namespace sluice::bgp
