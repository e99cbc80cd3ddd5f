#pragma once
// FinderThread: a Finder (finder/finder_server.h) on its own thread and event loop, for tests
// and benchmarks that run routers in the same process.

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "finder/finder_server.h"

namespace sluice::testing {

class FinderThread {
 public:
  explicit FinderThread(finder::FinderOptions options)
      : guard_(boost::asio::make_work_guard(io_)),
        server_(std::make_unique<finder::FinderServer>(io_, std::move(options))) {
    status_ = server_->Start();
    thread_ = std::thread([this] { io_.run(); });
  }
  ~FinderThread() { Stop(); }

  const absl::Status& status() const { return status_; }
  const std::vector<std::string>& endpoints() const { return server_->endpoints(); }

  // Runs `fn` on the Finder's loop and returns what it returns.
  template <typename F>
  auto Run(F fn) {
    std::packaged_task<decltype(fn())()> task(std::move(fn));
    auto result = task.get_future();
    boost::asio::post(io_, [&task] { task(); });
    return result.get();
  }

  // Stops the Finder (components see it go) and its thread. Idempotent.
  void Stop() {
    if (!thread_.joinable()) return;
    Run([this] {
      server_->Stop();
      return 0;
    });
    guard_.reset();
    io_.stop();
    thread_.join();
    server_.reset();
  }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_;
  std::unique_ptr<finder::FinderServer> server_;
  absl::Status status_;
  std::thread thread_;
};

}  // namespace sluice::testing
