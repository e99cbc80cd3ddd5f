#include "bgp/stages/shard_pipeline.h"

#include <algorithm>
#include <atomic>
#include <boost/asio/post.hpp>
#include <map>
#include <tuple>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "stage/route_arrival.h"

namespace sluice::bgp {

namespace {

constexpr uint64_t kExportCheckEvery = 64;  // input batches between looks at the export slots
constexpr uint64_t kPushEvery = 4096;       // changes delivered to a branch before it is pushed

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

struct ShardedRouting::Worker final : public BranchTailFactory, public ShardOutputSink {
  struct PeerEntry {
    std::array<PeerIn*, 2> in{nullptr, nullptr};
    std::array<std::shared_ptr<PublishedCounts>, 2> counts;
  };
  struct Touched {
    int family;
    uint32_t peer_id;
    PeerIn* in;
  };

  Runner::Context* ctx = nullptr;
  bool has_rib = false;
  std::array<std::unique_ptr<FamilyPipeline>, 2> pipes;
  absl::flat_hash_map<uint32_t, PeerEntry> peers;
  absl::flat_hash_map<uint32_t, ShardTail*> tails;
  // Branches blocked before this shard made their tail (a PeerOut born while the restart gate
  // is closed blocks at once): the tail starts blocked.
  absl::flat_hash_set<uint32_t> blocked_early;
  uint32_t next_branch = 0;  // the branch id of the next tail made
  std::vector<Touched> touched;

  // ShardOutputSink.
  ShardOut& Emit() override {
    ShardOut& o = ctx->Emit();
    o.arrival_ns = stage::CurrentArrival();
    return o;
  }
  void Flush() override { ctx->Flush(); }

  // BranchTailFactory.
  BranchTail* MakePeerTail(stage::Plumber* plumber, const std::string& name, uint32_t,
                           FanoutReader* reader, const PrefixSource* loc_rib) override {
    return MakeTail(plumber, name, reader, loc_rib);
  }
  bool rib() const override { return has_rib; }
  BranchTail* MakeRibTail(stage::Plumber* plumber, const std::string& name,
                          FanoutReader* reader) override {
    return MakeTail(plumber, name, reader, nullptr);
  }
  ShardTail* MakeTail(stage::Plumber* plumber, const std::string& name, FlowControl* reader,
                      const PrefixSource* loc_rib) {
    const uint32_t branch = next_branch;
    auto* tail = plumber->Make<ShardTail>(name, plumber->io(), this, branch, reader, loc_rib,
                                          [this, branch] { tails.erase(branch); });
    tails[branch] = tail;
    if (blocked_early.erase(branch) > 0) tail->SetBlocked(true);
    return tail;
  }

  PeerIn* InputOf(int family, uint32_t peer_id) {
    if (pipes[family] == nullptr) return nullptr;
    if (peer_id == 0) return pipes[family]->local_in();
    auto it = peers.find(peer_id);
    return it == peers.end() ? nullptr : it->second.in[family];
  }

  void Process(std::span<ShardIn> items) {
    PeerIn* in = nullptr;
    int family = -1;
    uint32_t peer = 0;
    for (ShardIn& item : items) {
      if (item.family != family || item.peer_id != peer) {
        family = item.family;
        peer = item.peer_id;
        in = InputOf(family, peer);
        if (in != nullptr) Touch(family, peer, in);
      }
      if (in == nullptr) continue;  // a peer removed since
      stage::ArrivalScope arrival(item.arrival_ns);
      if (item.op == ShardIn::Op::kAnnounce) {
        in->Announce(item.prefix, item.attrs, item.path_id);
      } else {
        in->Withdraw(item.prefix);
      }
    }
  }
  void Touch(int family, uint32_t peer, PeerIn* in) {
    for (const Touched& t : touched) {
      if (t.in == in) return;
    }
    touched.push_back(Touched{family, peer, in});
  }
  // The end of an UPDATE: push what it touched, publish the counts.
  void EndEpoch() {
    for (const Touched& t : touched) PushInput(t);
    touched.clear();
  }
  void PushInput(const Touched& t) {
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
    std::vector<Touched> rest;
    for (const Touched& t : touched) {
      if (t.peer_id == peer_id) {
        PushInput(t);
      } else {
        rest.push_back(t);
      }
    }
    touched.swap(rest);
  }

  void SetBlocked(uint32_t branch, bool blocked) {
    auto it = tails.find(branch);
    if (it != tails.end()) {
      it->second->SetBlocked(blocked);
    } else if (blocked) {
      blocked_early.insert(branch);
    } else {
      blocked_early.erase(branch);
    }
  }
};

// --- A branch's FanoutReaders in every shard, as PeerOut and RibOut on the loop see them --------

class ShardedRouting::Control : public FlowControl {
 public:
  Control(Runner* runner, uint32_t branch) : runner_(runner), branch_(branch) {}
  void SetBlocked(bool blocked) override {
    if (blocked == blocked_) return;
    blocked_ = blocked;
    const uint32_t branch = branch_;
    runner_->CommandAll([branch, blocked](Worker& w, int) { w.SetBlocked(branch, blocked); });
    runner_->Flush();
  }
  bool ready() const override { return !blocked_; }
  void WhenReady(std::function<void()> callback) override {
    if (!blocked_) callback();
  }

 private:
  Runner* runner_;
  uint32_t branch_;
  bool blocked_ = false;
};

// Where one branch's outputs meet on the loop: a PeerOut or a RibOut.
struct ShardedRouting::Consumer {
  uint32_t branch = 0;
  BranchTail* stage = nullptr;
  PeerOut* out = nullptr;  // a peer's branch
  int dumps_pending = 0;   // shards whose initial dump has not ended (End-of-RIB after the last)
  std::unique_ptr<Control> control;
  bool touched = false;
  bool dead = false;
  uint64_t changes = 0;  // delivered since its last push
};

// --- A peer's (or the local) input on the loop --------------------------------------------------

class ShardedRouting::Input : public RouteInput {
 public:
  Input(ShardedRouting* owner, Family* family, int slot, uint32_t peer_id)
      : owner_(owner), family_(family), slot_(uint8_t(slot)), peer_id_(peer_id) {}

  bool Announce(const net::Prefix& prefix, const AttrRef& attrs, uint32_t path_id) override {
    if (!attrs) return false;
    if (peer_id_ == 0) originated_.insert(prefix);
    Runner& r = *owner_->runner_;
    ShardIn& in = r.Add(r.ShardFor(prefix));
    in.op = ShardIn::Op::kAnnounce;
    in.family = slot_;
    in.peer_id = peer_id_;
    in.path_id = path_id;
    in.prefix = prefix;
    in.attrs = attrs;
    in.arrival_ns = stage::CurrentArrival();
    return true;
  }
  bool Withdraw(const net::Prefix& prefix) override {
    if (peer_id_ == 0 && originated_.erase(prefix) == 0) return false;
    Runner& r = *owner_->runner_;
    ShardIn& in = r.Add(r.ShardFor(prefix));
    in.op = ShardIn::Op::kWithdraw;
    in.family = slot_;
    in.peer_id = peer_id_;
    in.prefix = prefix;
    in.arrival_ns = stage::CurrentArrival();
    return true;
  }
  void Push() override;

 private:
  ShardedRouting* owner_;
  Family* family_;
  uint8_t slot_;
  uint32_t peer_id_;
  absl::flat_hash_set<net::Prefix> originated_;  // the local input's
};

// --- One family, as BgpPeer and BgpRouting see it -----------------------------------------------

class ShardedRouting::Family : public FamilyRouting {
 public:
  Family(ShardedRouting* owner, int slot, uint32_t rib_branch)
      : owner_(owner), slot_(slot), local_(owner, this, slot, 0) {
    if (owner_->services_.rib != nullptr) MakeRibOut(rib_branch);
  }

  net::Family family() const override { return FamilyOf(slot_); }

  void SetRouter(const RouterSettings& router) override {
    const int slot = slot_;
    owner_->runner_->CommandAll(
        [slot, router](Worker& w, int) { w.pipes[slot]->SetRouter(router); });
    owner_->runner_->Flush();
  }

  void AddPeer(const PeerSettings& s) override {
    if (peers_.contains(s.peer_id)) return;
    PeerState& st = peers_[s.peer_id];
    st.settings = s;
    st.counts = std::make_shared<PublishedCounts>(owner_->threads());
    st.input = std::make_unique<Input>(owner_, this, slot_, s.peer_id);
    st.SawPolicies();
    const int slot = slot_;
    std::shared_ptr<PublishedCounts> counts = st.counts;
    Runner& r = *owner_->runner_;
    r.CommandAll([slot, s, counts](Worker& w, int) {
      w.pipes[slot]->AddPeer(s);
      Worker::PeerEntry& e = w.peers[s.peer_id];
      e.in[slot] = w.pipes[slot]->peer_in(s.peer_id);
      e.counts[slot] = counts;
    });
    r.Flush();
  }

  void UpdatePeer(const PeerSettings& s) override {
    auto it = peers_.find(s.peer_id);
    if (it == peers_.end()) return;
    it->second.settings = s;
    it->second.SawPolicies();
    const int slot = slot_;
    owner_->runner_->CommandAll([slot, s](Worker& w, int) {
      w.PushPeer(s.peer_id);
      w.pipes[slot]->UpdatePeer(s);
    });
    owner_->runner_->Flush();
  }

  void RemovePeer(uint32_t peer_id) override {
    auto it = peers_.find(peer_id);
    if (it == peers_.end()) return;
    if (it->second.up) PeerDown(peer_id);
    const int slot = slot_;
    owner_->runner_->CommandAll([slot, peer_id](Worker& w, int) {
      w.PushPeer(peer_id);
      w.pipes[slot]->RemovePeer(peer_id);
      auto e = w.peers.find(peer_id);
      if (e == w.peers.end()) return;
      e->second.in[slot] = nullptr;
      e->second.counts[slot] = nullptr;
      if (e->second.in[0] == nullptr && e->second.in[1] == nullptr) w.peers.erase(e);
    });
    owner_->runner_->Flush();
    peers_.erase(it);
  }

  void PeerUp(uint32_t peer_id, const PeerSource* source, SessionSender* sender,
              const EstablishedInfo& info) override {
    auto it = peers_.find(peer_id);
    if (it == peers_.end()) return;
    PeerState& st = it->second;
    if (st.up) PeerDown(peer_id);
    st.up = true;
    st.branch = owner_->NewBranch();
    auto control = std::make_unique<Control>(owner_->runner_.get(), st.branch);
    st.out = owner_->services_.plumber->Make<PeerOut>(
        Name(slot_, "PeerOut", st.settings.name), owner_->services_.plumber->io(), sender,
        info.params, AfiSafi{AfiOf(family()), Safi::kUnicast}, control.get(), &kNoPrefixes,
        owner_->options_.peer_out);
    Consumer* c = owner_->AddConsumer(st.branch, st.out, st.out, owner_->threads());
    c->control = std::move(control);
    const int slot = slot_;
    const uint32_t branch = st.branch;
    owner_->runner_->CommandAll([slot, peer_id, source, info, branch](Worker& w, int) {
      w.next_branch = branch;
      w.pipes[slot]->PeerUp(peer_id, source, nullptr, info);
      w.Publish(slot, peer_id);
    });
    owner_->runner_->Flush();
  }

  void PeerDown(uint32_t peer_id) override { Down(peer_id, false); }
  void PeerDownGraceful(uint32_t peer_id) override { Down(peer_id, true); }

  void Down(uint32_t peer_id, bool graceful) {
    auto it = peers_.find(peer_id);
    if (it == peers_.end() || !it->second.up) return;
    PeerState& st = it->second;
    st.up = false;
    owner_->RemoveConsumer(st.branch);
    st.out = nullptr;
    const int slot = slot_;
    owner_->runner_->CommandAll([slot, peer_id, graceful](Worker& w, int) {
      w.PushPeer(peer_id);
      if (graceful) {
        w.pipes[slot]->PeerDownGraceful(peer_id);
      } else {
        w.pipes[slot]->PeerDown(peer_id);
      }
      w.Publish(slot, peer_id);
    });
    owner_->runner_->Flush();
  }

  void SweepStale(uint32_t peer_id) override {
    if (!peers_.contains(peer_id)) return;
    const int slot = slot_;
    owner_->runner_->CommandAll([slot, peer_id](Worker& w, int) {
      w.pipes[slot]->SweepStale(peer_id);
      w.Publish(slot, peer_id);
    });
    owner_->runner_->Flush();
  }

  void InputDown(uint32_t peer_id) override {
    auto it = peers_.find(peer_id);
    if (it == peers_.end() || !it->second.up) return;
    const int slot = slot_;
    owner_->runner_->CommandAll([slot, peer_id](Worker& w, int) {
      w.PushPeer(peer_id);
      w.pipes[slot]->InputDown(peer_id);
      w.Publish(slot, peer_id);
    });
    owner_->runner_->Flush();
  }

  RouteInput* input(uint32_t peer_id) override {
    auto it = peers_.find(peer_id);
    return it == peers_.end() || !it->second.up ? nullptr : it->second.input.get();
  }

  void RouteRefresh(uint32_t peer_id) override {
    auto it = peers_.find(peer_id);
    if (it == peers_.end() || !it->second.up) return;
    const int slot = slot_;
    owner_->runner_->CommandAll(
        [slot, peer_id](Worker& w, int) { w.pipes[slot]->RouteRefresh(peer_id); });
    owner_->runner_->Flush();
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

  RouteInput* local_input() override { return &local_; }

  void RibBorn() override {
    if (owner_->services_.rib == nullptr) return;
    if (rib_branch_ != 0) owner_->RemoveConsumer(rib_branch_);
    const uint32_t branch = owner_->NewBranch();
    MakeRibOut(branch);
    const int slot = slot_;
    owner_->runner_->CommandAll([slot, branch](Worker& w, int) {
      w.next_branch = branch;
      w.pipes[slot]->RibBorn();
    });
    owner_->runner_->Flush();
  }
  RibOut* rib_out() { return rib_out_; }

  // Every shard's RIB branch dumped and caught up, and the loop's RibOut empty. (Changes in the
  // hand-over from a shard to the loop at this moment are not seen: callers poll.)
  bool RibSynced() override {
    if (rib_out_ == nullptr) return true;
    const int slot = slot_;
    for (bool synced :
         owner_->runner_->QueryAll([slot](Worker&w, int) { return w.pipes[slot]->RibSynced(); })) {
      if (!synced) return false;
    }
    return rib_out_->waiting() == 0;
  }
  void RibSyncedAsync(std::function<void(bool synced)> done) override {
    if (rib_out_ == nullptr) return done(true);
    const int slot = slot_;
    owner_->runner_->QueryAllAsync(
        [slot](Worker& w, int) { return w.pipes[slot]->RibSynced(); },
        [this, done = std::move(done)](std::vector<bool> synced) {
          done(std::find(synced.begin(), synced.end(), false) == synced.end() &&
               rib_out_->waiting() == 0);
        });
  }

  void ReadRoutesAsync(const RouteQuery& q, uint32_t peer_id, RoutesDone done) override {
    const int slot = slot_;
    using Page = absl::StatusOr<std::vector<BgpRoute>>;
    Runner& r = *owner_->runner_;
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
    Runner& r = *owner_->runner_;
    r.QueryAsync(
        r.ShardFor(prefix), [slot, prefix](Worker& w) { return w.pipes[slot]->Candidates(prefix); },
        std::move(done));
  }

  absl::StatusOr<std::vector<BgpRoute>> ReadRoutes(const RouteQuery& q, uint32_t peer_id) override {
    const int slot = slot_;
    using Page = absl::StatusOr<std::vector<BgpRoute>>;
    Runner& r = *owner_->runner_;
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
    Runner& r = *owner_->runner_;
    return r.Query(r.ShardFor(prefix),
                   [slot, &prefix](Worker& w) { return w.pipes[slot]->Candidates(prefix); });
  }

  std::string DescribeShards() const override {
    if (slot_ == 1 && owner_->families_[0] != nullptr) return {};  // said once for both
    std::vector<std::string> parts = owner_->runner_->QueryAll([](Worker& w, int i) {
      std::string text = w.ctx->plumber().Describe();
      return absl::StrCat("shard ", i, ":\n", text);
    });
    std::string out;
    for (const std::string& p : parts) out += p;
    return out;
  }

  // Each shard's copy in turn, on its thread (Query: after the routes sent to it before).
  void ForEachPipeline(const std::function<void(FamilyPipeline&, stage::Plumber&)>& fn) override {
    const int slot = slot_;
    Runner& r = *owner_->runner_;
    for (int i = 0; i < r.shards(); ++i) {
      r.Query(i, [slot, &fn](Worker& w) { fn(*w.pipes[slot], w.ctx->plumber()); });
    }
  }
  void ForEachPipelineAsync(CopyFn fn, std::function<void()> done) override {
    const int slot = slot_;
    owner_->runner_->QueryAllAsync(
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
    owner_->runner_->CommandAll([slot, peer_id](Worker& w, int) {
      if (PeerIn* in = w.InputOf(slot, peer_id)) in->Push();
    });
  }
  void CheckExports() {
    for (auto& [peer_id, st] : peers_) {
      if (!st.up || st.settings.export_policy == nullptr) continue;
      if (!st.exports.PollNew()) continue;
      const int slot = slot_;
      const uint32_t id = peer_id;
      owner_->runner_->CommandAll([slot, id](Worker& w, int) {
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

  void MakeRibOut(uint32_t branch) {
    rib_branch_ = branch;
    ++rib_generation_;
    auto control = std::make_unique<Control>(owner_->runner_.get(), branch);
    const std::string name = rib_generation_ == 1 ? "rib" : absl::StrCat("rib#", rib_generation_);
    rib_out_ = owner_->services_.plumber->Make<RibOut>(
        Name(slot_, "RibOut", name), owner_->services_.rib, family(), control.get(),
        owner_->options_.rib_out, owner_->services_.profiler);
    Consumer* c = owner_->AddConsumer(branch, rib_out_, nullptr, owner_->threads());
    c->control = std::move(control);
  }

  ShardedRouting* owner_;
  int slot_;
  Input local_;
  std::map<uint32_t, PeerState> peers_;
  uint32_t rib_branch_ = 0;
  int rib_generation_ = 0;
  RibOut* rib_out_ = nullptr;
};

void ShardedRouting::Input::Push() {
  owner_->EndOfBatch();
  if (peer_id_ == 0) return;
  family_->CheckImport(peer_id_);
  owner_->counts_pending_.emplace_back(owner_->runner_->epoch(), peer_id_);
}

// --- ShardedRouting
// -------------------------------------------------------------------------------

ShardedRouting::ShardedRouting(int threads, const RouterSettings& router, PipelineServices services,
                               PipelineOptions options, std::array<bool, 2> families)
    : router_(router), services_(services), options_(options) {
  std::array<uint32_t, 2> rib_branches = {NewBranch(), NewBranch()};
  stage::ShardOptions so;
  so.shards = std::max(1, threads);
  so.batch_items = options_.shard_batch;
  so.max_backlog = options_.shard_backlog;
  so.inline_single = false;
  so.name = "bgp-shard";
  Runner::Callbacks cb;
  cb.make = [this, families, rib_branches](Runner::Context& ctx) {
    auto w = std::make_unique<Worker>();
    w->ctx = &ctx;
    w->has_rib = services_.rib != nullptr;
    PipelineServices ps = services_;
    ps.plumber = &ctx.plumber();
    ps.rib = nullptr;
    ps.tails = w.get();
    for (int slot = 0; slot < 2; ++slot) {
      if (!families[slot]) continue;
      w->next_branch = rib_branches[slot];
      w->pipes[slot] = std::make_unique<FamilyPipeline>(FamilyOf(slot), router_, ps, options_);
    }
    return w;
  };
  cb.process = [](Worker& w, std::span<ShardIn> items) { w.Process(items); };
  cb.end_epoch = [](Worker& w, uint64_t) { w.EndEpoch(); };
  cb.deliver = [this](int shard, std::span<ShardOut> items) { Deliver(shard, items); };
  cb.delivered = [this] { Delivered(); };
  cb.backpressure = [this](bool full) {
    if (backpressure_) backpressure_(full);
  };
  runner_ = std::make_unique<Runner>(services_.plumber->io(), so, std::move(cb));
  for (int slot = 0; slot < 2; ++slot) {
    if (families[slot]) families_[slot] = std::make_unique<Family>(this, slot, rib_branches[slot]);
  }
}

ShardedRouting::~ShardedRouting() {
  runner_.reset();  // the shards' stages go first, on their threads
  families_ = {};
}

FamilyRouting* ShardedRouting::family(int slot) { return families_[slot].get(); }

int ShardedRouting::threads() const { return runner_->shards(); }

void ShardedRouting::Settle() { runner_->Settle(); }

std::vector<stage::Plumber::QueueDepth> ShardedRouting::QueueDepths() const {
  std::vector<stage::Plumber::QueueDepth> out;
  for (int i = 0; i < runner_->shards(); ++i) {
    out.push_back({absl::StrCat("shard ", i, " input"), "ShardInput", runner_->backlog(i)});
    // The pipelines were made before the runner's constructor returned; each Fanout lives as
    // long as its pipeline, and published_queued() is an atomic.
    for (const std::unique_ptr<FamilyPipeline>& pipe : runner_->shard(i).pipes) {
      if (pipe == nullptr) continue;
      const Fanout* fanout = pipe->fanout();
      out.push_back(
          {absl::StrCat("shard ", i, " ", fanout->name()), "Fanout", fanout->published_queued()});
    }
  }
  return out;
}

std::vector<std::string> ShardedRouting::Violations() {
  std::vector<std::vector<std::string>> per_shard = runner_->QueryAll([](Worker& w, int) {
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

ShardedRouting::Consumer* ShardedRouting::AddConsumer(uint32_t branch, BranchTail* stage,
                                                      PeerOut* out, int dumps) {
  auto c = std::make_unique<Consumer>();
  c->branch = branch;
  c->stage = stage;
  c->out = out;
  c->dumps_pending = dumps;
  Consumer* raw = c.get();
  consumers_[branch] = std::move(c);
  return raw;
}

void ShardedRouting::RemoveConsumer(uint32_t branch) {
  auto it = consumers_.find(branch);
  if (it == consumers_.end()) return;
  std::unique_ptr<Consumer> c = std::move(it->second);
  consumers_.erase(it);
  c->dead = true;
  std::erase(touched_, c.get());
  services_.plumber->Retire(c->stage);
  // The stage goes after the current event; its Control (the stage's reader) after that.
  dead_.push_back(std::move(c));
  Consumer* raw = dead_.back().get();
  boost::asio::post(services_.plumber->io(), [this, raw, alive = std::weak_ptr<int>(alive_)] {
    if (alive.expired()) return;
    std::erase_if(dead_, [raw](const std::unique_ptr<Consumer>& d) { return d.get() == raw; });
  });
}

void ShardedRouting::Deliver(int, std::span<ShardOut> items) {
  Consumer* c = nullptr;
  uint32_t branch = 0;
  for (ShardOut& o : items) {
    if (c == nullptr || o.branch != branch) {
      auto it = consumers_.find(o.branch);
      c = it == consumers_.end() ? nullptr : it->second.get();
      branch = o.branch;
    }
    if (c == nullptr || c->dead) continue;  // a branch that went away
    if (!c->touched) {
      c->touched = true;
      touched_.push_back(c);
    }
    // A long burst (the shards catching up) is pushed every kPushEvery changes of a branch: its
    // PeerOut's batch, and what that holds per change, stays small.
    if (++c->changes >= kPushEvery) {
      c->changes = 0;
      c->stage->push(nullptr);
      if (c->dead) continue;
    }
    ToStage(*c, o);
    // The item's references go here, on the loop that just used the sets, not when the shard
    // reuses the item.
    o.old_route.attrs.reset();
    o.new_route.attrs.reset();
  }
}

// The stage contract, and the branch tail's End-of-RIB (once every shard's dump is done) and
// refresh answers.
void ShardedRouting::ToStage(Consumer& c, const ShardOut& o) {
  stage::ArrivalScope arrival(o.arrival_ns);
  switch (o.kind) {
    case ShardOut::Kind::kAdd:
      c.stage->add_route(o.new_route, nullptr);
      break;
    case ShardOut::Kind::kDelete:
      c.stage->delete_route(o.old_route, nullptr);
      break;
    case ShardOut::Kind::kReplace:
      c.stage->replace_route(o.old_route, o.new_route, nullptr);
      break;
    case ShardOut::Kind::kReadvertise:
      c.stage->Readvertise(o.new_route);
      break;
    case ShardOut::Kind::kEndOfRib:
      if (--c.dumps_pending == 0) c.stage->EndOfRib();
      break;
  }
}

void ShardedRouting::Delivered() {
  uint32_t last = 0;  // a peer's run of UPDATEs is announced once
  while (!counts_pending_.empty() && counts_pending_.front().first <= runner_->delivered_epoch()) {
    const uint32_t peer_id = counts_pending_.front().second;
    counts_pending_.pop_front();
    if (peer_id != last && counts_changed_) counts_changed_(peer_id);
    last = peer_id;
  }
  // The serial pipeline pushes a peer's PeerOut once per fanout slice; here every epoch delivered
  // in this turn of the event loop goes out in one push, so that prefixes of one attribute set
  // from every shard and every UPDATE delivered together share UPDATEs (Juniper's update threads).
  if (touched_.empty() || push_posted_) return;
  push_posted_ = true;
  boost::asio::post(services_.plumber->io(), [this, alive = std::weak_ptr<int>(alive_)] {
    if (alive.expired()) return;
    push_posted_ = false;
    PushTouched();
  });
}

void ShardedRouting::PushTouched() {
  for (size_t i = 0; i < touched_.size(); ++i) {
    Consumer* c = touched_[i];
    c->touched = false;
    c->changes = 0;
    if (!c->dead) c->stage->push(nullptr);
  }
  touched_.clear();
}

void ShardedRouting::EndOfBatch() {
  runner_->EndEpoch();
  if (++pushes_ % kExportCheckEvery == 0) {
    for (auto& f : families_) {
      if (f != nullptr) f->CheckExports();
    }
  }
}

}  // namespace sluice::bgp
