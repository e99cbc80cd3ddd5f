#pragma once
// Route redistribution out of the RIB (XORP NSDI'05 §5.2, RedistTable): a subscriber — a
// protocol that exports routes, such as BGP exporting static routes — receives the winning
// routes of one protocol as a stream of adds, replaces and deletes, starting with a dump of
// what is there when it subscribes.

#include <functional>
#include <optional>
#include <span>

#include "net/ip_address.h"
#include "rib/rib_route.h"
#include "rib/symbol.h"

namespace sluice::rib {

struct RedistChange {
  enum class Op : uint8_t { kAdd, kReplace, kDelete };
  Op op;
  RibRoute route;                     // added, deleted, or the replacement
  std::optional<RibRoute> old_route;  // kReplace: the route replaced
  friend bool operator==(const RedistChange&, const RedistChange&) = default;
};

// Implemented by each redistribution client (the RPC adapter keeps one per subscribing
// component and target). Called on the RIB's event loop, after the event that caused the
// changes, never from inside a RIB call. For each (family, protocol) subscription the stream is
// consistent: a delete or replace always refers to the route last added or replaced for that
// prefix.
class RedistSubscriber {
 public:
  virtual ~RedistSubscriber() = default;
  // A batch of changes, in order.
  virtual void OnRedistChanges(net::Family family, Symbol protocol,
                               std::span<const RedistChange> changes) = 0;
  // The initial dump is complete: every route present when subscribing has been sent.
  virtual void OnRedistDumpDone(net::Family family, Symbol protocol) = 0;
};

// The policy hook of one subscription (filled by the policy framework): returns the route to
// send — possibly changed, e.g. with tags set — or nullopt to withhold it. It must be a pure
// function of the route, since it is applied again to the route when it is later deleted or
// replaced. An empty function sends every route unchanged.
using RedistPolicy = std::function<std::optional<RibRoute>(const RibRoute&)>;

}  // namespace sluice::rib
