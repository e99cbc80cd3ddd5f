#pragma once
// FibBackend: what programs the forwarding plane for the Fib (fea/fib.h). The Fib keeps the
// table, the transactions and the validation; a backend only applies route changes that have
// already been validated, in order, and reports each one's outcome.
//
//   - DummyFibBackend (fea/dummy_fib_backend.h): no forwarding plane; the Fib's in-memory table
//     is the whole FIB.
//   - NetlinkFibBackend (fea/netlink_fib_backend.h): the Linux kernel's routing table.
//
// Routes written by an earlier run that ended without a clean shutdown ("stale" routes) are the
// backend's business: it finds them in Start() and keeps them until RemoveStaleRoutes().

#include <cstddef>
#include <span>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fea/fib_route.h"
#include "fea/interface_tree.h"

namespace sluice::fea {

enum class FibOpKind { kAdd, kReplace, kDelete };
std::string_view FibOpKindName(FibOpKind kind);  // "add", "replace", "delete"

// One change for the forwarding plane. The pointed-to routes outlive the Apply call.
struct FibOp {
  FibOpKind kind;
  const FibRoute* route;          // add, replace: the new route; delete: the route removed
  const FibRoute* old = nullptr;  // replace: the route being replaced
};

class FibBackend {
 public:
  virtual ~FibBackend() = default;

  virtual std::string_view name() const = 0;  // "dummy", "netlink"

  // Prepares the forwarding plane and finds stale routes. Called once, before any Apply.
  virtual absl::Status Start() = 0;

  // Applies `ops` in order; results[i] receives the outcome of ops[i] (results.size() ==
  // ops.size()). Failed ops change nothing; the others are applied even after one failed. An
  // op whose outcome is unknown (the channel to the forwarding plane broke) gets
  // DataLoss. Interface names in nexthops are resolved through `interfaces`.
  virtual void Apply(std::span<const FibOp> ops, const InterfaceTree& interfaces,
                     std::span<absl::Status> results) = 0;

  // Routes found by Start() that have not been added again since. An add of a stale route
  // (same prefix and metric) takes it over.
  virtual size_t stale_route_count() const { return 0; }
  // Deletes the stale routes not added again; returns how many it deleted.
  virtual absl::StatusOr<size_t> RemoveStaleRoutes() { return 0; }

  // Removes every route this backend owns from the forwarding plane (clean shutdown). Errors:
  // the forwarding plane's, naming what could not be removed.
  virtual absl::Status Shutdown() = 0;
};

}  // namespace sluice::fea
