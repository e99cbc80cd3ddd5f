#pragma once
// CaptureStage: records every call that passes through it as one line of text, for golden-file
// tests of a stage's output. It passes everything on when it has a downstream stage, and
// answers lookups from upstream.
//
// Trace lines:  "add ROUTE", "delete ROUTE", "replace OLD -> NEW", "push"
// where ROUTE is Route::ToString().

#include <string>
#include <vector>

#include "stage/stage.h"

namespace sluice::stage {

template <StageRoute Route>
class CaptureStage : public LinearStage<Route> {
 public:
  using Base = Stage<Route>;
  explicit CaptureStage(std::string name, bool record_push = true)
      : LinearStage<Route>(std::move(name)), record_push_(record_push) {}

  std::string_view kind() const override { return "Capture"; }
  std::string Status() const override { return "lines=" + std::to_string(trace_.size()); }

  void add_route(const Route& route, Base* caller) override {
    trace_.push_back("add " + route.ToString());
    LinearStage<Route>::add_route(route, caller);
  }
  void delete_route(const Route& route, Base* caller) override {
    trace_.push_back("delete " + route.ToString());
    LinearStage<Route>::delete_route(route, caller);
  }
  void replace_route(const Route& old_route, const Route& new_route, Base* caller) override {
    trace_.push_back("replace " + old_route.ToString() + " -> " + new_route.ToString());
    LinearStage<Route>::replace_route(old_route, new_route, caller);
  }
  void push(Base* caller) override {
    if (record_push_) trace_.push_back("push");
    LinearStage<Route>::push(caller);
  }

  // Adds a free-form line (a test's annotation of what it did next).
  void Note(const std::string& line) { trace_.push_back("# " + line); }

  const std::vector<std::string>& trace() const { return trace_; }
  std::string Text() const {
    std::string out;
    for (const auto& line : trace_) out += line + "\n";
    return out;
  }
  void Clear() { trace_.clear(); }

 private:
  bool record_push_;
  std::vector<std::string> trace_;
};

}  // namespace sluice::stage
