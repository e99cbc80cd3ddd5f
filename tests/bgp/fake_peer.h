#pragma once
// FakePeer: a BGP speaker for tests, made of a blocking TCP socket and the codec — it connects to
// a real sluice-bgp (or an in-process BgpDaemon) from a loopback address of its own, exchanges
// OPEN and KEEPALIVE, writes whatever bytes a test makes (well-formed or not), and reads the
// NOTIFICATION it gets back. Its calls block (with timeouts): run them on a thread other than the
// daemon's event loop when the daemon runs in the test's process.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bgp/wire/notification.h"

namespace sluice::bgp::testing {

class FakePeer {
 public:
  // Connects from `local` (an IPv4 loopback address) to `remote`:`port`. The kernel completes
  // the connection before the daemon accepts it, so this does not block on the daemon.
  FakePeer(const std::string& local, const std::string& remote, uint16_t port);
  ~FakePeer();
  FakePeer(const FakePeer&) = delete;
  FakePeer& operator=(const FakePeer&) = delete;

  bool connected() const { return connected_; }
  void Write(const std::vector<uint8_t>& bytes);
  // Sends OPEN (AS `as`, hold time 90 s, IPv4 and IPv6 unicast, 4-octet AS, route refresh) and,
  // once the other side's OPEN is in, KEEPALIVE. False when no OPEN came within `seconds`.
  bool Handshake(uint32_t as, uint32_t bgp_id, double seconds = 10);
  // The next NOTIFICATION within `seconds`, other messages skipped; nullopt on timeout or close.
  std::optional<Notification> AwaitNotification(double seconds);

 private:
  int fd_ = -1;
  bool connected_ = false;
};

// One whole BGP message from the socket `fd` within `seconds`; empty on timeout or close.
std::vector<uint8_t> ReadMessage(int fd, double seconds);
// Writes all of `bytes` to the socket `fd` (blocking); stops early only on an error.
void WriteAll(int fd, const std::vector<uint8_t>& bytes);

// An UPDATE whose Path Attributes field is `attributes` exactly as given (lengths inside it
// unchecked) and with no Withdrawn Routes or NLRI: for malformed attribute lists.
std::vector<uint8_t> RawUpdate(const std::vector<uint8_t>& attributes);

}  // namespace sluice::bgp::testing
