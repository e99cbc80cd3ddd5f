#pragma once
// Names and small interfaces shared by the BGP stages (bgp/stages/).
//
//   BgpStage / BgpLinearStage   the stage contract of stage/stage.h over BgpRoute
//   PrefixSource                "which prefix comes next": walks over the route tables in prefix
//                               order, for the background work of dynamic stages (a dump to a
//                               new peer, a re-filter after a policy change, re-annotating routes
//                               after a nexthop change) — stages store no routes, so walks ask the
//                               tables of PeerIn and Deletion stages and look the routes up
//                               through the stages
//   RouteTableSet               the tables of one peer's branch (its PeerIn's and its Deletion
//                               stages'), a PrefixSource
//   PrefixSourceUnion           several sources as one (a family's Loc-RIB walk: every branch)
//   FlowControl                 how the tail of a fanout branch (PeerOut, RibOut) tells the fanout
//                               to hold changes back, and how background walks below the fanout
//                               learn when they may go on

#include <functional>
#include <optional>
#include <vector>

#include "bgp/stages/route.h"
#include "net/prefix.h"
#include "stage/stage.h"

namespace sluice::bgp {

using BgpStage = stage::Stage<BgpRoute>;
using BgpLinearStage = stage::LinearStage<BgpRoute>;

class PrefixSource {
 public:
  virtual ~PrefixSource() = default;
  // The smallest prefix strictly after `after` (the first one when nullopt), in net::Prefix
  // order, that may have a route; nullopt at the end. May return prefixes that have no route
  // after filtering: callers look the route up and skip those.
  virtual std::optional<net::Prefix> NextPrefix(const std::optional<net::Prefix>& after) const = 0;
};

// The next prefix after `after` in one table.
std::optional<net::Prefix> NextPrefixIn(RouteTable& table, const std::optional<net::Prefix>& after);

class RouteTableSet : public PrefixSource {
 public:
  void Add(RouteTable* table) { tables_.push_back(table); }
  void Remove(RouteTable* table);
  bool empty() const { return tables_.empty(); }
  size_t route_count() const;
  std::optional<net::Prefix> NextPrefix(const std::optional<net::Prefix>& after) const override;

 private:
  std::vector<RouteTable*> tables_;
};

class PrefixSourceUnion : public PrefixSource {
 public:
  void Add(const PrefixSource* source) { sources_.push_back(source); }
  void Remove(const PrefixSource* source);
  std::optional<net::Prefix> NextPrefix(const std::optional<net::Prefix>& after) const override;

 private:
  std::vector<const PrefixSource*> sources_;
};

class FlowControl {
 public:
  virtual ~FlowControl() = default;
  // The branch cannot take more changes now (a peer's send backlog is high, the RIB's window is
  // full): the fanout queues them. SetBlocked(false) lets them flow again.
  virtual void SetBlocked(bool blocked) = 0;
  // True when the branch is not blocked and has received every change so far: only then may a
  // walk below the fanout look routes up and send them (its view is the current one).
  virtual bool ready() const = 0;
  // Calls `callback` once, on the event loop, the next time ready() becomes true (soon after
  // this call when it already is).
  virtual void WhenReady(std::function<void()> callback) = 0;
};

}  // namespace sluice::bgp
