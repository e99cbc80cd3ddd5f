#pragma once
// RibOut: the Loc-RIB into the RIB process, as protocol "ebgp" or "ibgp" (XORP NSDI'05 §5.1
// RibIpcHandler). The tail of the RIB's fanout branch.
//
// Changes are queued in order and sent through RibRouteClient in batches of up to `batch`
// changes, with up to `window` batches in flight (pipelined; the client keeps them in order).
// When `batch * window` changes wait, RibOut blocks its FanoutReader, so a slow RIB holds back
// only this branch. A failed batch means the RIB is gone: RibOut drops everything from then on
// (the RIB's routes die with it) and stays idle; when a RIB is born again the pipeline replaces
// this branch by a new RibOut after a Dump stage, which sends every route again.
//
// While this speaker restarts (`Options::gate` closed: selection deferral, end_of_rib_gate.h) it
// keeps its reader blocked: the RIB, which holds our previous routes as stale, gets each prefix
// once the selection is final.
//
// Routes originated by this router are not sent (they come from the RIB in the first place).
// Each change keeps the arrival of the work that queued it (stage/route_arrival.h), for the
// route latency histogram.
// Profiling points: "bgp_queued_to_rib" when a change is queued, "bgp_sent_to_rib" when its
// batch is handed to the client.

#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "bgp/stages/bgp_stage.h"
#include "bgp/stages/branch_tail.h"
#include "bgp/stages/end_of_rib_gate.h"
#include "bgp/stages/rib_client.h"
#include "stage/profile.h"

namespace sluice::bgp {

class RibOut : public BranchTail {
 public:
  struct Options {
    // Changes per batch. Each batch is one RPC with a fixed cost in both processes. A batch
    // leaves at each push, full or not, while the window has room: a lone change never waits.
    size_t batch = 4000;
    // Batches in flight: 32,000 changes with the default batch. Fewer, and while the RIB is
    // slower than the peers (a full table arriving) the routes it has not taken wait in the
    // Fanout's queue, where each change costs an entry and an index slot; more, and they wait
    // in the RIB's memory instead.
    size_t window = 8;
    EndOfRibGate* gate = nullptr;  // selection deferral; outlives the RibOut
  };
  struct Counters {
    uint64_t queued = 0;  // changes queued (events)
    uint64_t sent = 0;    // changes handed to the client
    uint64_t acked = 0;   // changes the RIB confirmed
    uint64_t batches = 0;
    bool failed = false;
  };

  RibOut(std::string name, RibRouteClient* client, net::Family family, FlowControl* reader,
         Options options, stage::Profiler* profiler = nullptr);
  ~RibOut() override;

  std::string_view kind() const override { return "RibOut"; }
  std::string Status() const override;

  void add_route(const BgpRoute& route, BgpStage* caller) override;
  void delete_route(const BgpRoute& route, BgpStage* caller) override;
  void replace_route(const BgpRoute& old_route, const BgpRoute& new_route,
                     BgpStage* caller) override;
  void push(BgpStage* caller) override { Send(); }

  const Counters& counters() const { return counters_; }
  size_t in_flight() const { return in_flight_; }
  size_t waiting() const { return queue_.size(); }
  // Changes waiting to be sent plus those sent and not yet acknowledged by the RIB.
  std::optional<uint64_t> queue_depth() const override {
    return queue_.size() + (counters_.sent - counters_.acked);
  }

 private:
  void Queue(RibRouteChange::Op op, const BgpRoute& route);
  void Send();
  void OnDone(size_t changes, absl::Status status);
  void UpdateBlocked();

  RibRouteClient* client_;
  net::Family family_;
  FlowControl* reader_;
  Options options_;
  stage::ProfilePoint* queued_point_ = nullptr;
  stage::ProfilePoint* sent_point_ = nullptr;
  std::deque<RibRouteChange> queue_;
  size_t in_flight_ = 0;
  bool blocked_ = false;  // reader blocked: the queue is full, or the gate is closed
  bool gated_ = false;
  EndOfRibGate::Observer gate_observer_;
  Counters counters_;
  std::shared_ptr<RibOut*> self_;
};

}  // namespace sluice::bgp
