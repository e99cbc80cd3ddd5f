#pragma once
// ShardStage: the shard stage (DESIGN.md § The shard stage). N copies of a sub-network, one per
// worker thread, between input ports and output ports that keep the stage contract on the event
// loop. A route goes to shard ShardOf(prefix, N), so every route of one prefix is handled by one
// shard and no shard needs a lock on another's state; the shards' outputs meet again on the
// loop, in each output port's downstream stage.
//
//   upstream A → InputPort a ─┐        shard 0: ShardEntry(a) → [sub-network] → ShardExit(x) ─┐
//   upstream B → InputPort b ─┼─hash──▶ shard 1: ...                                          ├─▶
//                             ┘        ...                                                    ┘
//          OutputPort x → downstream X (every shard's changes of port x)
//          OutputPort y → downstream Y
//
// Input: an InputPort is a stage; add_route / delete_route / replace_route go to the owning
// shard, tagged with the port, and push() ends an epoch (one upstream batch) in every shard's
// stream. The shard (`Sub`, built by the factory on its thread) takes them through
// Process(std::span<ShardInput<Route>>) and, at each epoch's end, EndInput();
// ShardNetwork<Route> (shard_port.h) is such a shard for sub-networks of plain stages.
//
// Output: each shard's exits (ShardExit, or any stage that emits through the ShardOutputs it was
// given) hand their changes back. The loop delivers them epoch by epoch — every shard's changes
// of one upstream batch together, through the stage contract, into each port's downstream stage —
// and pushes every port that got changes once per turn of the event loop (and every 4,096
// changes of one port), so a merge point downstream (BGP's UPDATE packing) sees what every shard
// made of the batches delivered together. Signals go to the port's handler in order with its
// changes; a barrier goes to it once every shard has raised it.
//
// Lookups: inside a shard, stages look up as far as their input's entry (ShardEntry keeps the
// routes it passed on), so nothing in a shard reads another thread's state. A port's downstream
// does not look up through the port — that would wait for a shard — but keeps what it needs
// (PeerOut and RibOut do); an InputPort passes lookups to its upstream.
//
// Flow control: an OutputPort is its downstream stage's FlowControl. SetBlocked reaches every
// shard's exit of the port as a command, in order with the routes sent before it.
//
// Control and reads: Command/CommandAll run code on the shards' threads in order with the routes;
// runner().QueryAsync / QueryAllAsync read their state and answer on the loop later. Nothing here
// waits for a shard except runner().Query / QueryAll and Settle (tests, rare control).
//
// Backpressure: Hooks::backpressure(true) when a shard has more than ShardOptions::max_backlog
// items not yet processed (stop feeding), false once every such shard is down to half. A shard
// with more than that many outputs not yet delivered takes no input until they are down to half
// (ShardRunner), so its input waits and counts.
//
// Threads: everything here on the loop's thread, except the factory and what runs on a shard.

#include <boost/asio/post.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "stage/flow_control.h"
#include "stage/route_arrival.h"
#include "stage/shard_port.h"
#include "stage/shard_runner.h"

namespace sluice::stage {

template <StageRoute Route, class Sub>
class ShardStage {
  class Side;

 public:
  using In = ShardInput<Route>;
  using Out = ShardOutput<Route>;
  using Runner = ShardRunner<Sub, In, Out>;
  using Context = typename Runner::Context;
  // Builds shard ctx.index()'s sub-network on its thread: its stages made with ctx.plumber(), its
  // exits given `outputs`.
  using Factory = std::function<std::unique_ptr<Sub>(Context& ctx, ShardOutputs<Route>& outputs)>;

  struct Hooks {
    std::function<void(bool full)> backpressure;
    // After each delivery round, before the ports it reached are pushed.
    std::function<void()> delivered;
  };

  // Changes one port delivers before it is pushed within a long burst (a shard catching up): the
  // downstream's batch, and what it holds per change, stays small. The push waits for the end of
  // the epoch being delivered, so that every shard's changes of one upstream batch (the halves of
  // one UPDATE received) reach the downstream in one batch.
  static constexpr uint64_t kPushEvery = 4096;

  class InputPort : public LinearStage<Route> {
   public:
    InputPort(std::string name, ShardStage* owner, uint32_t port)
        : LinearStage<Route>(std::move(name)), owner_(owner), port_(port) {}
    std::string_view kind() const override { return "ShardInput"; }
    uint32_t port() const { return port_; }
    void add_route(const Route& route, Stage<Route>*) override { Send(In::Op::kAdd, route); }
    // Moved to the shard, not copied.
    void add_route(Route&& route, Stage<Route>*) override { Send(In::Op::kAdd, std::move(route)); }
    void delete_route(const Route& route, Stage<Route>*) override { Send(In::Op::kDelete, route); }
    // The shard's entry holds the old route: the new one is enough.
    void replace_route(const Route&, const Route& new_route, Stage<Route>*) override {
      Send(In::Op::kAdd, new_route);
    }
    void push(Stage<Route>*) override { owner_->runner_->EndEpoch(); }

   private:
    template <typename R>
    void Send(typename In::Op op, R&& route) {
      Runner& r = *owner_->runner_;
      In& in = r.Add(r.ShardFor(route.prefix()));
      in.op = op;
      in.port = port_;
      in.route = std::forward<R>(route);
      in.arrival_ns = CurrentArrival();
    }
    ShardStage* owner_;
    uint32_t port_;
  };

  class OutputPort : public FlowControl {
   public:
    struct Handlers {
      std::function<void(uint8_t code, const Route& route)> signal;
      std::function<void(uint8_t code)> barrier;  // once every shard raised it
    };
    OutputPort(ShardStage* owner, uint32_t port) : owner_(owner), port_(port) {}
    uint32_t port() const { return port_; }
    Stage<Route>* downstream() const { return downstream_; }
    // Where the port's changes go from now on (made after the port: the port is its flow
    // control), and who takes its signals and barriers.
    void Connect(Stage<Route>* downstream, Handlers handlers = {}) {
      downstream_ = downstream;
      handlers_ = std::move(handlers);
    }

    void SetBlocked(bool blocked) override {
      if (blocked == blocked_ || dead_) return;
      blocked_ = blocked;
      const uint32_t port = port_;
      ShardStage* owner = owner_;
      owner->runner_->CommandAll(
          [owner, port, blocked](Sub&, int i) { owner->sides_[i]->SetBlocked(port, blocked); });
      owner->runner_->Flush();
    }
    bool ready() const override { return !blocked_; }
    void WhenReady(std::function<void()> callback) override {
      if (!blocked_) callback();
    }

   private:
    friend class ShardStage;
    void Take(Out& o);

    ShardStage* owner_;
    uint32_t port_;
    Stage<Route>* downstream_ = nullptr;
    Handlers handlers_;
    bool blocked_ = false;
    bool dead_ = false;
    bool touched_ = false;
    uint64_t changes_ = 0;                        // delivered since the last push
    absl::flat_hash_map<uint8_t, int> barriers_;  // shards that raised each code
  };

  ShardStage(boost::asio::io_context& io, ShardOptions options, Factory factory, Hooks hooks = {})
      : io_(io), factory_(std::move(factory)), hooks_(std::move(hooks)) {
    for (int i = 0; i < std::max(1, options.shards); ++i) {
      sides_.push_back(std::make_unique<Side>());
    }
    typename Runner::Callbacks cb;
    cb.make = [this](Context& ctx) {
      Side& side = *sides_[ctx.index()];
      side.ctx = &ctx;
      return factory_(ctx, side);
    };
    cb.process = [](Sub& s, std::span<In> items) { s.Process(items); };
    cb.end_epoch = [](Sub& s, uint64_t) { s.EndInput(); };
    cb.deliver = [this](int, std::span<Out> items) { Deliver(items); };
    cb.delivered = [this] { Delivered(); };
    cb.backpressure = [this](bool full) {
      if (hooks_.backpressure) hooks_.backpressure(full);
    };
    runner_ = std::make_unique<Runner>(io, std::move(options), std::move(cb));
  }
  ~ShardStage() {
    *alive_ = false;
    runner_.reset();  // the shards' stages go first, on their threads (their exits detach)
  }
  ShardStage(const ShardStage&) = delete;
  ShardStage& operator=(const ShardStage&) = delete;

  int shards() const { return runner_->shards(); }
  Runner& runner() { return *runner_; }
  const Runner& runner() const { return *runner_; }

  // Ports are numbered by the owner (input and output ports share one space): the shards' stages
  // learn their port from the owner (in the factory, or in a command) before its loop side exists.
  // An input port is owned by the stage and lives as long as it.
  InputPort* AddInput(std::string name, uint32_t port) {
    inputs_.push_back(std::make_unique<InputPort>(std::move(name), this, port));
    return inputs_.back().get();
  }
  // The port is gone at once; what it sent before still reaches the shards, which drop input of
  // ports they no longer know.
  void RemoveInput(InputPort* port) {
    std::erase_if(inputs_, [port](const std::unique_ptr<InputPort>& p) { return p.get() == port; });
  }

  // Output port `port`: its changes go where OutputPort::Connect says (dropped until then).
  OutputPort* AddOutput(uint32_t port) {
    auto& slot = outputs_[port];
    slot = std::make_unique<OutputPort>(this, port);
    return slot.get();
  }
  // Stops delivering `port`'s changes (those in flight are dropped). The port — the downstream's
  // FlowControl — is destroyed after the current event, after a downstream retired before
  // this call (Plumber::Retire).
  void RemoveOutput(uint32_t port);

  // Runs `fn(sub, shard)` on every shard's thread, in order with the routes sent before; the
  // batches leave at the end of the current handler, or at Flush().
  void CommandAll(const std::function<void(Sub&, int)>& fn) { runner_->CommandAll(fn); }
  void Flush() { runner_->Flush(); }
  // Until every shard is idle and every output was delivered (tests, benchmarks).
  void Settle() { runner_->Settle(); }

 private:
  void Deliver(std::span<Out> items);
  void Delivered();
  void PushFull();  // at an epoch's end: the ports past kPushEvery changes
  void PushTouched();

  boost::asio::io_context& io_;
  Factory factory_;
  Hooks hooks_;
  std::vector<std::unique_ptr<Side>> sides_;  // sides_[i]: used on shard i's thread only
  std::unique_ptr<Runner> runner_;
  std::vector<std::unique_ptr<InputPort>> inputs_;
  absl::flat_hash_map<uint32_t, std::unique_ptr<OutputPort>> outputs_;
  std::vector<std::unique_ptr<OutputPort>> dead_;  // removed; freed after the current event
  std::vector<OutputPort*> touched_;
  bool push_posted_ = false;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);  // for handlers posted to the loop
};

// --- A shard's side of its ports -----------------------------------------------------------------

template <StageRoute Route, class Sub>
class ShardStage<Route, Sub>::Side final : public ShardOutputs<Route> {
 public:
  Context* ctx = nullptr;

  Out& Emit(uint32_t port, typename Out::Op op) override {
    Out& o = ctx->Emit();
    o.op = op;
    o.port = port;
    o.arrival_ns = CurrentArrival();
    return o;
  }
  void Flush() override { ctx->Flush(); }
  void Attach(uint32_t port, ShardPortExit* exit) override {
    exits_[port] = exit;
    if (blocked_early_.erase(port) > 0) exit->SetBlocked(true);
  }
  void Detach(uint32_t port) override { exits_.erase(port); }

  // A port blocked before this shard made its exit (a PeerOut born blocked) starts blocked.
  void SetBlocked(uint32_t port, bool blocked) {
    auto it = exits_.find(port);
    if (it != exits_.end()) {
      it->second->SetBlocked(blocked);
    } else if (blocked) {
      blocked_early_.insert(port);
    } else {
      blocked_early_.erase(port);
    }
  }

 private:
  absl::flat_hash_map<uint32_t, ShardPortExit*> exits_;
  absl::flat_hash_set<uint32_t> blocked_early_;
};

// --- The loop's side ---------------------------------------------------------------------------

template <StageRoute Route, class Sub>
void ShardStage<Route, Sub>::RemoveOutput(uint32_t port) {
  auto it = outputs_.find(port);
  if (it == outputs_.end()) return;
  std::unique_ptr<OutputPort> p = std::move(it->second);
  outputs_.erase(it);
  p->dead_ = true;
  std::erase(touched_, p.get());
  OutputPort* raw = p.get();
  dead_.push_back(std::move(p));
  boost::asio::post(io_, [this, raw, alive = std::weak_ptr<bool>(alive_)] {
    if (alive.expired()) return;
    std::erase_if(dead_, [raw](const std::unique_ptr<OutputPort>& d) { return d.get() == raw; });
  });
}

template <StageRoute Route, class Sub>
void ShardStage<Route, Sub>::Deliver(std::span<Out> items) {
  OutputPort* p = nullptr;
  uint32_t port = 0;
  for (Out& o : items) {
    if (p == nullptr || o.port != port) {
      auto it = outputs_.find(o.port);
      p = it == outputs_.end() ? nullptr : it->second.get();
      port = o.port;
    }
    if (p == nullptr || p->dead_ || p->downstream_ == nullptr) continue;  // gone, or not yet
    if (!p->touched_) {
      p->touched_ = true;
      touched_.push_back(p);
    }
    ++p->changes_;
    p->Take(o);
    // The item's references go here, on the loop that just used them, not when the shard reuses
    // the item.
    o.route = Route();
    o.old = {};
  }
}

template <StageRoute Route, class Sub>
void ShardStage<Route, Sub>::OutputPort::Take(Out& o) {
  ArrivalScope arrival(o.arrival_ns);
  switch (o.op) {
    case Out::Op::kAdd:
      downstream_->add_route(std::move(o.route), nullptr);
      break;
    case Out::Op::kDelete:
      downstream_->delete_route(o.route, nullptr);
      break;
    case Out::Op::kReplace: {
      Route old_route = ShardOldRoute<Route>::Restore(std::move(o.old), o.route);
      downstream_->replace_route(std::move(old_route), std::move(o.route), nullptr);
      break;
    }
    case Out::Op::kSignal:
      if (handlers_.signal) handlers_.signal(o.code, o.route);
      break;
    case Out::Op::kBarrier:
      if (++barriers_[o.code] < owner_->shards()) break;
      barriers_.erase(o.code);
      if (handlers_.barrier) handlers_.barrier(o.code);
      break;
  }
}

template <StageRoute Route, class Sub>
void ShardStage<Route, Sub>::Delivered() {
  PushFull();
  if (hooks_.delivered) hooks_.delivered();
  // Every epoch delivered in this turn of the event loop is pushed once, so that the changes of
  // every shard and every batch delivered together share the downstream's batch.
  if (touched_.empty() || push_posted_) return;
  push_posted_ = true;
  boost::asio::post(io_, [this, alive = std::weak_ptr<bool>(alive_)] {
    if (alive.expired()) return;
    push_posted_ = false;
    PushTouched();
  });
}

template <StageRoute Route, class Sub>
void ShardStage<Route, Sub>::PushFull() {
  bool any = false;
  for (const OutputPort* p : touched_) any = any || p->changes_ >= kPushEvery;
  if (!any) return;
  // A copy: a push can remove a port, and its entry in touched_, on the way.
  const std::vector<OutputPort*> touched = touched_;
  for (OutputPort* p : touched) {
    if (p->dead_ || p->changes_ < kPushEvery || p->downstream_ == nullptr) continue;
    p->changes_ = 0;
    p->downstream_->push(nullptr);
  }
}

template <StageRoute Route, class Sub>
void ShardStage<Route, Sub>::PushTouched() {
  std::vector<OutputPort*> touched;
  touched.swap(touched_);
  for (OutputPort* p : touched) {
    p->touched_ = false;
    p->changes_ = 0;
    if (!p->dead_ && p->downstream_ != nullptr) p->downstream_->push(nullptr);
  }
}

}  // namespace sluice::stage
