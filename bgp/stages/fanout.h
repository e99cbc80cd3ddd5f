#pragma once
// Fanout: the Loc-RIB's changes to every downstream branch — one per established peer
// (ExportFilter → PeerOut) and one for the RIB (RibOut) — through one change queue with a reader
// per branch (XORP NSDI'05 §5.1 FanoutTable).
//
//   Decision → Fanout ─┬→ FanoutReader(P1) → [Dump] → ExportFilter(P1) → PeerOut(P1)
//                      ├→ FanoutReader(P2) → ...
//                      └→ FanoutReader(rib) → [Dump] → RibOut
//
// A branch that keeps up gets every change at once and nothing is queued (the common case: no
// allocation per route). A branch that cannot take more (its tail called FlowControl::
// SetBlocked: a peer's send backlog is high, the RIB's window is full) falls behind; the changes
// it has not read stay in the queue, shared by every reader that has not read them, and it
// catches up in background slices when unblocked — a slow peer does not hold the others back.
//
// Each reader sees a consistent stream: a FanoutReader answers lookups with the route as of its
// own position in the queue (the old route of the first change it has not read for that
// prefix), not the current one. Memory stays bounded by the routing table rather than by time:
// a change for a prefix whose last queued change no lagging reader has read yet is merged into
// that entry (old route kept, new route replaced; a change back to the old route becomes a
// no-op), so a prefix has at most one queued entry per distinct reader position plus one,
// however often it flaps. Entries every reader has read are freed.
//
// A queued change keeps its arrival (stage/route_arrival.h; merged: the oldest), and a reader
// that catches up delivers it under that arrival, so route latency counts the time queued here.

#include <atomic>
#include <boost/container/deque.hpp>
#include <boost/container/options.hpp>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "bgp/stages/bgp_stage.h"
#include "stage/background_task.h"
#include "stage/plumber.h"

namespace sluice::bgp {

class Fanout;

// The head of one downstream branch of a Fanout. Made by Fanout::AddReader.
class FanoutReader : public BgpLinearStage, public FlowControl {
 public:
  FanoutReader(std::string name, Fanout* fanout);

  std::string_view kind() const override { return "FanoutReader"; }
  std::string Status() const override;

  // Lookups answer as of this reader's position in the queue.
  std::optional<BgpRoute> lookup_route(const net::Prefix& prefix) const override;

  void SetBlocked(bool blocked) override;
  bool ready() const override;
  void WhenReady(std::function<void()> callback) override;
  bool blocked() const { return blocked_; }
  // Changes queued that this reader has not read.
  uint64_t behind() const;
  std::optional<uint64_t> queue_depth() const override { return behind(); }

 private:
  friend class Fanout;
  void Deliver(const std::optional<BgpRoute>& old_route, const std::optional<BgpRoute>& new_route);

  Fanout* fanout_;
  uint64_t position_ = 0;  // sequence number of the next change to read
  bool blocked_ = false;
  std::vector<std::function<void()>> when_ready_;
};

class Fanout : public BgpStage {
 public:
  Fanout(std::string name, boost::asio::io_context& io);

  std::string_view kind() const override { return "Fanout"; }
  std::string Status() const override;

  // A new branch: a reader (owned by `plumber`) connected to this fanout that starts at the end
  // of the queue. The caller plumbs the rest of the branch after it.
  FanoutReader* AddReader(stage::Plumber* plumber, std::string name);
  // Disconnects and retires `reader` (the caller retires the rest of its branch).
  void RemoveReader(stage::Plumber* plumber, FanoutReader* reader);
  const std::vector<FanoutReader*>& readers() const { return readers_; }
  size_t queued() const { return entries_.size(); }
  std::optional<uint64_t> queue_depth() const override { return entries_.size(); }
  // queued() as of the last change or trim, readable from any thread (a shard's Fanout, read
  // from the event loop without waiting for the shard).
  uint64_t published_queued() const { return published_.load(std::memory_order_relaxed); }
  uint64_t merged() const { return merged_; }

  // --- Stage (from Decision) ---------------------------------------------------------------
  void add_route(const BgpRoute& route, BgpStage* caller) override;
  void delete_route(const BgpRoute& route, BgpStage* caller) override;
  void replace_route(const BgpRoute& old_route, const BgpRoute& new_route,
                     BgpStage* caller) override;
  void push(BgpStage* caller) override;
  // The current Loc-RIB route (upstream's answer).
  std::optional<BgpRoute> lookup_route(const net::Prefix& prefix) const override;

  std::vector<const stage::StageBase*> upstream_stages() const override;
  std::vector<const stage::StageBase*> downstream_stages() const override;
  void ConnectUpstream(BgpStage* s) override { upstream_ = s; }
  void ConnectDownstream(BgpStage* s) override;
  void DisconnectUpstream(BgpStage* s) override {
    if (upstream_ == s) upstream_ = nullptr;
  }
  void DisconnectDownstream(BgpStage* s) override;
  void ReplaceUpstream(BgpStage* old_stage, BgpStage* new_stage) override {
    if (upstream_ == old_stage) upstream_ = new_stage;
  }
  void ReplaceDownstream(BgpStage*, BgpStage*) override {}  // readers stay the heads

 private:
  friend class FanoutReader;
  static constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();
  // One side of a queued change: a BgpRoute without its prefix, which the entry holds once (a
  // lagging reader can leave the whole table queued; 112 octets an entry instead of 152).
  struct QueuedRoute {
    AttrRef attrs;
    const PeerSource* source = nullptr;
    uint32_t path_id = 0;
    uint32_t igp_metric = 0;
    uint8_t flags = 0;
    std::optional<rpki::RpkiState> rpki;
    bool present = false;  // false: no route on this side (an add's old, a delete's new)

    friend bool operator==(const QueuedRoute&, const QueuedRoute&) = default;
  };
  struct Entry {
    net::Prefix prefix;
    QueuedRoute old_route;
    QueuedRoute new_route;
    uint64_t next_same = kNone;  // the next queued change of the same prefix
    int64_t arrival_ns = 0;      // the oldest arrival merged in (stage/route_arrival.h)
    bool nop = false;            // merged back to where it started: nothing to deliver
  };
  static_assert(sizeof(Entry) == 112);
  struct Chain {
    uint64_t first;
    uint64_t last;
  };
  // Blocks of 64 KiB: a lagging reader can leave the whole table queued, and std::deque's
  // 512-octet blocks would make that one allocation per three changes.
  using EntryQueue = boost::container::deque<
      Entry, void, boost::container::deque_options<boost::container::block_bytes<64 * 1024>>::type>;

  uint64_t tail() const { return base_ + entries_.size(); }
  Entry& at(uint64_t seq) { return entries_[seq - base_]; }
  const Entry& at(uint64_t seq) const { return entries_[seq - base_]; }
  static QueuedRoute Queued(const BgpRoute* route);
  static std::optional<BgpRoute> Unqueued(const net::Prefix& prefix, const QueuedRoute& route);
  void Change(const BgpRoute* old_route, const BgpRoute* new_route);
  std::optional<BgpRoute> LookupFor(const FanoutReader* reader, const net::Prefix& prefix) const;
  void ReaderUnblocked(FanoutReader* reader);
  void FireReady(FanoutReader* reader);
  bool DrainSlice();
  void Trim();

  boost::asio::io_context& io_;
  BgpStage* upstream_ = nullptr;
  std::vector<FanoutReader*> readers_;
  EntryQueue entries_;
  uint64_t base_ = 0;  // sequence number of entries_.front()
  absl::flat_hash_map<net::Prefix, Chain> index_;
  uint64_t merged_ = 0;
  std::atomic<uint64_t> published_{0};  // entries_.size() for other threads
  stage::BackgroundTask drain_task_;
};

}  // namespace sluice::bgp
