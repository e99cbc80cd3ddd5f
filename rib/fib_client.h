#pragma once
// FibClient: how the RIB's FEA output stage talks to the FEA (XORP NSDI'05 §3, §5.2). The FEA
// adapter implements it over `fea_fib` RPCs; tests and benchmarks implement it in memory.
//
// Route changes go in batches, each one FIB transaction: the FEA applies a batch's changes in
// order and commits or refuses it as a whole. Batches are sent in sequence order, several may
// be in flight (pipelined), and the FEA applies them in the order sent.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "net/ip_address.h"
#include "rib/fib_change.h"

namespace sluice::rib {

struct FibBatch {
  net::Family family = net::Family::kIPv4;
  uint64_t sequence = 0;  // 1, 2, 3, ... per family, restarting at 1 when the FEA is born again
  FibChangeList changes;
  // The oldest arrival of its changes (stage/route_arrival.h): CLOCK_MONOTONIC ns, 0 unknown.
  int64_t arrival_ns = 0;
};

class FibClient {
 public:
  virtual ~FibClient() = default;
  // Sends one transaction. `done` is called exactly once, on the RIB's event loop and never
  // from inside SendBatch, with OK when the FEA committed it or the FEA's error (naming the
  // route it refused). If the FEA dies, `done` may never be called for batches in flight; the
  // RIB forgets them when told the FEA was born again, and re-sends everything: an add for
  // every route, which the FEA takes as a replace for a prefix it still holds (a FIB that
  // survived the restart, or reconciled from the kernel).
  virtual void SendBatch(FibBatch batch, std::function<void(absl::Status)> done) = 0;
  // The re-send that follows a birth of the FEA has handed its last batch of `family` to
  // SendBatch: every winner of that family has been sent (batches may still be in flight; later
  // batches carry live changes). Called on the event loop, once per family and birth. An
  // adapter tells the FEA, after those batches, that routes not re-sent are stale.
  virtual void FullPushDone(net::Family family) { (void)family; }
  // The RIB is about to re-send its whole FIB to the FEA it feeds, which stays up: it dropped
  // changes for an FEA that lagged (FeaOutOptions::max_backlog). Before any batch of the
  // re-send, the adapter tells the FEA that every route it holds is stale until the push
  // completes (FullPushDone of both families); then it removes the stale routes, as after a
  // birth.
  virtual void BeginFullPush() {}
};

}  // namespace sluice::rib
