#pragma once
// ExportFilter: what one peer gets of the Loc-RIB (XORP NSDI'05 §5.1 the outbound filter
// tables). Plumbed in the peer's fanout branch, before PeerOut; the rules are in
// export_rules.h (split horizon, route reflection, AS prepend, nexthop, LOCAL_PREF, NO_EXPORT,
// RFC 8212, the export policy).
//
// It stores no routes: delete_route and lookup_route apply the rules again, which give the same
// answer because the configuration for a prefix only changes through a walk. Changing the
// configuration (SetConfig, or a new filter in the FilterSlot, noticed at each push) moves the
// Loc-RIB's prefixes to it in a background walk that sends the differences (add, delete,
// replace), like ImportFilter's re-filter; the walk only moves while the branch's FanoutReader
// is ready, so what it looks up is what the branch has seen.

#include <memory>
#include <string>

#include "bgp/stages/bgp_stage.h"
#include "bgp/stages/export_rules.h"
#include "bgp/stages/prefix_walk.h"
#include "policy/filter.h"

namespace sluice::bgp {

class ExportFilter : public BgpLinearStage {
 public:
  // `loc_rib`: the prefixes of the family (for re-filter walks); `reader`: the branch's flow
  // control. `slot`, when not null, is watched for a new export policy; it overrides
  // config.filter. `memos`, when not null, gives the memo of each configuration, shared with
  // the other peers of the family on this thread that have the same transform (export_rules.h);
  // null: a memo of its own per configuration.
  ExportFilter(std::string name, boost::asio::io_context& io, const PrefixSource* loc_rib,
               FlowControl* reader, AttributeStore* store, ExportConfig config,
               policy::FilterSlot* slot = nullptr, std::shared_ptr<ExportMemoPool> memos = nullptr);

  std::string_view kind() const override { return "ExportFilter"; }
  std::string Status() const override;

  void SetConfig(ExportConfig config);
  const ExportConfig& config() const { return active_->config; }
  bool refiltering() const { return walk_.running(); }

  void add_route(const BgpRoute& route, BgpStage* caller) override;
  void delete_route(const BgpRoute& route, BgpStage* caller) override;
  void replace_route(const BgpRoute& old_route, const BgpRoute& new_route,
                     BgpStage* caller) override;
  void push(BgpStage* caller) override;
  std::optional<BgpRoute> lookup_route(const net::Prefix& prefix) const override;

 private:
  struct Context {
    ExportConfig config;
    std::shared_ptr<ExportMemo> memo;
  };
  std::unique_ptr<Context> MakeContext(ExportConfig config) const;
  const Context& ContextFor(const net::Prefix& prefix) const {
    return pending_ != nullptr && walk_.Covers(prefix) ? *pending_ : *active_;
  }
  std::optional<BgpRoute> Export(const BgpRoute& route, const Context& c) const {
    return ExportRoute(route, c.config, store_, rw_, c.memo.get());
  }
  // Sends downstream the change from `o` to `n` (exported routes, either may be none), handing
  // the routes over: downstream may keep their references instead of counting new ones.
  void Emit(std::optional<BgpRoute> o, std::optional<BgpRoute> n);
  void CheckSlot();
  void Visit(const net::Prefix& prefix);
  void WalkDone();

  FlowControl* reader_;
  AttributeStore* store_;
  policy::FilterWatch slot_;
  std::shared_ptr<ExportMemoPool> memos_;
  std::unique_ptr<Context> active_;
  std::unique_ptr<Context> pending_;
  std::unique_ptr<ExportConfig> queued_;
  mutable BgpVarRW rw_;
  PrefixWalk walk_;
};

}  // namespace sluice::bgp
