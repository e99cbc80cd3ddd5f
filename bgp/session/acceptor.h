#pragma once
// Acceptor: a listening TCP socket for BGP (passive open, RFC 4271 §8) on one address and port.
// It hands every accepted connection to its handler, which matches it to a peer. Peers' TCP MD5
// keys (RFC 2385) are set on it so that their signed SYNs are accepted. While some peer uses GTSM
// (RFC 5082) it sends with TTL 255, so that such a peer accepts our SYN-ACK (accepted sockets
// inherit it; the GTSM peer's own connection then also gets its minimum TTL).
//
// An IPv6 acceptor takes IPv6 connections only (IPV6_V6ONLY): IPv4 peers need an IPv4 acceptor.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "bgp/session/asio.h"
#include "net/ip_address.h"

namespace sluice::bgp {

class Acceptor : public std::enable_shared_from_this<Acceptor> {
 public:
  using Handler = std::function<void(boost::asio::ip::tcp::socket)>;

  // Binds and listens on `address`:`port` (port 0: any free port; see port()).
  // Errors: Unavailable naming the address when it cannot be bound (in use, not local, ...).
  static absl::StatusOr<std::shared_ptr<Acceptor>> Open(boost::asio::io_context& io,
                                                        const net::IPAddress& address,
                                                        uint16_t port, Handler handler);
  Acceptor(boost::asio::io_context& io, Handler handler);
  ~Acceptor();

  const net::IPAddress& address() const { return address_; }
  uint16_t port() const { return port_; }
  // Sets (empty: removes) the MD5 key for connections from `peer`. A peer of the other family is
  // not this acceptor's business (OK, nothing done).
  absl::Status SetMd5Key(const net::IPAddress& peer, const std::string& key);
  // TTL (hop limit) 255 on what it sends, or the system default.
  absl::Status SetTtl255(bool on);
  void Close();

 private:
  void AcceptNext();

  boost::asio::ip::tcp::acceptor acceptor_;
  Handler handler_;
  net::IPAddress address_;
  uint16_t port_ = 0;
};

}  // namespace sluice::bgp
