#pragma once
// Filter: what a BGP or RIB filter stage holds — one compiled, immutable filter bank (a chain of
// policy statements with a default verdict) — and FilterSlot, the place a stage keeps its
// current filter so that a new policy replaces the old one atomically (XORP NSDI'05 §8.3;
// sluice-bgp's policy_backend/1.0 adapter, bgp/process/policy_service.h, fills the slots).
//
// A stage uses it like this:
//
//   // setup (event loop): compile fully first; a bad policy never replaces the running one.
//   policy::FilterSlot import_slot(policy::Filter::Default(policy::Verdict::kAccept));
//   absl::Status s = import_slot.Configure(config, {.policies = {"upstream-in"}}, options);
//
//   // per batch of routes (any thread: the shard workers share the filter)
//   std::shared_ptr<const policy::Filter> filter = import_slot.Get();
//   for (Route& r : batch) {
//     MyVarRW rw(r);                               // the protocol's VarRW over the route
//     policy::Result result = filter->Run(rw);
//     if (!result.accepted()) { drop r; continue; }
//     if (result.modified) { r = rw.modified_route(); }
//   }
//
// Take the shared_ptr once per batch (Get() locks a mutex and copies a shared_ptr, tens of
// nanoseconds), not once per route. A stage that must re-filter its routes after a change (in
// a background walk, as ImportFilter does) compares the Filter pointers it used.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>

#include "absl/status/statusor.h"
#include "policy/ast.h"
#include "policy/compiler.h"
#include "policy/program.h"
#include "policy/var_rw.h"
#include "policy/vm.h"

namespace sluice::policy {

class Filter {
 public:
  // Compiles the chain; the Filter keeps no reference to `config`. Errors as CompileProgram.
  static absl::StatusOr<std::shared_ptr<const Filter>> Compile(const PolicyConfig& config,
                                                               const FilterSpec& spec,
                                                               const CompileOptions& options = {});
  // Parses `text` (a policy block's body, see ParsePolicy), checks that every statement in it
  // compiles (with all variables available: statements for other banks may use any), and
  // compiles the chain with `options`. Errors name file, line and column.
  static absl::StatusOr<std::shared_ptr<const Filter>> FromText(std::string_view text,
                                                                const SourceLocation& start,
                                                                const FilterSpec& spec,
                                                                const CompileOptions& options = {});
  // A filter with no policy: every route gets `verdict`, unmodified.
  static std::shared_ptr<const Filter> Default(Verdict verdict);

  // Runs the filter on one route. Thread-safe; does not allocate once the thread is warm.
  Result Run(VarRW& rw) const { return RunProgram(*program_, rw); }

  const Program& program() const { return *program_; }
  const FilterSpec& spec() const { return spec_; }

 private:
  Filter(std::unique_ptr<Program> program, FilterSpec spec)
      : program_(std::move(program)), spec_(std::move(spec)) {}
  std::unique_ptr<Program> program_;
  FilterSpec spec_;
};

class FilterSlot {
 public:
  explicit FilterSlot(std::shared_ptr<const Filter> initial) : current_(std::move(initial)) {}

  std::shared_ptr<const Filter> Get() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return current_;
  }
  // Changes with every Set: a reader that checks on every route or UPDATE compares this (one
  // atomic load, no lock, no reference count touched) and calls Get() only when it moved. A
  // reader that saw a generation and then calls Get() gets that filter or a newer one.
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
  void Set(std::shared_ptr<const Filter> filter) {
    std::lock_guard<std::mutex> lock(mutex_);
    current_.swap(filter);
    generation_.fetch_add(1, std::memory_order_release);
    // The old filter is released outside the lock (when `filter` goes out of scope) unless a
    // reader still holds it.
  }
  // Compiles and, only when that succeeds, swaps the new filter in. On error the running filter
  // stays and the error (with its location) is returned.
  absl::Status Configure(const PolicyConfig& config, const FilterSpec& spec,
                         const CompileOptions& options = {});

 private:
  // A mutex, not std::atomic<std::shared_ptr>: libstdc++ 12 implements that with a spin lock
  // ThreadSanitizer does not understand, and neither is faster uncontended.
  mutable std::mutex mutex_;
  std::shared_ptr<const Filter> current_;
  std::atomic<uint64_t> generation_{0};
};

// One reader's view of a FilterSlot, for readers that look on every UPDATE or batch: Poll() is
// one atomic load while the slot is unchanged (FilterSlot::generation).
class FilterWatch {
 public:
  FilterWatch() = default;
  explicit FilterWatch(const FilterSlot* slot) { Watch(slot); }

  // Follows `slot` (null: none) from its current filter on.
  void Watch(const FilterSlot* slot) {
    slot_ = slot;
    if (slot_ == nullptr) return;
    generation_ = slot_->generation();  // before Get(): a Set in between is seen by Poll()
    seen_ = slot_->Get();
  }
  // The slot's filter, when it was Set since the last look (possibly to the same filter);
  // nothing otherwise, or without a slot.
  std::optional<std::shared_ptr<const Filter>> Poll() {
    if (slot_ == nullptr || slot_->generation() == generation_) return std::nullopt;
    generation_ = slot_->generation();
    seen_ = slot_->Get();
    return seen_;
  }
  // Like Poll(), but only a filter other than the one seen before (a Set of the same filter
  // again gives nothing).
  std::optional<std::shared_ptr<const Filter>> PollNew() {
    // The address is enough: the new filter exists before Poll() lets the old one go.
    const Filter* before = seen_.get();
    std::optional<std::shared_ptr<const Filter>> f = Poll();
    if (!f || f->get() == before) return std::nullopt;
    return f;
  }
  // The filter seen last (by Watch or Poll); null without a slot.
  const std::shared_ptr<const Filter>& seen() const { return seen_; }

 private:
  const FilterSlot* slot_ = nullptr;
  uint64_t generation_ = 0;
  std::shared_ptr<const Filter> seen_;
};

}  // namespace sluice::policy
