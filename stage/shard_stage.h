#pragma once
// ShardStage: a stage like any other whose downstream is N copies of a sub-network, one per
// worker thread (DESIGN.md § The shard stage). A route goes to shard ShardOf(prefix, N),
// so every route of one prefix is handled by one shard and no shard needs a lock on another's
// state; the shards' outputs meet again on the event loop and go on downstream.
//
//   upstream → ShardStage ─┬─ shard 0: ShardEntry → [sub-network] → ShardExit ─┐
//                          ├─ shard 1: ...                                      ├→ ShardStage →
//                          downstream └─ ...                                               ┘
//
// The factory builds one copy of the sub-network on each shard's thread, with the shard's
// Plumber and loop (background tasks of its stages run there), between the given entry and exit.
// Changes cross threads in batches (shard_runner.h); push() from upstream ends a batch: each
// shard processes its part and pushes, and downstream gets every shard's results of that batch
// and then one push.
//
// Consistency: each shard's sub-network keeps the rules on its part of the prefixes, and one
// prefix's changes come back in the order its shard made them, so the stream downstream keeps
// them too. Lookups:
//   - inside a shard, stages look up as far as the ShardEntry, which keeps the routes it passed
//     on (the shard's share of the upstream table — the one place this stage stores routes, so
//     that nothing in a shard ever reads another thread's state);
//   - from downstream, lookup_route(prefix) runs on the owning shard's thread (the event loop
//     waits for it) and answers what that shard's sub-network has sent out: exact once the
//     shard's outputs in flight have been delivered (after a push has gone through, or Settle()).
// With N = 1 there is no worker thread and each batch is processed when it is pushed.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "stage/shard_runner.h"
#include "stage/stage.h"

namespace sluice::stage {

// The head of a shard's sub-network: the routes the ShardStage sends to this shard.
template <StageRoute Route>
class ShardEntry : public LinearStage<Route> {
 public:
  using LinearStage<Route>::LinearStage;
  std::string_view kind() const override { return "ShardEntry"; }
  std::string Status() const override { return "routes=" + std::to_string(routes_.size()); }

  void add_route(const Route& route, Stage<Route>* caller) override {
    routes_.insert_or_assign(route.prefix(), route);
    LinearStage<Route>::add_route(route, caller);
  }
  void delete_route(const Route& route, Stage<Route>* caller) override {
    routes_.erase(route.prefix());
    LinearStage<Route>::delete_route(route, caller);
  }
  void replace_route(const Route& old_route, const Route& new_route,
                     Stage<Route>* caller) override {
    routes_.insert_or_assign(new_route.prefix(), new_route);
    LinearStage<Route>::replace_route(old_route, new_route, caller);
  }
  std::optional<Route> lookup_route(const net::Prefix& prefix) const override {
    auto it = routes_.find(prefix);
    if (it == routes_.end()) return std::nullopt;
    return it->second;
  }

 private:
  absl::flat_hash_map<net::Prefix, Route> routes_;
};

template <StageRoute Route>
class ShardStage : public LinearStage<Route> {
 public:
  // What crosses threads: one change (add: new only; delete: old only; replace: both).
  struct Change {
    std::optional<Route> old_route;
    std::optional<Route> new_route;
  };

  // The tail of a shard's sub-network: sends what reaches it back to the event loop.
  class ShardExit : public LinearStage<Route> {
   public:
    ShardExit(std::string name, typename ShardRunner<ShardExit, Change, Change>::Context* ctx)
        : LinearStage<Route>(std::move(name)), ctx_(ctx) {}
    std::string_view kind() const override { return "ShardExit"; }
    void add_route(const Route& route, Stage<Route>*) override {
      ctx_->Emit({std::nullopt, route});
    }
    void delete_route(const Route& route, Stage<Route>*) override {
      ctx_->Emit({route, std::nullopt});
    }
    void replace_route(const Route& old_route, const Route& new_route, Stage<Route>*) override {
      ctx_->Emit({old_route, new_route});
    }
    void push(Stage<Route>*) override { ctx_->Flush(); }
    ShardEntry<Route>* entry = nullptr;

   private:
    typename ShardRunner<ShardExit, Change, Change>::Context* ctx_;
  };

  using Runner = ShardRunner<ShardExit, Change, Change>;
  // Builds one shard's sub-network: stages made with `plumber` (the shard's; its io() is the
  // shard's loop), plumbed from `entry` to `exit` (Plumber::Plumb entry → ... → exit).
  using Factory =
      std::function<void(int shard, Plumber& plumber, ShardEntry<Route>* entry, ShardExit* exit)>;

  ShardStage(std::string name, boost::asio::io_context& io, ShardOptions options, Factory factory)
      : LinearStage<Route>(name) {
    options.name = options.name == "shard" ? name : options.name;
    typename Runner::Callbacks cb;
    cb.make = [name, factory](typename Runner::Context& ctx) {
      Plumber& p = ctx.plumber();
      const std::string suffix = "#" + std::to_string(ctx.index());
      auto* entry = p.template Make<ShardEntry<Route>>(name + " entry" + suffix);
      auto exit = std::make_unique<ShardExit>(name + " exit" + suffix, &ctx);
      exit->entry = entry;
      factory(ctx.index(), p, entry, exit.get());
      return exit;
    };
    cb.process = [](ShardExit& exit, std::span<Change> changes) {
      ShardEntry<Route>* entry = exit.entry;
      for (Change& c : changes) {
        if (c.old_route && c.new_route) {
          entry->replace_route(*c.old_route, *c.new_route, nullptr);
        } else if (c.old_route) {
          entry->delete_route(*c.old_route, nullptr);
        } else if (c.new_route) {
          entry->add_route(*c.new_route, nullptr);
        }
      }
    };
    cb.end_epoch = [](ShardExit& exit, uint64_t) { exit.entry->push(nullptr); };
    cb.deliver = [this](int, std::span<Change> changes) {
      if (this->downstream_ == nullptr) return;
      for (Change& c : changes) {
        if (c.old_route && c.new_route) {
          this->downstream_->replace_route(*c.old_route, *c.new_route, this);
        } else if (c.old_route) {
          this->downstream_->delete_route(*c.old_route, this);
        } else if (c.new_route) {
          this->downstream_->add_route(*c.new_route, this);
        }
      }
    };
    cb.delivered = [this] {
      if (this->downstream_ != nullptr) this->downstream_->push(this);
    };
    runner_ = std::make_unique<Runner>(io, std::move(options), std::move(cb));
  }

  std::string_view kind() const override { return "Shard"; }
  std::string Status() const override { return "shards=" + std::to_string(runner_->shards()); }
  int shards() const { return runner_->shards(); }
  Runner& runner() { return *runner_; }

  void add_route(const Route& route, Stage<Route>*) override {
    Change& c = runner_->Add(runner_->ShardFor(route.prefix()));
    c.old_route.reset();
    c.new_route = route;
  }
  void delete_route(const Route& route, Stage<Route>*) override {
    Change& c = runner_->Add(runner_->ShardFor(route.prefix()));
    c.old_route = route;
    c.new_route.reset();
  }
  void replace_route(const Route& old_route, const Route& new_route, Stage<Route>*) override {
    Change& c = runner_->Add(runner_->ShardFor(new_route.prefix()));
    c.old_route = old_route;
    c.new_route = new_route;
  }
  void push(Stage<Route>*) override { runner_->EndEpoch(); }

  std::optional<Route> lookup_route(const net::Prefix& prefix) const override {
    return runner_->Query(runner_->ShardFor(prefix), [&prefix](ShardExit& exit) {
      auto* up = exit.upstream();
      return up != nullptr ? up->lookup_route(prefix) : std::optional<Route>();
    });
  }

  // Until every shard is idle and every output was delivered (tests).
  void Settle() { runner_->Settle(); }

 private:
  std::unique_ptr<Runner> runner_;
};

}  // namespace sluice::stage
