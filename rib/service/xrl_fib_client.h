#pragma once
// XrlFibClient: the RIB's FibClient (rib/fib_client.h) over fea_fib/1.0 — each FIB batch is one
// apply_batch_packed call to the FEA (its changes in columns), several in flight, delivered in
// order (calls from one router to one target travel on one ordered stream, ipc/xrl_router.h).
//
// FEA lifetime (driven by FeaWatcher, fea_watcher.h): FeaBorn(instance) starts a full push —
// start_full_push, then the RIB's re-send (Rib::FeaBorn), then, once both families have handed
// their last batch over (FullPushDone), complete_full_push, which removes from the FEA what was
// not re-sent. FeaDied() stops sending; batches in flight fail with UNAVAILABLE.

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "ipc/xrl_router.h"
#include "rib/fib_client.h"

namespace boost::asio {
class io_context;
}

namespace sluice::rib {

class XrlFibClient : public FibClient {
 public:
  XrlFibClient(boost::asio::io_context& io, ipc::XrlRouter& router);

  void SendBatch(FibBatch batch, std::function<void(absl::Status)> done) override;
  void FullPushDone(net::Family family) override;

  // The FEA `instance` was born: start_full_push is sent to it (before any batch).
  void FeaBorn(const std::string& instance);
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
  uint64_t generation_ = 0;        // +1 per birth and death
  bool done_[2] = {false, false};  // FullPushDone per family in this generation
  Stats stats_;
};

}  // namespace sluice::rib
