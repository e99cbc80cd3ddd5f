#pragma once
// The ports of a ShardStage (shard_stage.h) as the shards see them: what crosses threads, and
// the stages at the two ends of a shard's sub-network.
//
//   ShardInput     event loop → shard: one change an input port received (add or delete)
//   ShardOutput    shard → event loop: one change at an output port's exit in one shard, a signal
//                  about one route, or a barrier (see below)
//   ShardOutputs   one shard's way back to the loop, used by its exits
//   ShardPortExit  an exit as the loop's flow control reaches it
//   ShardEntry     the generic entry stage of an input port: keeps the routes it passed on
//   ShardExit      the generic exit stage of an output port: sends what reaches it to the loop
//   ShardNetwork   a shard's sub-network made of ShardEntries (what ShardStage needs of a shard)
//
// Signals and barriers carry what an output port's owner adds to the stage contract; the codes
// are the owner's. A signal is delivered with its route, in order with the port's changes. A
// barrier is delivered once every shard has raised it (an initial dump that ends in every shard).

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "stage/stage.h"

namespace sluice::stage {

template <StageRoute Route>
struct ShardInput {
  enum class Op : uint8_t { kAdd, kDelete };
  Op op = Op::kAdd;
  uint32_t port = 0;
  // kAdd: the route (it replaces the port's earlier route for the prefix, if any); kDelete: the
  // route withdrawn (its prefix is what counts).
  Route route;
  int64_t arrival_ns = 0;  // stage/route_arrival.h; 0 unknown
};

// What a replace's output keeps of the old route until the loop delivers it: by default the whole
// route. Every change waiting for the loop holds one, so its size is what a burst of changes keeps
// in memory and carries from a shard's core to the loop's. A route type whose ports' downstream
// stages read only part of an old route may specialise this to keep that part:
//   Keep(old_route)              on the shard: what to keep of the old route
//   Restore(kept, new_route)     on the loop: the old route its downstream's replace_route gets
template <StageRoute Route>
struct ShardOldRoute {
  Route route;
  static ShardOldRoute Keep(Route&& old_route) { return ShardOldRoute{std::move(old_route)}; }
  static Route Restore(ShardOldRoute&& kept, const Route&) { return std::move(kept.route); }
};

template <StageRoute Route>
struct ShardOutput {
  enum class Op : uint8_t { kAdd, kDelete, kReplace, kSignal, kBarrier };
  Op op = Op::kAdd;
  uint8_t code = 0;  // kSignal, kBarrier: the port owner's
  uint32_t port = 0;
  // kAdd and kReplace: the new route; kDelete: the route deleted; kSignal: the signal's route.
  Route route;
  ShardOldRoute<Route> old;  // kReplace: the route replaced
  int64_t arrival_ns = 0;
};

class ShardPortExit {
 public:
  virtual ~ShardPortExit() = default;
  // The port's consumer on the loop is backed up (or no longer): hold changes back upstream.
  virtual void SetBlocked(bool blocked) = 0;
};

// On the shard's thread only.
template <StageRoute Route>
class ShardOutputs {
 public:
  virtual ~ShardOutputs() = default;
  // Appends an output of `port` (its arrival: the current one); it leaves with the current
  // epoch's outputs.
  virtual ShardOutput<Route>& Emit(uint32_t port, typename ShardOutput<Route>::Op op) = 0;
  // Outputs made outside the processing of input (a background slice) leave once the current
  // handler returns; call after emitting them.
  virtual void Flush() = 0;
  // `exit` is `port`'s exit in this shard until Detach (it is told SetBlocked(true) at once if
  // the port is blocked).
  virtual void Attach(uint32_t port, ShardPortExit* exit) = 0;
  virtual void Detach(uint32_t port) = 0;
};

// The head of an input port's branch in one shard: the routes the port sent to this shard
// (its share of the upstream table — the one place the shard stage stores routes, so nothing in
// a shard reads another thread's state). An add for a prefix it holds goes on as a replace.
template <StageRoute Route>
class ShardEntry : public LinearStage<Route> {
 public:
  using LinearStage<Route>::LinearStage;
  std::string_view kind() const override { return "ShardEntry"; }
  std::string Status() const override { return "routes=" + std::to_string(routes_.size()); }

  void Apply(const ShardInput<Route>& in) {
    if (in.op == ShardInput<Route>::Op::kDelete) {
      auto it = routes_.find(in.route.prefix());
      if (it == routes_.end()) return;
      const Route old = std::move(it->second);
      routes_.erase(it);
      if (this->downstream_ != nullptr) this->downstream_->delete_route(old, this);
      return;
    }
    auto [it, added] = routes_.try_emplace(in.route.prefix(), in.route);
    if (added) {
      if (this->downstream_ != nullptr) this->downstream_->add_route(in.route, this);
      return;
    }
    const Route old = std::exchange(it->second, in.route);
    if (this->downstream_ != nullptr) this->downstream_->replace_route(old, in.route, this);
  }
  std::optional<Route> lookup_route(const net::Prefix& prefix) const override {
    auto it = routes_.find(prefix);
    if (it == routes_.end()) return std::nullopt;
    return it->second;
  }

 private:
  absl::flat_hash_map<net::Prefix, Route> routes_;
};

// The tail of an output port's branch in one shard.
template <StageRoute Route>
class ShardExit : public LinearStage<Route>, public ShardPortExit {
 public:
  using Op = typename ShardOutput<Route>::Op;
  ShardExit(std::string name, ShardOutputs<Route>* outputs, uint32_t port)
      : LinearStage<Route>(std::move(name)), outputs_(outputs), port_(port) {
    outputs_->Attach(port_, this);
  }
  ~ShardExit() override { outputs_->Detach(port_); }
  std::string_view kind() const override { return "ShardExit"; }
  std::string Status() const override { return blocked_ ? "blocked" : ""; }
  bool blocked() const { return blocked_; }

  void add_route(const Route& route, Stage<Route>*) override {
    outputs_->Emit(port_, Op::kAdd).route = route;
  }
  void delete_route(const Route& route, Stage<Route>*) override {
    outputs_->Emit(port_, Op::kDelete).route = route;
  }
  void replace_route(const Route& old_route, const Route& new_route, Stage<Route>*) override {
    ShardOutput<Route>& o = outputs_->Emit(port_, Op::kReplace);
    o.old = ShardOldRoute<Route>::Keep(Route(old_route));
    o.route = new_route;
  }
  void push(Stage<Route>*) override { outputs_->Flush(); }
  void SetBlocked(bool blocked) override { blocked_ = blocked; }

 private:
  ShardOutputs<Route>* outputs_;
  uint32_t port_;
  bool blocked_ = false;
};

// A shard's sub-network whose input ports end in ShardEntries: what ShardStage asks of a shard
// (Process, EndInput) for sub-networks of plain stages.
template <StageRoute Route>
class ShardNetwork {
 public:
  // `entry` takes the input of `port` from now on.
  void SetEntry(uint32_t port, ShardEntry<Route>* entry) { entries_[port] = entry; }

  void Process(std::span<ShardInput<Route>> items) {
    ShardEntry<Route>* last = nullptr;
    for (const ShardInput<Route>& in : items) {
      auto it = entries_.find(in.port);
      if (it == entries_.end()) continue;
      if (it->second != last) Touch(it->second);
      last = it->second;
      last->Apply(in);
    }
  }
  // The end of one upstream batch: every entry it reached pushes.
  void EndInput() {
    std::vector<ShardEntry<Route>*> touched;
    touched.swap(touched_);
    for (ShardEntry<Route>* e : touched) e->push(nullptr);
  }

 private:
  void Touch(ShardEntry<Route>* entry) {
    if (std::find(touched_.begin(), touched_.end(), entry) == touched_.end()) {
      touched_.push_back(entry);
    }
  }

  absl::flat_hash_map<uint32_t, ShardEntry<Route>*> entries_;
  std::vector<ShardEntry<Route>*> touched_;
};

}  // namespace sluice::stage
