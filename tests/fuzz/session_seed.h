#pragma once
// Seeds for bgp_session_fuzzer: event streams in its input format (tests/fuzz/
// bgp_session_fuzzer.cc) for sessions that reach Established and then carry UPDATEs.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bgp/wire/byte_io.h"

namespace sluice::bgp::testing {

// Settings bits of the fuzzer's first octet.
inline constexpr uint8_t kSessionPassive = 1;
inline constexpr uint8_t kSessionTwoOctetAs = 2;
inline constexpr uint8_t kSessionIbgp = 4;
inline constexpr uint8_t kSessionAddPath = 8;
inline constexpr uint8_t kSessionNoHoldTime = 16;
inline constexpr uint8_t kSessionAllFamilies = 32;

// An event stream that opens the session the settings describe (our connection, or the peer's
// for a passive session) with the peer's OPEN and KEEPALIVE, so that what follows arrives on an
// Established session.
class SessionSeed {
 public:
  explicit SessionSeed(uint8_t settings);

  // Bytes from the peer on the session's connection.
  void Receive(Bytes message);
  void Keepalive();
  // Time passes (in quarter seconds).
  void Wait(uint8_t quarters);
  // The peer closes the connection.
  void Close();

  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  uint8_t side_bit_ = 0;
  std::vector<uint8_t> bytes_;
};

// A few sessions made here: announcements, withdrawals, route refresh, timers, a collision, a
// NOTIFICATION from the peer, a header error.
std::vector<std::pair<std::string, std::vector<uint8_t>>> SyntheticSessions();

}  // namespace sluice::bgp::testing
