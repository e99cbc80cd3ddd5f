#pragma once
// EncodeThread: one thread on which PeerOuts collapse, group and encode their batches into
// UPDATEs (PeerOut::Options::encoder), so that the event loop only hands each batch over and
// sends what comes back. With the shard stage, encoding is most of what is left on the loop: the
// loop is the part of the pipeline that does not spread over the shards.
//
// One thread, not a pool: jobs run in the order they were posted, so each PeerOut's batches are
// encoded in order; and the thread's encoding scratch and EncodedGroupCache (both per thread) see
// the batches of every peer, so peers that get the same changes still share one encoding.
//
// Lifetime: it outlives every PeerOut that posts to it. Its destructor runs the jobs posted
// (their results go to their PeerOuts' loops, which drop those of PeerOuts gone), then the thread
// ends, which frees its caches' references to attribute sets: it must go before the stores of
// the sets handed to it.

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>

#include "boost/asio/executor_work_guard.hpp"
#include "boost/asio/io_context.hpp"
#include "boost/asio/post.hpp"

namespace sluice::bgp {

class EncodeThread {
 public:
  // `thread_name`: what top -H, perf and the benchmarks show (at most 15 characters).
  explicit EncodeThread(std::string thread_name = "bgp-encode");
  ~EncodeThread();
  EncodeThread(const EncodeThread&) = delete;
  EncodeThread& operator=(const EncodeThread&) = delete;

  // Runs `job` (a callable taking nothing, may be move-only) on the thread, after the jobs
  // posted before it. Any thread.
  template <class Job>
  void Post(Job job) {
    pending_.fetch_add(1, std::memory_order_relaxed);
    boost::asio::post(io_, [this, job = std::move(job)]() mutable {
      job();
      pending_.fetch_sub(1, std::memory_order_release);
    });
  }
  // Jobs posted and not yet run to their end. Whatever a job posted elsewhere (its results to a
  // loop) was posted once this no longer counts it. Any thread.
  uint64_t pending() const { return pending_.load(std::memory_order_acquire); }
  // The thread's loop: what its jobs post to, to run after themselves (EncodedGroupCache's
  // end-of-turn clear).
  boost::asio::io_context& io() { return io_; }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::atomic<uint64_t> pending_{0};
  std::thread thread_;
};

}  // namespace sluice::bgp
