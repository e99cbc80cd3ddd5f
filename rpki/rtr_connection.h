#pragma once
// The TCP connection to one RTR cache (RFC 8210 §9: plain TCP, port 323 by IANA, 8282/8323 by
// common use) around an RtrSession: connects, feeds the session the cache's octets and the
// loop's clock, sends what it answers, arms one timer for the session's deadline, and
// reconnects after a close. Everything on one io_context.
//
// Reconnecting: after a failed connect or a closed session, wait 1 s, doubling on each failure
// up to the session's retry interval (RFC 8210 §6; the cache's, or the configured default), and
// reset to 1 s once a response completes. "Unsupported Protocol Version" reconnects at once with
// the older version. The cache's data stays in the store while reconnecting, until it expires.

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "net/ip_address.h"
#include "rpki/rtr_session.h"
#include "rpki/vrp_store.h"

namespace sluice::rpki {

struct CacheConfig {
  net::IPAddress address;
  uint16_t port = 323;
  uint8_t preference = 0;  // lower is preferred (RFC 8210 §10)
  // Used until the cache's End of Data brings its own (version 1), and always with version 0.
  rtr::Intervals intervals;

  std::string Name() const;  // "127.0.0.1:8323"
};

class RtrConnection {
 public:
  // `on_event` runs after anything that may have changed the store or the session's state
  // (End of Data applied, expiry, connect, close). `store` and `io` outlive the connection.
  RtrConnection(boost::asio::io_context& io, CacheConfig config, VrpStore* store,
                VrpStore::CacheId id, std::function<void()> on_event);
  ~RtrConnection();
  RtrConnection(const RtrConnection&) = delete;
  RtrConnection& operator=(const RtrConnection&) = delete;

  // Connects (and keeps reconnecting) until Stop.
  void Start();
  // Closes the connection and drops this cache's data from the store.
  void Stop();

  const CacheConfig& config() const { return config_; }
  VrpStore::CacheId id() const { return id_; }
  const RtrSession& session() const { return session_; }
  bool running() const { return running_; }
  bool connected() const { return connected_; }
  // Why the last connection ended or failed ("" if none has).
  const std::string& last_error() const { return last_error_; }
  uint64_t connects() const { return connects_; }

 private:
  void Connect();
  void OnConnected(const boost::system::error_code& error);
  void ReadSome();
  void Apply(RtrSession::Output out);
  void Write(std::vector<uint8_t> octets);
  void WriteNext();
  void Close(const std::string& why, bool reconnect_now);
  void ScheduleReconnect(std::chrono::seconds delay);
  void ArmDeadline();

  CacheConfig config_;
  VrpStore* store_;
  VrpStore::CacheId id_;
  std::function<void()> on_event_;
  RtrSession session_;
  boost::asio::ip::tcp::socket socket_;
  boost::asio::steady_timer reconnect_timer_;
  boost::asio::steady_timer deadline_timer_;
  std::vector<uint8_t> read_buffer_;
  std::deque<std::vector<uint8_t>> write_queue_;
  bool running_ = false;
  bool connected_ = false;
  std::chrono::seconds backoff_{1};
  std::string last_error_;
  uint64_t connects_ = 0;
  uint64_t generation_ = 0;  // of the socket: handlers of an earlier connection do nothing
  // Handlers hold a weak copy: a handler that runs after the connection is gone does nothing.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace sluice::rpki
