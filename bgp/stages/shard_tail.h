#pragma once
// What crosses threads in the sharded BGP pipeline (shard_pipeline.h), and the stage at
// the end of a shard's output branches.
//
//   ShardIn    event loop → shard: one NLRI of one peer's UPDATE (announce or withdraw), for the
//              peer's PeerIn in the shard that owns the prefix
//   ShardOut   shard → event loop: one change at the end of an output branch (a peer's, after its
//              ExportFilter; the RIB's), or the end of the branch's initial dump; the loop hands
//              it to the branch's PeerOut or RibOut, where every shard's changes meet
//   ShardTail  the BranchTail of a shard's output branches: turns the branch's changes into
//              ShardOuts; answers ROUTE-REFRESH with a walk over the shard's prefixes (each route
//              the peer has goes out again as a kReadvertise); blocks its FanoutReader while the
//              loop says the branch is blocked (the peer's session is backed up, the RIB's window
//              is full)

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bgp/stages/branch_tail.h"
#include "bgp/stages/prefix_walk.h"
#include "bgp/stages/route.h"

namespace sluice::bgp {

struct ShardIn {
  enum class Op : uint8_t { kAnnounce, kWithdraw };
  Op op = Op::kAnnounce;
  uint8_t family = 0;    // 0 IPv4, 1 IPv6 (the FamilyPipeline slot)
  uint32_t peer_id = 0;  // 0: originated by this router
  uint32_t path_id = 0;
  net::Prefix prefix;
  AttrRef attrs;           // kAnnounce
  int64_t arrival_ns = 0;  // the UPDATE's arrival (stage/route_arrival.h); 0 unknown
};

struct ShardOut {
  enum class Kind : uint8_t { kAdd, kDelete, kReplace, kReadvertise, kEndOfRib };
  Kind kind = Kind::kAdd;
  uint32_t branch = 0;
  BgpRoute old_route;  // kDelete, kReplace
  BgpRoute new_route;  // kAdd, kReplace, kReadvertise
  // The arrival of the work that made the change (stage/route_arrival.h); 0 unknown.
  int64_t arrival_ns = 0;
};

// Where a shard's tails put their outputs (the shard's way back to the loop).
class ShardOutputSink {
 public:
  virtual ~ShardOutputSink() = default;
  virtual ShardOut& Emit() = 0;
  // Outputs made outside the processing of input (a background slice) leave soon.
  virtual void Flush() = 0;
};

class ShardTail : public BranchTail {
 public:
  // `loc_rib` (for refresh walks) may be null for the RIB's branch. `on_destroy` runs in the
  // destructor (the shard forgets the tail).
  ShardTail(std::string name, boost::asio::io_context& io, ShardOutputSink* sink, uint32_t branch,
            FlowControl* reader, const PrefixSource* loc_rib, std::function<void()> on_destroy);
  ~ShardTail() override;

  std::string_view kind() const override { return "ShardTail"; }
  std::string Status() const override;
  uint32_t branch() const { return branch_; }

  void add_route(const BgpRoute& route, BgpStage* caller) override;
  void delete_route(const BgpRoute& route, BgpStage* caller) override;
  void replace_route(const BgpRoute& old_route, const BgpRoute& new_route,
                     BgpStage* caller) override;
  void push(BgpStage* caller) override;

  void EndOfRib() override;
  void Refresh() override;

  // From the loop: the branch's consumer is backed up (or no longer).
  void SetBlocked(bool blocked);

 private:
  ShardOutputSink* sink_;
  uint32_t branch_;
  FlowControl* reader_;
  std::function<void()> on_destroy_;
  bool blocked_ = false;
  uint64_t emitted_ = 0;
  std::vector<std::function<void()>> when_unblocked_;
  PrefixWalk refresh_;
};

}  // namespace sluice::bgp
