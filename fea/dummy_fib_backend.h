#pragma once
// DummyFibBackend: a FIB with no forwarding plane behind it — the Fib's in-memory table is the
// whole FIB. The default backend (tests, simulations, a control plane that is not a router).
//
// For tests of the commit and rollback paths it can be told to refuse routes, the way a kernel
// refuses some: RefuseRoutesMatching(prefix) makes every add or replace of a route whose prefix
// lies inside `prefix` fail with FailedPrecondition("refused by the dummy forwarding plane").

#include <cstdint>
#include <optional>

#include "fea/fib_backend.h"
#include "net/prefix.h"

namespace sluice::fea {

class DummyFibBackend : public FibBackend {
 public:
  std::string_view name() const override { return "dummy"; }
  absl::Status Start() override { return absl::OkStatus(); }
  void Apply(std::span<const FibOp> ops, const InterfaceTree& interfaces,
             std::span<absl::Status> results) override;
  absl::Status Shutdown() override { return absl::OkStatus(); }

  // Fault injection for tests (see above); nullopt refuses nothing.
  void RefuseRoutesMatching(std::optional<net::Prefix> prefix) { refuse_ = prefix; }
  // Ops applied successfully so far.
  uint64_t ops_applied() const { return ops_applied_; }

 private:
  std::optional<net::Prefix> refuse_;
  uint64_t ops_applied_ = 0;
};

}  // namespace sluice::fea
