#pragma once
// Gatherer: every `interval`, on the router manager's event loop, asks each running process
// for its numbers over its own XRLs — bgp/1.0/list_peers, rib/1.0/list_protocols,
// fea_fib/1.0/get_stats, rpki/1.0/get_status, and profile/1.0/get_stage_stats of sluice-bgp and
// sluice-rib (their stages' queue depths) — reads each process's /proc/PID/stat and statm,
// and publishes the snapshot once every answer is in, or at the next tick with what came
// (a process that did not answer keeps its previous values and shows
// sluice_metrics_source_up 0). Nothing waits: the calls are asynchronous.

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ipc/xrl_router.h"
#include "rtrmgr/metrics/snapshot.h"

namespace sluice::rtrmgr::metrics {

class Gatherer {
 public:
  // The supervised processes now (name, pid, restarts; stats are filled here).
  using ProcessList = std::function<std::vector<ProcessSample>()>;
  using Publish = std::function<void(Snapshot)>;

  Gatherer(boost::asio::io_context& io, ipc::XrlRouter& router, ProcessList processes,
           Publish publish, std::chrono::milliseconds interval = std::chrono::seconds(5));
  ~Gatherer();
  Gatherer(const Gatherer&) = delete;
  Gatherer& operator=(const Gatherer&) = delete;

  // Gathers now, then every interval, until destroyed.
  void Start();

 private:
  struct Round;
  void Tick();
  void BeginRound();
  void Finish(Round& round);
  template <typename Request, typename Reply>
  void Ask(const std::shared_ptr<Round>& round, const std::string& target,
           const ipc::Method<Request, Reply>& method, std::optional<Reply> Snapshot::*field);

  ipc::XrlRouter& router_;
  ProcessList processes_;
  Publish publish_;
  std::chrono::milliseconds interval_;
  boost::asio::steady_timer timer_;
  std::shared_ptr<Round> round_;  // the round in flight, if any
  Snapshot last_;                 // the last published snapshot (kept values for late ones)
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace sluice::rtrmgr::metrics
