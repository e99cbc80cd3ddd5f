#include "rtrmgr/cli/run_until.h"

#include <chrono>

namespace sluice::rtrmgr::cli {

bool RunUntil(boost::asio::io_context& io, int timeout_ms, const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!done() && std::chrono::steady_clock::now() < deadline) {
    io.run_one_for(std::chrono::milliseconds(10));
    if (io.stopped()) io.restart();
  }
  return done();
}

}  // namespace sluice::rtrmgr::cli
