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
#include "stage/flow_control.h"
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
  // Merges into `sorted` (ascending, no duplicates) this source's prefixes after `after`, keeping
  // only the `limit` smallest of the result: a batch of NextPrefix answers. A walk over the union
  // of many peers' tables costs one descent per table per batch this way, instead of one per
  // table per prefix. The default asks NextPrefix; tables iterate.
  virtual void CollectPrefixes(const std::optional<net::Prefix>& after, size_t limit,
                               std::vector<net::Prefix>* sorted) const;
};

// `sorted` holds an ascending run [0, old_size) and appended prefixes after it, themselves
// ascending: makes it one ascending run without duplicates, cut to `limit` (CollectPrefixes).
void MergeCollected(std::vector<net::Prefix>* sorted, size_t old_size, size_t limit);

// The next prefix after `after` in one table.
std::optional<net::Prefix> NextPrefixIn(RouteTable& table, const std::optional<net::Prefix>& after);
// PrefixSource::CollectPrefixes over one table.
void CollectPrefixesIn(RouteTable& table, const std::optional<net::Prefix>& after, size_t limit,
                       std::vector<net::Prefix>* sorted);

class RouteTableSet : public PrefixSource {
 public:
  void Add(RouteTable* table) { tables_.push_back(table); }
  void Remove(RouteTable* table);
  bool empty() const { return tables_.empty(); }
  size_t route_count() const;
  std::optional<net::Prefix> NextPrefix(const std::optional<net::Prefix>& after) const override;
  void CollectPrefixes(const std::optional<net::Prefix>& after, size_t limit,
                       std::vector<net::Prefix>* sorted) const override;

 private:
  std::vector<RouteTable*> tables_;
};

class PrefixSourceUnion : public PrefixSource {
 public:
  void Add(const PrefixSource* source) { sources_.push_back(source); }
  void Remove(const PrefixSource* source);
  std::optional<net::Prefix> NextPrefix(const std::optional<net::Prefix>& after) const override;
  void CollectPrefixes(const std::optional<net::Prefix>& after, size_t limit,
                       std::vector<net::Prefix>* sorted) const override;

 private:
  std::vector<const PrefixSource*> sources_;
};

// The tail's flow control (stage/flow_control.h).
using FlowControl = stage::FlowControl;

}  // namespace sluice::bgp
