#pragma once
// The route stage contract (XORP NSDI'05 §5, DESIGN.md § Route stages).
//
// A process's routing table is a network of stages. Routes flow downstream through add_route,
// delete_route and replace_route; lookups flow upstream through lookup_route. Every stage keeps
// two consistency rules (XORP §5.1):
//   1. every delete_route it sends matches an earlier add_route it sent for that prefix, and an
//      add_route for a prefix it already announced is preceded by a delete (or sent as a
//      replace_route);
//   2. lookup_route(prefix) answers exactly what the stage has sent downstream for that prefix.
// A stage may assume its input keeps these rules and must keep them on its output. CacheStage
// checks both and can be plumbed anywhere in tests.
//
// Routes are values: a Route type provides `const net::Prefix& prefix() const`, equality and
// `std::string ToString() const`. Routes are stored only where they originate; other stages
// look upstream when they need one.
//
// `caller` names the upstream stage a call comes from, for stages with several parents
// (merge, decision). push(caller) marks the end of a batch: a stage that queues work flushes
// it, then calls push on its downstream stages.

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "net/prefix.h"

namespace sluice::stage {

template <class R>
concept StageRoute = std::equality_comparable<R> && requires(const R& r) {
  { r.prefix() } -> std::convertible_to<const net::Prefix&>;
  { r.ToString() } -> std::convertible_to<std::string>;
};

// What every stage is, whatever its route type: a name, a kind and its connections, for
// plumbing and for `sluice show plumbing`.
class StageBase {
 public:
  explicit StageBase(std::string name) : name_(std::move(name)) {}
  virtual ~StageBase() = default;
  StageBase(const StageBase&) = delete;
  StageBase& operator=(const StageBase&) = delete;

  const std::string& name() const { return name_; }
  // The stage's type as shown to operators: "PeerIn", "Merge", "Deletion", ...
  virtual std::string_view kind() const = 0;
  // One line of state for display ("routes=577706"); empty by default.
  virtual std::string Status() const { return {}; }
  // Route changes the stage holds waiting to go downstream or to be acknowledged (its queue or
  // backlog), for sluice_stage_queue_depth; nullopt for a stage that keeps no queue. Read on the
  // stage's own thread; cheap (a counter the stage keeps).
  virtual std::optional<uint64_t> queue_depth() const { return std::nullopt; }
  // Connections, for display and for the Plumber's checks.
  virtual std::vector<const StageBase*> upstream_stages() const = 0;
  virtual std::vector<const StageBase*> downstream_stages() const = 0;

  // A dynamic stage is temporary: plumbed in for one job (a deletion, a re-filter) and
  // spliced out by itself when done (XORP §5.1.2).
  bool dynamic() const { return dynamic_; }
  void set_dynamic(bool dynamic) { dynamic_ = dynamic; }

 private:
  std::string name_;
  bool dynamic_ = false;
};

template <StageRoute Route>
class Stage : public StageBase {
 public:
  using RouteType = Route;
  using StageBase::StageBase;

  // --- Route flow, called by an upstream stage -------------------------------------------
  virtual void add_route(const Route& route, Stage* caller) = 0;
  // add_route of a route its caller has no further use for. A stage that keeps what the route
  // holds may take it instead of copying: a copy of a route that holds counted references is paid
  // in atomic operations, and when another thread made the route, in cache lines taken from its
  // core. By default the same as add_route.
  virtual void add_route(Route&& route, Stage* caller) {
    add_route(static_cast<const Route&>(route), caller);
  }
  virtual void delete_route(const Route& route, Stage* caller) = 0;
  // An atomic delete of `old_route` and add of `new_route` for the same prefix.
  virtual void replace_route(const Route& old_route, const Route& new_route, Stage* caller) {
    delete_route(old_route, caller);
    add_route(new_route, caller);
  }
  // replace_route of routes its caller has no further use for (see add_route above). By default
  // the same as replace_route.
  virtual void replace_route(Route&& old_route, Route&& new_route, Stage* caller) {
    replace_route(static_cast<const Route&>(old_route), static_cast<const Route&>(new_route),
                  caller);
  }
  // End of a batch from `caller`.
  virtual void push(Stage* caller) = 0;

  // --- Lookups, called by a downstream stage ---------------------------------------------
  // The route this stage has sent downstream for exactly `prefix`, if any.
  virtual std::optional<Route> lookup_route(const net::Prefix& prefix) const = 0;

  // --- Connections, changed only by the Plumber ------------------------------------------
  // Stages with one upstream and one downstream inherit LinearStage; merge points and fanouts
  // override these to keep several.
  virtual void ConnectUpstream(Stage* upstream) = 0;
  virtual void ConnectDownstream(Stage* downstream) = 0;
  virtual void DisconnectUpstream(Stage* upstream) = 0;
  virtual void DisconnectDownstream(Stage* downstream) = 0;
  // Swap one connection for another in place, keeping its position among several.
  virtual void ReplaceUpstream(Stage* old_stage, Stage* new_stage) = 0;
  virtual void ReplaceDownstream(Stage* old_stage, Stage* new_stage) = 0;
};

// A stage with at most one upstream and one downstream. By default it passes every call
// through unchanged; subclasses override what they change.
template <StageRoute Route>
class LinearStage : public Stage<Route> {
 public:
  using Base = Stage<Route>;
  using Base::Base;

  void add_route(const Route& route, Base*) override {
    if (downstream_ != nullptr) downstream_->add_route(route, this);
  }
  void delete_route(const Route& route, Base*) override {
    if (downstream_ != nullptr) downstream_->delete_route(route, this);
  }
  void replace_route(const Route& old_route, const Route& new_route, Base*) override {
    if (downstream_ != nullptr) downstream_->replace_route(old_route, new_route, this);
  }
  void push(Base*) override {
    if (downstream_ != nullptr) downstream_->push(this);
  }
  std::optional<Route> lookup_route(const net::Prefix& prefix) const override {
    if (upstream_ == nullptr) return std::nullopt;
    return upstream_->lookup_route(prefix);
  }

  Base* upstream() const { return upstream_; }
  Base* downstream() const { return downstream_; }

  std::vector<const StageBase*> upstream_stages() const override {
    if (upstream_ == nullptr) return {};
    return {upstream_};
  }
  std::vector<const StageBase*> downstream_stages() const override {
    if (downstream_ == nullptr) return {};
    return {downstream_};
  }
  void ConnectUpstream(Base* s) override { upstream_ = s; }
  void ConnectDownstream(Base* s) override { downstream_ = s; }
  void DisconnectUpstream(Base* s) override {
    if (upstream_ == s) upstream_ = nullptr;
  }
  void DisconnectDownstream(Base* s) override {
    if (downstream_ == s) downstream_ = nullptr;
  }
  void ReplaceUpstream(Base* old_stage, Base* new_stage) override {
    if (upstream_ == old_stage) upstream_ = new_stage;
  }
  void ReplaceDownstream(Base* old_stage, Base* new_stage) override {
    if (downstream_ == old_stage) downstream_ = new_stage;
  }

 protected:
  Base* upstream_ = nullptr;
  Base* downstream_ = nullptr;
};

}  // namespace sluice::stage
