#include "bgp/stages/shard_pipeline.h"

#include <algorithm>
#include <atomic>
#include <boost/asio/post.hpp>
#include <map>
#include <tuple>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bgp/wire/attribute_encoder.h"
#include "stage/route_arrival.h"

namespace sluice::bgp {

namespace {

constexpr uint64_t kExportCheckEvery = 64;  // input batches between looks at the export slots

using In = stage::ShardInput<BgpRoute>;

class NoPrefixes : public PrefixSource {
 public:
  std::optional<net::Prefix> NextPrefix(const std::optional<net::Prefix>&) const override {
    return std::nullopt;
  }
};
const NoPrefixes kNoPrefixes;

net::Family FamilyOf(int slot) { return slot == 1 ? net::Family::kIPv6 : net::Family::kIPv4; }

std::string Name(int slot, const std::string& kind, const std::string& peer) {
  std::string s = absl::StrCat(slot == 1 ? "v6 " : "v4 ", kind);
  if (!peer.empty()) absl::StrAppend(&s, "(", peer, ")");
  return s;
}

// What the shards publish after each batch and each change of the peer's state, per peer and
// family: read by the loop without asking them (max-prefix and the Adj-RIB-In ceiling after
// every UPDATE, and the peer list).
struct PublishedCounts {
  explicit PublishedCounts(int shards) : received(shards), accepted(shards), stale(shards) {}
  std::vector<std::atomic<uint64_t>> received;  // per shard: in the Adj-RIB-In
  std::vector<std::atomic<uint64_t>> accepted;  // per shard: past import
  std::vector<std::atomic<uint64_t>> stale;     // per shard: kept from a restarting session
  // Every shard's count of `which` (&PublishedCounts::received, ::accepted or ::stale).
  size_t Sum(std::vector<std::atomic<uint64_t>> PublishedCounts::*which) const {
    size_t n = 0;
    for (const auto& a : this->*which) n += a.load(std::memory_order_relaxed);
    return n;
  }
};

// Each shard's first page of its share of a query, merged: the first `max` routes of them all,
// in prefix order; the first shard's error instead if one failed.
absl::StatusOr<std::vector<BgpRoute>> MergePages(
    std::vector<absl::StatusOr<std::vector<BgpRoute>>> pages, size_t max) {
  std::vector<BgpRoute> all;
  for (absl::StatusOr<std::vector<BgpRoute>>& p : pages) {
    if (!p.ok()) return p.status();
    all.insert(all.end(), std::make_move_iterator(p->begin()), std::make_move_iterator(p->end()));
  }
  std::sort(all.begin(), all.end(),
            [](const BgpRoute& a, const BgpRoute& b) { return a.net < b.net; });
  if (all.size() > max) all.resize(max);
  return all;
}

}  // namespace

// --- One shard: its copies of the families' pipelines ------------------------------------------

struct ShardedRouting::Worker final : public BranchTailFactory {
  struct PeerEntry {
    std::array<PeerIn*, 2> in{nullptr, nullptr};
    std::array<std::shared_ptr<PublishedCounts>, 2> counts;
  };
  // Where an input port's routes go in this shard.
  struct Port {
    int family = 0;
    uint32_t peer_id = 0;  // 0: the local input
    PeerIn* in = nullptr;
  };

  Shards::Context* ctx = nullptr;
  ShardOutputs* outputs = nullptr;
  bool has_rib = false;
  std::array<std::unique_ptr<FamilyPipeline>, 2> pipes;
  absl::flat_hash_map<uint32_t, PeerEntry> peers;
  absl::flat_hash_map<uint32_t, Port> ports;
  uint32_t next_port = 0;  // the output port of the next tail made
  std::vector<Port> touched;

  // BranchTailFactory.
  BranchTail* MakePeerTail(stage::Plumber* plumber, const std::string& name, uint32_t,
                           FanoutReader* reader, const PrefixSource* loc_rib) override {
    return plumber->Make<ShardTail>(name, plumber->io(), outputs, next_port, reader, loc_rib);
  }
  bool rib() const override { return has_rib; }
  BranchTail* MakeRibTail(stage::Plumber* plumber, const std::string& name,
                          FanoutReader* reader) override {
    return plumber->Make<ShardTail>(name, plumber->io(), outputs, next_port, reader, nullptr);
  }

  PeerIn* InputOf(int family, uint32_t peer_id) {
    if (pipes[family] == nullptr) return nullptr;
    if (peer_id == 0) return pipes[family]->local_in();
    auto it = peers.find(peer_id);
    return it == peers.end() ? nullptr : it->second.in[family];
  }

  // The shard stage's input: routes of the ports' PeerIns.
  void Process(std::span<In> items) {
    const Port* to = nullptr;
    uint32_t port = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      In& item = items[i];
      if (i + 2 * kPrefetchAhead < items.size()) Prefetch(items[i + 2 * kPrefetchAhead], false);
      if (i + kPrefetchAhead < items.size()) Prefetch(items[i + kPrefetchAhead], true);
      if (to == nullptr || item.port != port) {
        port = item.port;
        auto it = ports.find(port);
        to = it == ports.end() ? nullptr : &it->second;
        if (to != nullptr) Touch(*to);
      }
      if (to == nullptr) continue;  // a peer removed since
      stage::ArrivalScope arrival(item.arrival_ns);
      if (item.op == In::Op::kAdd) {
        to->in->Announce(item.route.net, std::move(item.route.attrs), item.route.path_id);
      } else {
        to->in->Withdraw(item.route.net);
      }
    }
  }
  // The loop decoded and counted the sets this shard's routes refer to: the lines the Adj-RIB-In
  // (its reference) and the import policy (AS path, communities) read are loaded a few routes
  // ahead, not waited for one route at a time: the set itself, then (`deep`, once it is here)
  // what it points to.
  static constexpr size_t kPrefetchAhead = 4;
  static void Prefetch(const In& item, bool deep) {
    if (item.op != In::Op::kAdd || !item.route.attrs) return;
    if (!deep) item.route.attrs.Prefetch();
    PrefetchForEncoding(*item.route.attrs, deep);
  }
  void Touch(const Port& p) {
    for (const Port& t : touched) {
      if (t.in == p.in) return;
    }
    touched.push_back(p);
  }
  // The end of an UPDATE: push what it touched, publish the counts.
  void EndInput() {
    for (const Port& t : touched) PushInput(t);
    touched.clear();
  }
  void PushInput(const Port& t) {
    t.in->Push();
    if (t.peer_id != 0) Publish(t.family, t.peer_id);
  }
  // This shard's counts of the peer, for the loop.
  void Publish(int family, uint32_t peer_id) {
    auto it = peers.find(peer_id);
    if (it == peers.end() || it->second.counts[family] == nullptr) return;
    PublishedCounts& c = *it->second.counts[family];
    c.received[ctx->index()].store(pipes[family]->received(peer_id), std::memory_order_relaxed);
    c.accepted[ctx->index()].store(pipes[family]->accepted(peer_id), std::memory_order_relaxed);
    const PeerIn* in = pipes[family]->peer_in(peer_id);
    c.stale[ctx->index()].store(in != nullptr ? in->stale() : 0, std::memory_order_relaxed);
  }
  // Pushes and forgets what a peer touched (before its stages change).
  void PushPeer(uint32_t peer_id) {
    std::vector<Port> rest;
    for (const Port& t : touched) {
      if (t.peer_id == peer_id) {
        PushInput(t);
      } else {
        rest.push_back(t);
      }
    }
    touched.swap(rest);
  }
};

// What an output branch's tail on the loop (PeerOut, RibOut) takes from the shards besides the
// stage contract.
namespace {
ShardedRouting::Shards::OutputPort::Handlers BranchHandlers(BranchTail* tail) {
  return {.signal =
              [tail](uint8_t code, const BgpRoute& route) {
                if (code == kReadvertise) tail->Readvertise(route);
              },
          .barrier =
              [tail](uint8_t code) {
                if (code == kEndOfRib) tail->EndOfRib();
              }};
}
}  // namespace

// --- A peer's (or the local) input on the loop: its input port -----------------------------------

class ShardedRouting::Input : public RouteInput {
 public:
  Input(ShardedRouting* owner, Family* family, uint32_t peer_id, Shards::InputPort* port)
      : owner_(owner), family_(family), peer_id_(peer_id), port_(port) {}
  ~Input() override { owner_->shards_->RemoveInput(port_); }
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;

  uint32_t port() const { return port_->port(); }

  bool Announce(const net::Prefix& prefix, const AttrRef& attrs, uint32_t path_id) override {
    if (!attrs) return false;
    if (peer_id_ == 0) originated_.insert(prefix);
    BgpRoute route;
    route.net = prefix;
    route.attrs = attrs;
    route.path_id = path_id;
    port_->add_route(std::move(route), nullptr);
    return true;
  }
  bool Withdraw(const net::Prefix& prefix) override {
    if (peer_id_ == 0 && originated_.erase(prefix) == 0) return false;
    BgpRoute route;
    route.net = prefix;
    port_->delete_route(route, nullptr);
    return true;
  }
  void Push() override;

 private:
  ShardedRouting* owner_;
  Family* family_;
  uint32_t peer_id_;
  Shards::InputPort* port_;
  absl::flat_hash_set<net::Prefix> originated_;  // the local input's
};

// --- One family, as BgpPeer and BgpRouting see it -----------------------------------------------

class ShardedRouting::Family : public FamilyRouting {
 public:
  Family(ShardedRouting* owner, int slot, uint32_t rib_port)
      : owner_(owner), slot_(slot), local_(MakeInput(0, "local")) {
    if (owner_->services_.rib != nullptr) MakeRibOut(rib_port);
  }

  net::Family family() const override { return FamilyOf(slot_); }

  void SetRouter(const RouterSettings& router) override {
    const int slot = slot_;
    runner().CommandAll([slot, router](Worker& w, int) { w.pipes[slot]->SetRouter(router); });
    runner().Flush();
  }

  void AddPeer(const PeerSettings& s) override {
    if (peers_.contains(s.peer_id)) return;
    PeerState& st = peers_[s.peer_id];
    st.settings = s;
    st.counts = std::make_shared<PublishedCounts>(owner_->threads());
    st.SawPolicies();
    const int slot = slot_;
    std::shared_ptr<PublishedCounts> counts = st.counts;
    Shards::Runner& r = runner();
    r.CommandAll([slot, s, counts](Worker& w, int) {
      w.pipes[slot]->AddPeer(s);
      Worker::PeerEntry& e = w.peers[s.peer_id];
      e.in[slot] = w.pipes[slot]->peer_in(s.peer_id);
      e.counts[slot] = counts;
    });
    st.input = MakeInput(s.peer_id, s.name);
  }

  void UpdatePeer(const PeerSettings& s) override {
    auto it = peers_.find(s.peer_id);
    if (it == peers_.end()) return;
    it->second.settings = s;
    it->second.SawPolicies();
    const int slot = slot_;
    runner().CommandAll([slot, s](Worker& w, int) {
      w.PushPeer(s.peer_id);
      w.pipes[slot]->UpdatePeer(s);
    });
    runner().Flush();
  }

  void RemovePeer(uint32_t peer_id) override {
    auto it = peers_.find(peer_id);
    if (it == peers_.end()) return;
    if (it->second.up) PeerDown(peer_id);
    const int slot = slot_;
    const uint32_t port = it->second.input->port();
    runner().CommandAll([slot, peer_id, port](Worker& w, int) {
      w.PushPeer(peer_id);
      w.ports.erase(port);
      w.pipes[slot]->RemovePeer(peer_id);
      auto e = w.peers.find(peer_id);
      if (e == w.peers.end()) return;
      e->second.in[slot] = nullptr;
      e->second.counts[slot] = nullptr;
      if (e->second.in[0] == nullptr && e->second.in[1] == nullptr) w.peers.erase(e);
    });
    runner().Flush();
    peers_.erase(it);
  }

  void PeerUp(uint32_t peer_id, const PeerSource* source, SessionSender* sender,
              const EstablishedInfo& info) override {
    auto it = peers_.find(peer_id);
    if (it == peers_.end()) return;
    PeerState& st = it->second;
    if (st.up) PeerDown(peer_id);
    st.up = true;
    st.branch = owner_->NewPort();
    Shards::OutputPort* port = owner_->shards_->AddOutput(st.branch);
    st.out = owner_->services_.plumber->Make<PeerOut>(
        Name(slot_, "PeerOut", st.settings.name), owner_->services_.plumber->io(), sender,
        info.params, AfiSafi{AfiOf(family()), Safi::kUnicast}, port, &kNoPrefixes,
        owner_->options_.peer_out);
    port->Connect(st.out, BranchHandlers(st.out));
    const int slot = slot_;
    const uint32_t branch = st.branch;
    runner().CommandAll([slot, peer_id, source, info, branch](Worker& w, int) {
      w.next_port = branch;
      w.pipes[slot]->PeerUp(peer_id, source, nullptr, info);
      w.Publish(slot, peer_id);
    });
    runner().Flush();
  }

  void PeerDown(uint32_t peer_id) override { Down(peer_id, false); }
  void PeerDownGraceful(uint32_t peer_id) override { Down(peer_id, true); }

  void Down(uint32_t peer_id, bool graceful) {
    auto it = peers_.find(peer_id);
    if (it == peers_.end() || !it->second.up) return;
    PeerState& st = it->second;
    st.up = false;
    owner_->RemoveBranch(st.branch, st.out);
    st.out = nullptr;
    const int slot = slot_;
    runner().CommandAll([slot, peer_id, graceful](Worker& w, int) {
      w.PushPeer(peer_id);
      if (graceful) {
        w.pipes[slot]->PeerDownGraceful(peer_id);
      } else {
        w.pipes[slot]->PeerDown(peer_id);
      }
      w.Publish(slot, peer_id);
    });
    runner().Flush();
  }

  void SweepStale(uint32_t peer_id) override {
    if (!peers_.contains(peer_id)) return;
    const int slot = slot_;
    runner().CommandAll([slot, peer_id](Worker& w, int) {
      w.pipes[slot]->SweepStale(peer_id);
      w.Publish(slot, peer_id);
    });
    runner().Flush();
  }

  void InputDown(uint32_t peer_id) override {
    auto it = peers_.find(peer_id);
    if (it == peers_.end() || !it->second.up) return;
    const int slot = slot_;
    runner().CommandAll([slot, peer_id](Worker& w, int) {
      w.PushPeer(peer_id);
      w.pipes[slot]->InputDown(peer_id);
      w.Publish(slot, peer_id);
    });
    runner().Flush();
  }

  RouteInput* input(uint32_t peer_id) override {
    auto it = peers_.find(peer_id);
    return it == peers_.end() || !it->second.up ? nullptr : it->second.input.get();
  }

  void RouteRefresh(uint32_t peer_id) override {
    auto it = peers_.find(peer_id);
    if (it == peers_.end() || !it->second.up) return;
    const int slot = slot_;
    runner().CommandAll([slot, peer_id](Worker& w, int) { w.pipes[slot]->RouteRefresh(peer_id); });
    runner().Flush();
  }

  void Writable(uint32_t peer_id) override {
    auto it = peers_.find(peer_id);
    if (it != peers_.end() && it->second.out != nullptr) it->second.out->OnWritable();
  }

  size_t received(uint32_t peer_id) override {
    auto it = peers_.find(peer_id);
    return it == peers_.end() ? 0 : it->second.counts->Sum(&PublishedCounts::received);
  }

  size_t accepted(uint32_t peer_id) override {
    auto it = peers_.find(peer_id);
    return it == peers_.end() ? 0 : it->second.counts->Sum(&PublishedCounts::accepted);
  }

  PeerCounts Counts(uint32_t peer_id) override {
    auto it = peers_.find(peer_id);
    PeerCounts c;
    if (it == peers_.end()) return c;
    // As the shards last published them: never waits for a shard.
    const PublishedCounts& counts = *it->second.counts;
    c.received = counts.Sum(&PublishedCounts::received);
    c.accepted = counts.Sum(&PublishedCounts::accepted);
    c.stale = counts.Sum(&PublishedCounts::stale);
    if (const PeerOut* out = it->second.out) {
      c.advertised = out->counters().advertised;
      c.updates_sent = out->counters().updates;
      c.end_of_rib_sent = out->counters().end_of_rib_sent;
    }
    return c;
  }

  RouteInput* local_input() override { return local_.get(); }

  void RibBorn() override {
    if (owner_->services_.rib == nullptr) return;
    if (rib_out_ != nullptr) owner_->RemoveBranch(rib_branch_, rib_out_);
    const uint32_t branch = owner_->NewPort();
    MakeRibOut(branch);
    const int slot = slot_;
    runner().CommandAll([slot, branch](Worker& w, int) {
      w.next_port = branch;
      w.pipes[slot]->RibBorn();
    });
    runner().Flush();
  }
  RibOut* rib_out() { return rib_out_; }

  // Every shard's RIB branch dumped and caught up, and the loop's RibOut empty. (Changes in the
  // hand-over from a shard to the loop at this moment are not seen: callers poll.)
  bool RibSynced() override {
    if (rib_out_ == nullptr) return true;
    const int slot = slot_;
    for (bool synced :
         runner().QueryAll([slot](Worker&w, int) { return w.pipes[slot]->RibSynced(); })) {
      if (!synced) return false;
    }
    return rib_out_->waiting() == 0;
  }
  void RibSyncedAsync(std::function<void(bool synced)> done) override {
    if (rib_out_ == nullptr) return done(true);
    const int slot = slot_;
    runner().QueryAllAsync([slot](Worker& w, int) { return w.pipes[slot]->RibSynced(); },
                           [this, done = std::move(done)](std::vector<bool> synced) {
                             done(std::find(synced.begin(), synced.end(), false) == synced.end() &&
                                  rib_out_->waiting() == 0);
                           });
  }

  void ReadRoutesAsync(const RouteQuery& q, uint32_t peer_id, RoutesDone done) override {
    const int slot = slot_;
    using Page = absl::StatusOr<std::vector<BgpRoute>>;
    Shards::Runner& r = runner();
    if (q.prefix) {
      return r.QueryAsync(
          r.ShardFor(*q.prefix),
          [slot, q, peer_id](Worker& w) -> Page { return w.pipes[slot]->ReadRoutes(q, peer_id); },
          std::move(done));
    }
    const size_t max = q.max;
    r.QueryAllAsync([slot, q, peer_id](
                        Worker& w, int) -> Page { return w.pipes[slot]->ReadRoutes(q, peer_id); },
                    [max, done = std::move(done)](std::vector<Page> pages) {
                      done(MergePages(std::move(pages), max));
                    });
  }
  void CandidatesAsync(const net::Prefix& prefix,
                       std::function<void(std::vector<BgpRoute>)> done) override {
    const int slot = slot_;
    Shards::Runner& r = runner();
    r.QueryAsync(
        r.ShardFor(prefix), [slot, prefix](Worker& w) { return w.pipes[slot]->Candidates(prefix); },
        std::move(done));
  }

  absl::StatusOr<std::vector<BgpRoute>> ReadRoutes(const RouteQuery& q, uint32_t peer_id) override {
    const int slot = slot_;
    using Page = absl::StatusOr<std::vector<BgpRoute>>;
    Shards::Runner& r = runner();
    if (q.prefix) {
      return r.Query(r.ShardFor(*q.prefix), [slot, &q, peer_id](Worker& w) -> Page {
        return w.pipes[slot]->ReadRoutes(q, peer_id);
      });
    }
    // Each shard's first page of its share; the merged page is the first `max` of them all.
    return MergePages(r.QueryAll([slot, &q, peer_id](Worker& w, int) -> Page {
      return w.pipes[slot]->ReadRoutes(q, peer_id);
    }),
                      q.max);
  }

  std::vector<BgpRoute> Candidates(const net::Prefix& prefix) override {
    const int slot = slot_;
    Shards::Runner& r = runner();
    return r.Query(r.ShardFor(prefix),
                   [slot, &prefix](Worker& w) { return w.pipes[slot]->Candidates(prefix); });
  }

  std::string DescribeShards() const override {
    if (slot_ == 1 && owner_->families_[0] != nullptr) return {};  // said once for both
    return absl::StrJoin(runner().QueryAll(DescribeShard), "");
  }
  void DescribeShardsAsync(std::function<void(std::string)> done) const override {
    if (slot_ == 1 && owner_->families_[0] != nullptr) return done({});
    runner().QueryAllAsync(DescribeShard, [done = std::move(done)](std::vector<std::string> parts) {
      done(absl::StrJoin(parts, ""));
    });
  }
  static std::string DescribeShard(Worker& w, int i) {
    return absl::StrCat("shard ", i, ":\n", w.ctx->plumber().Describe());
  }

  // Each shard's copy in turn, on its thread (Query: after the routes sent to it before).
  void ForEachPipeline(const std::function<void(FamilyPipeline&, stage::Plumber&)>& fn) override {
    const int slot = slot_;
    Shards::Runner& r = runner();
    for (int i = 0; i < r.shards(); ++i) {
      r.Query(i, [slot, &fn](Worker& w) { fn(*w.pipes[slot], w.ctx->plumber()); });
    }
  }
  void ForEachPipelineAsync(CopyFn fn, std::function<void()> done) override {
    const int slot = slot_;
    runner().QueryAllAsync(
        [slot, fn = std::move(fn)](Worker& w, int i) {
          fn(*w.pipes[slot], w.ctx->plumber(), i);
          return 0;
        },
        [done = std::move(done)](std::vector<int>) { done(); });
  }
  int copies() const override { return owner_->threads(); }

  // A new filter in a peer's import slot: every shard re-filters (ImportFilter notices at push).
  void CheckImport(uint32_t peer_id) {
    auto it = peers_.find(peer_id);
    if (it == peers_.end() || it->second.settings.import_policy == nullptr) return;
    if (!it->second.import.PollNew()) return;
    const int slot = slot_;
    runner().CommandAll([slot, peer_id](Worker& w, int) {
      if (PeerIn* in = w.InputOf(slot, peer_id)) in->Push();
    });
  }
  void CheckExports() {
    for (auto& [peer_id, st] : peers_) {
      if (!st.up || st.settings.export_policy == nullptr) continue;
      if (!st.exports.PollNew()) continue;
      const int slot = slot_;
      const uint32_t id = peer_id;
      runner().CommandAll([slot, id](Worker& w, int) {
        if (ExportFilter* e = w.pipes[slot]->export_filter(id)) e->push(nullptr);
      });
    }
  }

 private:
  struct PeerState {
    PeerSettings settings;
    std::shared_ptr<PublishedCounts> counts;
    std::unique_ptr<Input> input;
    bool up = false;
    uint32_t branch = 0;
    PeerOut* out = nullptr;
    // The filters in the peer's slots last seen (a look per UPDATE costs no lock and no shared
    // reference count).
    policy::FilterWatch import, exports;
    void SawPolicies() {
      import.Watch(settings.import_policy);
      exports.Watch(settings.export_policy);
    }
  };

  Shards::Runner& runner() const { return owner_->shards_->runner(); }

  // An input port for the peer (0: the local input), and its PeerIn in every shard.
  std::unique_ptr<Input> MakeInput(uint32_t peer_id, const std::string& name) {
    const uint32_t port = owner_->NewPort();
    auto input = std::make_unique<Input>(
        owner_, this, peer_id, owner_->shards_->AddInput(Name(slot_, "ShardInput", name), port));
    const int slot = slot_;
    runner().CommandAll([slot, peer_id, port](Worker& w, int) {
      w.ports[port] = Worker::Port{slot, peer_id, w.InputOf(slot, peer_id)};
    });
    runner().Flush();
    return input;
  }

  void MakeRibOut(uint32_t port) {
    rib_branch_ = port;
    ++rib_generation_;
    Shards::OutputPort* out = owner_->shards_->AddOutput(port);
    const std::string name = rib_generation_ == 1 ? "rib" : absl::StrCat("rib#", rib_generation_);
    rib_out_ = owner_->services_.plumber->Make<RibOut>(
        Name(slot_, "RibOut", name), owner_->services_.rib, family(), out, owner_->options_.rib_out,
        owner_->services_.profiler);
    out->Connect(rib_out_, BranchHandlers(rib_out_));
  }

  ShardedRouting* owner_;
  int slot_;
  std::unique_ptr<Input> local_;
  std::map<uint32_t, PeerState> peers_;
  uint32_t rib_branch_ = 0;
  int rib_generation_ = 0;
  RibOut* rib_out_ = nullptr;
};

void ShardedRouting::Input::Push() {
  port_->push(nullptr);  // the end of an epoch in every shard's stream
  owner_->AfterBatch();
  if (peer_id_ == 0) return;
  family_->CheckImport(peer_id_);
  owner_->counts_pending_.emplace_back(owner_->shards_->runner().epoch(), peer_id_);
}

// --- ShardedRouting ------------------------------------------------------------------------------

ShardedRouting::ShardedRouting(int threads, const RouterSettings& router, PipelineServices services,
                               PipelineOptions options, std::array<bool, 2> families)
    : router_(router), services_(services), options_(options) {
  std::array<uint32_t, 2> rib_ports = {NewPort(), NewPort()};
  stage::ShardOptions so;
  so.shards = std::max(1, threads);
  so.batch_items = options_.shard_batch;
  so.max_backlog = options_.shard_backlog;
  so.max_out_backlog = options_.shard_out_backlog;
  so.coalesce = std::chrono::microseconds(options_.shard_coalesce_us);
  so.inline_single = false;
  so.name = "bgp-shard";
  Shards::Hooks hooks;
  hooks.backpressure = [this](bool full) {
    if (backpressure_) backpressure_(full);
  };
  hooks.delivered = [this] { CountsDelivered(); };
  auto make = [this, families, rib_ports](Shards::Context& ctx, ShardOutputs& outputs) {
    auto w = std::make_unique<Worker>();
    w->ctx = &ctx;
    w->outputs = &outputs;
    w->has_rib = services_.rib != nullptr;
    PipelineServices ps = services_;
    ps.plumber = &ctx.plumber();
    ps.rib = nullptr;
    ps.tails = w.get();
    ps.store = &services_.store->Local(size_t(ctx.index()));
    for (int slot = 0; slot < 2; ++slot) {
      if (!families[slot]) continue;
      w->next_port = rib_ports[slot];
      w->pipes[slot] = std::make_unique<FamilyPipeline>(FamilyOf(slot), router_, ps, options_);
    }
    return w;
  };
  shards_ = std::make_unique<Shards>(services_.plumber->io(), so, make, std::move(hooks));
  for (int slot = 0; slot < 2; ++slot) {
    if (families[slot]) families_[slot] = std::make_unique<Family>(this, slot, rib_ports[slot]);
  }
}

ShardedRouting::~ShardedRouting() {
  families_ = {};   // the inputs leave their ports
  shards_.reset();  // the shards' stages go on their threads
}

FamilyRouting* ShardedRouting::family(int slot) { return families_[slot].get(); }

int ShardedRouting::threads() const { return shards_->shards(); }

void ShardedRouting::Settle() { shards_->Settle(); }

std::vector<stage::Plumber::QueueDepth> ShardedRouting::QueueDepths() const {
  std::vector<stage::Plumber::QueueDepth> out;
  Shards::Runner& runner = shards_->runner();
  for (int i = 0; i < runner.shards(); ++i) {
    out.push_back({absl::StrCat("shard ", i, " input"), "ShardInput", runner.backlog(i)});
    // The pipelines were made before the runner's constructor returned; each Fanout lives as
    // long as its pipeline, and published_queued() is an atomic.
    for (const std::unique_ptr<FamilyPipeline>& pipe : runner.shard(i).pipes) {
      if (pipe == nullptr) continue;
      const Fanout* fanout = pipe->fanout();
      out.push_back(
          {absl::StrCat("shard ", i, " ", fanout->name()), "Fanout", fanout->published_queued()});
    }
  }
  return out;
}

std::vector<std::string> ShardedRouting::Violations() {
  std::vector<std::vector<std::string>> per_shard = shards_->runner().QueryAll([](Worker& w, int) {
    std::vector<std::string> v;
    for (auto& pipe : w.pipes) {
      if (pipe == nullptr) continue;
      pipe->VerifyCaches();
      v.insert(v.end(), pipe->violations().begin(), pipe->violations().end());
    }
    return v;
  });
  std::vector<std::string> out;
  for (auto& v : per_shard) out.insert(out.end(), v.begin(), v.end());
  return out;
}

void ShardedRouting::RemoveBranch(uint32_t port, BranchTail* tail) {
  // The stage goes after the current event, its output port (the stage's FlowControl) after it.
  services_.plumber->Retire(tail);
  shards_->RemoveOutput(port);
}

void ShardedRouting::AfterBatch() {
  if (++pushes_ % kExportCheckEvery != 0) return;
  for (auto& f : families_) {
    if (f != nullptr) f->CheckExports();
  }
}

void ShardedRouting::CountsDelivered() {
  uint32_t last = 0;  // a peer's run of UPDATEs is announced once
  const uint64_t delivered = shards_->runner().delivered_epoch();
  while (!counts_pending_.empty() && counts_pending_.front().first <= delivered) {
    const uint32_t peer_id = counts_pending_.front().second;
    counts_pending_.pop_front();
    if (peer_id != last && counts_changed_) counts_changed_(peer_id);
    last = peer_id;
  }
}

}  // namespace sluice::bgp
