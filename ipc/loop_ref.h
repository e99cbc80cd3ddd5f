#pragma once
// LoopRef: how code on gRPC threads (or another router's loop) runs work on a router's event
// loop, safely after the router is gone (internal to ipc/).
//
// Post() may be called from any thread. A task runs on the loop unless Close() ran before it
// (Close runs on the loop thread, or after the loop stopped, when the router shuts down); after
// Close, Post drops tasks without touching the io_context, which may be gone by then.

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <memory>
#include <mutex>
#include <utility>

namespace sluice::ipc::internal {

class LoopRef : public std::enable_shared_from_this<LoopRef> {
 public:
  static std::shared_ptr<LoopRef> Create(boost::asio::io_context& io) {
    return std::shared_ptr<LoopRef>(new LoopRef(io));
  }

  template <typename F>
  void Post(F&& task) {
    std::lock_guard lock(mu_);
    if (io_ == nullptr) return;
    boost::asio::post(*io_, [self = shared_from_this(), task = std::forward<F>(task)]() mutable {
      if (self->open_) task();
    });
  }

  // Loop thread: a task for the loop, without the cross-thread lock.
  template <typename F>
  void PostFromLoop(F&& task) {
    boost::asio::post(*loop_io_,
                      [self = shared_from_this(), task = std::forward<F>(task)]() mutable {
                        if (self->open_) task();
                      });
  }

  void Close() {
    open_ = false;
    std::lock_guard lock(mu_);
    io_ = nullptr;
  }

  bool open() const { return open_; }                        // loop thread
  boost::asio::io_context& io() const { return *loop_io_; }  // loop thread, before Close

 private:
  explicit LoopRef(boost::asio::io_context& io) : io_(&io), loop_io_(&io) {}

  std::mutex mu_;
  boost::asio::io_context* io_;       // guarded by mu_; null after Close
  boost::asio::io_context* loop_io_;  // for loop-thread use
  bool open_ = true;                  // loop thread
};

}  // namespace sluice::ipc::internal
