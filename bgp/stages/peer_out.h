#pragma once
// PeerOut: the Adj-RIB-Out of one peer for one family, and what turns route changes into
// UPDATE messages (RFC 4271 §3.2, §9.2).
//
// It stores no routes. The stream it receives is consistent (every delete matches an add it
// got, a replace carries the route it replaces), so it knows, for each change, what the peer
// has and what the peer should have; the Adj-RIB-Out as a table is what lookups through the
// branch answer (ExportFilter over the FanoutReader's view of the Loc-RIB), which is what
// `show bgp routes ... advertised` and route refresh read. Memory per route: nothing beyond the
// batch being encoded; between batches a PeerOut holds no buffer (the thread keeps a few for the
// next batches of any of its PeerOuts).
//
// Batching: changes are collected until push() (the end of the batch upstream: one UPDATE in,
// one dump slice, one fanout drain slice), appended as they come. Several changes of one prefix
// in a batch collapse to the last, found at push through a table built for the batch (an index
// kept between batches would cost each change a probe of a table gone cold since this peer's
// last batch); a change that leaves the peer's state as it was (an add after a delete of the
// same attributes, a replace between routes that export to the same attributes) sends nothing.
// Then the prefixes to announce are grouped by attribute set and each group packed into as few
// UPDATEs as the maximum message size allows (UpdateEncoder::Pack), withdrawals first, in the
// order the prefixes first changed. A group that another PeerOut of this thread packed in the same
// turn of the event loop (the same set, prefixes, withdrawals and encoder) is copied from it
// instead (EncodedGroupCache): peers that get the same changes share one encoding.
//
// Encoding off the loop (Options::encoder): each batch is handed at push() to an EncodeThread,
// which collapses, groups and encodes it; the UPDATEs come back to the loop and are sent there, in
// the order of the batches. At most kMaxInFlight batches are on that thread at once; later
// changes wait in the batch being collected, which is handed over as soon as one comes back.
// End-of-RIB goes out once every batch handed over before it is sent.
//
// Flow control: after sending, when the session's send backlog is above `high_water` octets (or
// the peer's share of a SendBudget), PeerOut blocks its FanoutReader (changes wait in the fanout
// queue) until OnWritable(); likewise while batches are on the encoding thread and the batch
// waiting for them holds kHoldChanges changes or more. End-of-RIB (RFC 4724) is sent by EndOfRib(),
// which the branch's Dump stage triggers when the initial dump is done. Refresh() answers a
// ROUTE-REFRESH (RFC 2918): a background walk over the Loc-RIB re-announces every route the peer
// has.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bgp/session/session_link.h"
#include "bgp/stages/bgp_stage.h"
#include "bgp/stages/branch_tail.h"
#include "bgp/stages/encoded_group_cache.h"
#include "bgp/stages/end_of_rib_gate.h"
#include "bgp/stages/prefix_walk.h"
#include "bgp/stages/send_budget.h"
#include "bgp/wire/update_encoder.h"
#include "boost/asio/io_context.hpp"

namespace sluice::bgp {

class EncodeThread;

class PeerOut : public BranchTail {
 public:
  struct Options {
    size_t high_water = 1 << 20;  // octets of send backlog above which the branch is blocked
    // When set, the high water is this PeerOut's share of a budget all peers share (it
    // outlives the PeerOut); `high_water` is then unused.
    SendBudget* budget = nullptr;
    // While this speaker restarts, the peer gets nothing — routes nor End-of-RIB — until the
    // gate opens (selection deferral, RFC 4724 §4.1); null: no deferral. Outlives the PeerOut.
    EndOfRibGate* end_of_rib_gate = nullptr;
    // When set, batches are encoded on this thread (it outlives the PeerOut) and sent when they
    // come back; null: encoded and sent on the loop, at push().
    EncodeThread* encoder = nullptr;
  };
  // Batches on the encoding thread at once, and the changes a batch waiting for them may hold
  // before the reader is blocked (48 octets each: about 3 MiB for a peer whose encoding falls
  // behind). The bound is high because a blocked reader splits what the shards send next into
  // more, smaller batches (each shard's queue drains on its own), hence more UPDATEs.
  static constexpr int kMaxInFlight = 2;
  static constexpr size_t kHoldChanges = 65536;
  struct Counters {
    uint64_t advertised = 0;  // prefixes the peer has from us now
    uint64_t updates = 0;     // UPDATE messages sent (End-of-RIB included)
    uint64_t announced = 0;   // prefixes announced (events)
    uint64_t withdrawn = 0;   // prefixes withdrawn (events)
    uint64_t octets = 0;      // octets handed to the session
    uint64_t encode_errors = 0;
    // Groups whose UPDATEs were copied from another peer's batch (EncodedGroupCache).
    uint64_t groups_shared = 0;
    bool end_of_rib_sent = false;
  };

  PeerOut(std::string name, boost::asio::io_context& io, SessionSender* sender,
          const SessionParams& params, AfiSafi family, FlowControl* reader,
          const PrefixSource* loc_rib, Options options);
  ~PeerOut() override;

  std::string_view kind() const override { return "PeerOut"; }
  std::string Status() const override;

  void add_route(const BgpRoute& route, BgpStage* caller) override;
  void add_route(BgpRoute&& route, BgpStage* caller) override;  // keeps the route's set
  void delete_route(const BgpRoute& route, BgpStage* caller) override;
  void replace_route(const BgpRoute& old_route, const BgpRoute& new_route,
                     BgpStage* caller) override;
  void replace_route(BgpRoute&& old_route, BgpRoute&& new_route,
                     BgpStage* caller) override;  // keeps the routes' sets
  void push(BgpStage* caller) override { Flush(); }

  // Sends End-of-RIB for the family (after flushing what is pending).
  void EndOfRib() override;
  // Whether End-of-RIB went out (false while the restart gate holds it back).
  bool end_of_rib_sent() const { return counters_.end_of_rib_sent; }
  // Re-announces everything the peer has from us (RFC 2918), in the background.
  void Refresh() override;
  // Announces `route` again even if the peer has it (what a refresh does for each prefix).
  void Readvertise(const BgpRoute& route) override;
  // The session's backlog drained.
  void OnWritable() override;

  const Counters& counters() const { return counters_; }
  bool blocked() const { return blocked_; }
  // Changes not yet encoded: the batch, and those on the encoding thread (the session's octet
  // backlog is not counted).
  std::optional<uint64_t> queue_depth() const override { return ops_.size() + in_flight_changes_; }

 private:
  void SendEndOfRib();
  struct Op {
    net::Prefix prefix;
    AttrRef from;  // what the peer has (null: nothing)
    AttrRef to;    // what it should have (null: nothing)
    bool force = false;
  };
  Op& Pending(const net::Prefix& prefix, AttrRef from);
  // A batch's buffer: one the thread kept (spare_batches_), or a fresh one; and back (kept when
  // there is room, freed otherwise) once the batch is sent. A PeerOut between batches holds none.
  void TakeBatch();
  void ReturnBatch();
  static thread_local std::vector<std::vector<Op>> spare_batches_;
  // Stores a batch's emptied buffer for the next batch of any PeerOut of this thread, if there is
  // room and it did not grow past kKeepOps.
  static void KeepBuffer(std::vector<Op> buffer);
  // What encoding a batch takes, shared with the jobs on the encoding thread (immutable).
  struct Encoding {
    std::string name;
    AfiSafi family;
    UpdateEncoder encoder;
    int encoder_class;  // EncodedGroupCache::Join
  };
  static std::shared_ptr<const Encoding> MakeEncoding(const std::string& name,
                                                      const SessionParams& params, AfiSafi family);
  // What encoding a batch made, applied on the loop: the UPDATEs in pieces of about kSendChunk
  // octets (messages, their count) and the changes to the counters.
  struct Encoded {
    std::vector<std::pair<std::vector<uint8_t>, int>> pieces;
    int64_t advertised = 0;
    uint64_t announced = 0;
    uint64_t withdrawn = 0;
    uint64_t encode_errors = 0;
    uint64_t groups_shared = 0;
  };
  // Flush's encoding scratch (peer_out.cc), one per thread, lent to one batch at a time.
  struct Scratch;
  static thread_local std::unique_ptr<Scratch> spare_scratch_;
  static std::unique_ptr<Scratch> TakeScratch();
  static void ReturnScratch(std::unique_ptr<Scratch> scratch);
  // A batch's UPDATEs, on the thread whose loop is `io` (any thread): Collapse, then Group, then
  // Pack. Empties `ops`, releasing every reference it held.
  static Encoded EncodeBatch(const Encoding& e, std::vector<Op>& ops, boost::asio::io_context& io);
  // Merges the changes of each prefix into its first: what the peer had before the first, what
  // it should have after the last, re-announced if any of them was. The others send nothing.
  // `first_of`: room for its table (the scratch's).
  static void Collapse(std::vector<Op>& ops, std::vector<uint32_t>& first_of);
  // The withdrawals, and the announcements grouped by attribute set, into `s`.
  static void Group(const Encoding& e, std::vector<Op>& ops, Scratch& s, Encoded& out);
  // The groups of `s`, packed into UPDATEs.
  static void Pack(const Encoding& e, Scratch& s, boost::asio::io_context& io, Encoded& out);
  // One group's UPDATEs: copied when another peer on this thread just packed the same group.
  static absl::StatusOr<int> PackGroup(const Encoding& e, const EncodedGroupCache::Batch& batch,
                                       const AttrRef& attrs, std::span<const Nlri> announce,
                                       std::span<const Nlri> withdraw, std::vector<uint8_t>* out,
                                       Encoded& counts);
  void Flush();
  // Flush with an encoder: the batch to the encoding thread, unless kMaxInFlight are there.
  void HandOver();
  // A batch of `changes` came back from the encoding thread with its emptied buffer.
  void BatchEncoded(size_t changes, Encoded encoded, std::vector<Op> buffer);
  // Counts and sends what a batch made.
  void Apply(Encoded encoded);
  void Send(std::vector<uint8_t> messages, int count);
  void CheckBacklog();
  // Blocks the reader while the backlog is high, the encoding thread is full or the restart gate
  // is closed.
  void ApplyBlocked();
  // Runs what waited for the branch to be unblocked (a refresh walk), when it is.
  void RunWhenWritable();
  size_t high_water() const;

  SessionSender* sender_;
  FlowControl* reader_;
  Options options_;
  // For the gate's callback and the batches coming back from the encoding thread.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  boost::asio::io_context& io_;
  std::shared_ptr<const Encoding> encoding_;
  Counters counters_;
  bool blocked_ = false;  // the send backlog is above the high water
  bool gated_ = false;    // the restart gate is closed
  // Batches on the encoding thread and their changes; the batch waiting for them is full.
  int in_flight_ = 0;
  uint64_t in_flight_changes_ = 0;
  bool encoding_full_ = false;
  bool end_of_rib_waiting_ = false;  // End-of-RIB goes out once in_flight_ is 0
  EndOfRibGate::Observer gate_observer_;
  std::vector<std::function<void()>> when_writable_;
  // The batch: ops in the order they came (after Collapse, a prefix's first holds its changes).
  std::vector<Op> ops_;
  PrefixWalk refresh_;
};

}  // namespace sluice::bgp
