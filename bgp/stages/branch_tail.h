#pragma once
// BranchTail: the last stage of a fanout branch. In the serial pipeline that is PeerOut (a peer's
// UPDATEs) or RibOut (the RIB); in a shard of the shard stage it is a stage that hands the
// branch's changes to the event loop, where the shards' outputs meet (shard_pipeline.h).
// FamilyPipeline drives a peer's tail through these calls whatever it is.

#include <cstdint>
#include <string>

#include "bgp/stages/bgp_stage.h"
#include "stage/plumber.h"

namespace sluice::bgp {

class FanoutReader;

class BranchTail : public BgpLinearStage {
 public:
  using BgpLinearStage::BgpLinearStage;
  // The branch's initial dump is done: PeerOut sends End-of-RIB (RFC 4724).
  virtual void EndOfRib() {}
  // Re-announce everything the peer has from us (RFC 2918 ROUTE-REFRESH).
  virtual void Refresh() {}
  // One prefix of a refresh whose walk runs upstream of the tail (in the shards' copies of the
  // pipeline): announce `route` again even if the peer has it.
  virtual void Readvertise(const BgpRoute& /*route*/) {}
  // The peer's session can take more.
  virtual void OnWritable() {}
};

// Makes the tails of a family's branches in place of PeerOut and RibOut (for the shards' copies
// of the pipeline). Called on the loop of the pipeline's Plumber.
class BranchTailFactory {
 public:
  virtual ~BranchTailFactory() = default;
  // The tail of peer `peer_id`'s branch, plumbed after its ExportFilter. `reader` is the branch's
  // FanoutReader (flow control), `loc_rib` the family's prefixes (refresh walks).
  virtual BranchTail* MakePeerTail(stage::Plumber* plumber, const std::string& name,
                                   uint32_t peer_id, FanoutReader* reader,
                                   const PrefixSource* loc_rib) = 0;
  // Whether the family has a RIB branch, and its tail (after the branch's Dump).
  virtual bool rib() const = 0;
  virtual BranchTail* MakeRibTail(stage::Plumber* plumber, const std::string& name,
                                  FanoutReader* reader) = 0;
};

}  // namespace sluice::bgp
