#pragma once
// FakeCache: an RTR cache (RFC 8210, version 1) on 127.0.0.1 inside a test's event loop,
// serving a VRP set the test changes: a Reset Query gets the whole set, a Serial Query the
// changes since that serial, and each change sends Serial Notify to connected routers. Stop()
// closes the listener and every connection (the cache is gone); Start() listens again on the
// same port with the same session id, as a cache that comes back.

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <memory>
#include <set>
#include <vector>

#include "rpki/vrp_store.h"

namespace sluice::rpki::testing {

class FakeCache {
 public:
  explicit FakeCache(boost::asio::io_context& io, uint16_t session_id = 42);
  ~FakeCache();

  void Start();
  void Stop();
  uint16_t port() const { return port_; }
  // Replaces the set: a new serial, Serial Notify to every connected router.
  void Set(std::set<Vrp> vrps);
  uint64_t queries() const { return queries_; }
  size_t connections() const;

 private:
  struct Client;
  void Accept();
  void Read(const std::shared_ptr<Client>& client);
  void Answer(const std::shared_ptr<Client>& client, uint8_t type, uint32_t serial);

  boost::asio::io_context& io_;
  uint16_t session_id_;
  uint16_t port_ = 0;
  std::unique_ptr<boost::asio::ip::tcp::acceptor> acceptor_;
  std::vector<std::weak_ptr<Client>> clients_;
  std::set<Vrp> vrps_;
  uint32_t serial_ = 0;
  // history_[s]: the set at serial s.
  std::vector<std::set<Vrp>> history_{std::set<Vrp>{}};
  uint64_t queries_ = 0;
};

}  // namespace sluice::rpki::testing
