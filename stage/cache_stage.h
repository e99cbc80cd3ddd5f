#pragma once
// CacheStage: a pass-through stage that checks the two consistency rules of stage.h on the
// stream it sees (XORP §5.1) and reports every violation. Plumb it after any stage in tests:
//   - an add for a prefix already added (without a delete in between);
//   - a delete for a prefix never added, or whose route differs from the one added;
//   - a replace whose old route differs from the one added;
//   - a lookup whose answer from upstream differs from what was sent downstream.
// Verify() checks every prefix sent so far against an upstream lookup.
//
// It remembers every route it passed (a hash map keyed by prefix), so it is a test tool, not
// something to leave in a production pipeline.

#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "stage/stage.h"

namespace sluice::stage {

template <StageRoute Route>
class CacheStage : public LinearStage<Route> {
 public:
  using Base = Stage<Route>;
  using OnViolation = std::function<void(const std::string&)>;

  explicit CacheStage(std::string name, OnViolation on_violation = {})
      : LinearStage<Route>(std::move(name)), on_violation_(std::move(on_violation)) {}

  std::string_view kind() const override { return "Cache"; }
  std::string Status() const override {
    return "routes=" + std::to_string(sent_.size()) +
           " violations=" + std::to_string(violations_.size());
  }

  void add_route(const Route& route, Base* caller) override {
    auto [it, inserted] = sent_.try_emplace(route.prefix(), route);
    if (!inserted) {
      Report("add of " + route.ToString() + " while " + it->second.ToString() + " was not deleted");
      it->second = route;
    }
    LinearStage<Route>::add_route(route, caller);
  }

  void delete_route(const Route& route, Base* caller) override {
    auto it = sent_.find(route.prefix());
    if (it == sent_.end()) {
      Report("delete of " + route.ToString() + " that was never added");
    } else {
      if (!(it->second == route)) {
        Report("delete of " + route.ToString() + " does not match the add of " +
               it->second.ToString());
      }
      sent_.erase(it);
    }
    LinearStage<Route>::delete_route(route, caller);
  }

  void replace_route(const Route& old_route, const Route& new_route, Base* caller) override {
    auto it = sent_.find(old_route.prefix());
    if (old_route.prefix() != new_route.prefix()) {
      Report("replace changes the prefix: " + old_route.ToString() + " -> " + new_route.ToString());
    }
    if (it == sent_.end()) {
      Report("replace of " + old_route.ToString() + " that was never added");
    } else {
      if (!(it->second == old_route)) {
        Report("replace of " + old_route.ToString() + " does not match the add of " +
               it->second.ToString());
      }
      sent_.erase(it);
    }
    sent_.insert_or_assign(new_route.prefix(), new_route);
    LinearStage<Route>::replace_route(old_route, new_route, caller);
  }

  std::optional<Route> lookup_route(const net::Prefix& prefix) const override {
    std::optional<Route> answer = LinearStage<Route>::lookup_route(prefix);
    Check(prefix, answer);
    return answer;
  }

  // Checks every prefix sent so far against a lookup upstream. Returns the number of
  // violations found by this call.
  size_t Verify() const {
    const size_t before = violations_.size();
    for (const auto& [prefix, route] : sent_) {
      Check(prefix, LinearStage<Route>::lookup_route(prefix));
    }
    return violations_.size() - before;
  }

  const std::vector<std::string>& violations() const { return violations_; }
  size_t route_count() const { return sent_.size(); }
  // The route last sent downstream for `prefix`, as this stage saw it.
  const Route* sent(const net::Prefix& prefix) const {
    auto it = sent_.find(prefix);
    return it == sent_.end() ? nullptr : &it->second;
  }

 private:
  void Check(const net::Prefix& prefix, const std::optional<Route>& answer) const {
    auto it = sent_.find(prefix);
    if (it == sent_.end()) {
      if (answer) {
        Report("lookup of " + prefix.ToString() + " answered " + answer->ToString() +
               " but nothing was sent");
      }
    } else if (!answer) {
      Report("lookup of " + prefix.ToString() + " answered nothing but " + it->second.ToString() +
             " was sent");
    } else if (!(*answer == it->second)) {
      Report("lookup of " + prefix.ToString() + " answered " + answer->ToString() + " but " +
             it->second.ToString() + " was sent");
    }
  }

  void Report(std::string what) const {
    what = this->name() + ": " + what;
    if (on_violation_) on_violation_(what);
    violations_.push_back(std::move(what));
  }

  OnViolation on_violation_;
  absl::flat_hash_map<net::Prefix, Route> sent_;
  mutable std::vector<std::string> violations_;
};

}  // namespace sluice::stage
