#pragma once
// Endpoint: the HTTP server behind `metrics { listen ADDRESS port N; }` (prometheus-cpp's
// Exposer, civetweb threads of its own). GET /metrics answers with the last published
// snapshot in the Prometheus text exposition format; a scrape never waits for the processes
// nor touches the router manager's event loop.

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "net/ip_address.h"
#include "rtrmgr/metrics/snapshot.h"

namespace prometheus {
class Exposer;
}

namespace sluice::rtrmgr::metrics {

class Endpoint {
 public:
  Endpoint();
  ~Endpoint();
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;

  // Serves on `address`:`port` (TCP), closing the socket served before, if any. Port 0 picks
  // a free port (port() says which). Errors: Unavailable (the address cannot be bound; nothing
  // is served then).
  absl::Status Listen(const net::IPAddress& address, uint16_t port);
  // Closes the socket. The HTTP server takes up to about 2 s to wind down (civetweb's threads
  // poll), and answers meanwhile: it does so on a thread of its own, so that the caller (the
  // event loop) does not wait; a Listen on the same port, and the destructor, wait for it.
  void Stop();
  bool serving() const { return exposer_ != nullptr; }
  uint16_t port() const { return port_; }
  // What the next scrapes answer with. Any thread.
  void Publish(Snapshot snapshot);

 private:
  class Collectable;
  std::shared_ptr<Collectable> collectable_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  uint16_t port_ = 0;
  // Servers winding down, by the port they served.
  std::vector<std::pair<uint16_t, std::thread>> closing_;
};

}  // namespace sluice::rtrmgr::metrics
