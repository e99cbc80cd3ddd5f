#pragma once
// XrlFibClient: the RIB's FibClient (rib/fib_client.h) over fea_fib/1.0 — each FIB batch is one
// apply_batch_packed call to the FEA (its changes in columns), several in flight, delivered in
// order (calls from one router to one target travel on one ordered stream, ipc/xrl_router.h).
//
// FEA lifetime (driven by FeaFeeds, fea_feeds.h): FeaBorn(instance) starts a full push —
// start_full_push, then the RIB's re-send (Rib::FeaBorn), then, once both families have handed
// their last batch over (FullPushDone), complete_full_push, which removes from the FEA what was
// not re-sent. FeaDied() stops sending; batches in flight fail with UNAVAILABLE.
//
// A RIB that has just started sends complete_full_push only when its FullPushGate opens
// (full_push_gate.h): the protocols the FEA holds routes of have re-fed it, or the restart time
// has passed. One client per FEA the RIB feeds (fea_feeds.h); they share the RIB's gate.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "ipc/xrl_router.h"
#include "rib/fib_client.h"
#include "rib/service/full_push_gate.h"

namespace sluice::rib {

class XrlFibClient : public FibClient {
 public:
  // `gate` outlives the client.
  XrlFibClient(boost::asio::io_context& io, ipc::XrlRouter& router, FullPushGate& gate);
  ~XrlFibClient() override;
  // complete_full_push waits until `flush(fn)` calls fn: every FIB change the RIB has queued
  // by then has been sent (Rib::WhenSettled), so the sweep follows them on the ordered stream.
  void SetFlush(std::function<void(std::function<void()>)> flush) { flush_ = std::move(flush); }
  void SendBatch(FibBatch batch, std::function<void(absl::Status)> done) override;
  void FullPushDone(net::Family family) override;

  // The FEA `instance` was born: start_full_push is sent to it (before any batch).
  void FeaBorn(const std::string& instance);
  // start_full_push to the FEA in use (the RIB re-sends to a lagging FEA); nothing when none.
  void BeginFullPush() override;
  void FeaDied();

  const std::string& fea() const { return fea_; }
  struct Stats {
    uint64_t batches = 0;
    uint64_t changes = 0;
    uint64_t failed = 0;
    uint64_t full_pushes = 0;  // completed
    uint64_t stale_removed = 0;
  };
  const Stats& stats() const { return stats_; }
  std::string Describe() const;

 private:
  boost::asio::io_context& io_;
  ipc::XrlRouter& router_;
  std::string fea_;                // the FEA instance batches go to; empty while none
  std::string name_;               // the last FEA born
  uint64_t generation_ = 0;        // +1 per birth and death
  bool done_[2] = {false, false};  // FullPushDone per family in this generation
  bool started_ = false;           // start_full_push answered in this generation
  // Sends complete_full_push once the push is done, started and the gate open.
  void MaybeComplete();
  void Complete();
  std::function<void(std::function<void()>)> flush_;
  FullPushGate& gate_;
  Stats stats_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace sluice::rib
