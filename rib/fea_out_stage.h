#pragma once
// FeaOutStage: the last stage of a RIB network; turns route changes into FIB transactions sent
// to the FEA in batches (XORP NSDI'05 §5.2, the RIB's output to the FEA).
//
// Each add, replace and delete from upstream becomes one FibChange (with the winner's resolved
// nexthop). Changes are queued into batches of up to `batch_size`; a batch is sent when full or
// at the end of an upstream batch (push), with up to `max_in_flight` batches outstanding —
// pipelined, in order. A refused batch is counted and logged (the FEA names the route it
// refused); the stream goes on. A lost batch (UNAVAILABLE or DEADLINE_EXCEEDED: it may not have
// reached an FEA that is still up) is repaired as a lagging FEA's backlog is (below), the full
// push waiting 1 s after the FEA has answered what was in flight, doubling up to 30 s while
// losses follow one another.
//
// FEA lifetime: until the FEA is known to be up (FeaBorn), nothing is queued. FeaBorn() — the
// first time and whenever the FEA was born again — forgets everything queued or in flight and
// re-sends the whole FIB: a background walk in prefix order over every route source
// (route_source.h), sending an add for each prefix's winner (lookup upstream). Until the walk
// has passed a prefix, live changes for it are not queued (the walk sends what it finds); the
// walk pauses while enough batches are waiting (or max_backlog changes). When the walk has handed
// its last batch to the FibClient, FibClient::FullPushDone(family) tells it so. FeaDied() stops
// sending until the next birth.
//
// Bounded backlog: changes queued and not yet sent are at most `max_backlog`. An FEA that stops
// answering (stopped, swapping, slower than the routes change) would otherwise grow the RIB
// without bound. Past the bound the FEA is lagging: the queue is dropped and nothing more is
// queued. Once the FEA has answered every batch sent, it has caught up and `on_caught_up` runs:
// the Rib tells the FibClient that a full push begins (FibClient::BeginFullPush: the FEA marks
// what it holds stale) and re-sends the whole FIB as after a birth; the FEA then removes what
// was not re-sent, so changes dropped while it lagged, deletions among them, are not lost.
//
// A batch carries the oldest arrival of its changes (stage/route_arrival.h: the arrival current
// when each was queued), for the route latency histogram the FEA keeps.
//
// Profiling points (stage/profile.h): "rib_queued_to_fea" when a change is queued,
// "rib_sent_to_fea" when its batch is handed to the FibClient; text "<op> <prefix>".

#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/backoff.h"
#include "rib/fib_client.h"
#include "rib/rib_stage.h"
#include "rib/route_source.h"
#include "stage/background_task.h"
#include "stage/profile.h"

namespace sluice::rib {

struct FeaOutOptions {
  // Changes per FIB transaction: one RPC each, with a fixed cost in both processes. A batch
  // also leaves at each push, so a lone change never waits for it to fill.
  size_t batch_size = 4000;
  size_t max_in_flight = 4;  // transactions sent and not yet answered
  // Changes queued and not yet sent, at most; 0: no bound. A queued change takes 24 octets
  // (IPv4 with a nexthop) to 48 (IPv6) in its batch's FibChangeList.
  size_t max_backlog = size_t{1} << 19;
  // Runs (posted to the loop) when a lagging FEA has caught up; it should start a full push to
  // the FEA and call FeaBorn() on every family's FeaOutStage (Rib does). Unset: this stage
  // calls FibClient::BeginFullPush() and its own FeaBorn().
  std::function<void()> on_caught_up = nullptr;
};

class FeaOutStage : public RibLinearStage {
 public:
  FeaOutStage(std::string name, net::Family family, FibClient* client, SourceRegistry* sources,
              boost::asio::io_context& io, FeaOutOptions options, stage::Profiler* profiler);
  ~FeaOutStage() override;

  std::string_view kind() const override { return "FeaOut"; }
  std::string Status() const override;

  void add_route(const RibRoute& route, RibStage* caller) override;
  void delete_route(const RibRoute& route, RibStage* caller) override;
  void replace_route(const RibRoute& old_route, const RibRoute& new_route,
                     RibStage* caller) override;
  void push(RibStage* caller) override;

  void FeaBorn();
  void FeaDied();
  // Calls `fn` once every change queued so far has been handed to the FibClient (so that a call
  // the client makes after `fn` follows them on its ordered stream); dropped if the FEA is born
  // again or dies first.
  void WhenSent(std::function<void()> fn);
  bool fea_up() const { return fea_up_; }
  bool resync_running() const { return resyncing_; }
  // Changes were dropped past max_backlog; a full push follows once the FEA has caught up.
  bool lagging() const { return lagging_; }
  // Nothing queued, in flight, being re-sent or waiting to be (lagging).
  bool idle() const;

  struct Stats {
    uint64_t changes_queued = 0;
    uint64_t batches_sent = 0;
    uint64_t batches_ok = 0;
    uint64_t batches_failed = 0;
    uint64_t resyncs = 0;
    uint64_t lagged = 0;     // times the backlog passed max_backlog
    uint64_t lost = 0;       // batches lost on the way to the FEA (also in batches_failed)
    size_t peak_queued = 0;  // the most changes queued at once
  };
  const Stats& stats() const { return stats_; }
  size_t in_flight() const { return in_flight_; }
  size_t queued() const { return queued_changes_; }
  size_t in_flight_changes() const { return in_flight_changes_; }
  // Changes queued plus those sent and not yet answered by the FEA.
  std::optional<uint64_t> queue_depth() const override { return queued() + in_flight_changes_; }

 private:
  void Queue(FibChange::Op op, const RibRoute& route);
  bool Wanted(const net::Prefix& prefix) const {
    return fea_up_ && !lagging_ && (!resyncing_ || (resync_cursor_ && !(*resync_cursor_ < prefix)));
  }
  void CloseBatch();
  void SendReady();
  // Past max_backlog: drops the queue and stops queueing until the FEA has caught up.
  void FallBehind();
  // A batch was lost: like FallBehind, the full push after a backoff.
  void LoseBatch(uint64_t sequence, const absl::Status& status);
  // A lagging FEA that has answered every batch sent has caught up: on_caught_up, posted.
  void MaybeCaughtUp();
  void DropQueue();  // forgets what is queued and not sent
  void StopWalk();   // stops a re-send walk under way
  // After the re-send walk: tells the client once its last batch has been handed over.
  void MaybeFullPushDone();
  void Completed(uint64_t generation, uint64_t sequence, size_t changes,
                 const absl::Status& status);
  bool ResyncSlice();
  // The re-send walk waits: max_in_flight batches ready, or max_backlog changes queued (those
  // are then closed into a batch and sent).
  bool WalkMustWait();

  net::Family family_;
  boost::asio::io_context& io_;
  FibClient* client_;
  SourceRegistry* sources_;
  FeaOutOptions options_;
  stage::ProfilePoint* queued_point_;
  stage::ProfilePoint* sent_point_;

  bool fea_up_ = false;
  uint64_t generation_ = 0;  // bumped at each birth; stale completions are ignored
  uint64_t next_sequence_ = 1;
  FibChangeList building_;
  int64_t building_arrival_ = 0;  // the oldest arrival of building_'s changes
  std::deque<FibBatch> ready_;
  size_t queued_changes_ = 0;  // in building_ and ready_
  size_t in_flight_ = 0;
  size_t in_flight_changes_ = 0;

  bool lagging_ = false;
  double catch_up_delay_s_ = 0;  // after a lost batch: the wait before the full push
  boost::asio::steady_timer catch_up_timer_;
  Backoff lost_backoff_{1, 30, std::chrono::seconds(60)};
  bool resyncing_ = false;
  bool resync_paused_ = false;
  std::optional<net::Prefix> resync_cursor_;
  // The walk ended; FullPushDone is due once batch `full_push_last_` has been sent.
  bool full_push_pending_ = false;
  uint64_t full_push_last_ = 0;
  uint64_t last_sent_ = 0;  // sequence of the last batch handed to the client
  std::vector<std::pair<uint64_t, std::function<void()>>> when_sent_;  // (batch, fn)
  void RunWhenSent();
  stage::BackgroundTask resync_;

  Stats stats_;
  std::shared_ptr<bool> alive_;
};

}  // namespace sluice::rib
