#pragma once
// One RTR session with one cache (RFC 8210 §8; version 0, RFC 6810, by negotiation), without
// sockets or timers of its own: the connection (rtr_connection.h) feeds it the cache's octets,
// connection events and the time, and sends what it answers. What the cache says reaches the
// VrpStore under this cache's id one whole response at a time, at End of Data (§5.8), so the
// union never holds half an update; a Reset Query's answer replaces the cache's whole set,
// withdrawing only what is no longer there.
//
// Timers (§6): after each End of Data a Serial Query is due after the refresh interval; a query
// unanswered for the retry interval closes the session; the cache's data expires (is dropped
// from the store) the expire interval after the last End of Data, connected or not. Intervals
// come from the cache's End of Data (version 1, when within §6's bounds) or the defaults given.
//
// Errors: a malformed or unexpected PDU, a withdrawal of a VRP the cache never announced (code
// 6) or a duplicate announcement (code 7) answer an Error Report and close the session; the
// data of earlier responses stays until it expires, and the next connection asks for the whole
// set (Reset Query). An Error Report from the cache closes it
// too, except that "Unsupported Protocol Version" with an older version switches this session
// to that version for the next connection (§7). Never throws.

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "rpki/rtr_pdu.h"
#include "rpki/vrp_store.h"

namespace sluice::rpki {

class RtrSession {
 public:
  using Clock = std::chrono::steady_clock;

  enum class State {
    kIdle,         // not connected
    kResetting,    // Reset Query sent, waiting for the whole set
    kSyncing,      // Serial Query sent, waiting for the changes
    kEstablished,  // in sync; the next Serial Query at the refresh time
  };
  static const char* StateName(State state);

  // What to do after an event.
  struct Output {
    std::vector<uint8_t> send;   // octets for the cache (may be empty)
    bool close = false;          // close the connection (after sending `send`)
    bool reconnect_now = false;  // with close: reconnect at once (version negotiation)
    std::string error;           // with close: why, for the log ("" for a plain close)
  };

  // `store` outlives the session. `version`: the highest to offer (1 or 0).
  RtrSession(VrpStore* store, VrpStore::CacheId cache, rtr::Intervals defaults = {},
             uint8_t version = 1);

  // The transport connected: a Serial Query when this session has a session id and serial
  // from an earlier connection (the data is kept), else a Reset Query.
  Output Connected(Clock::time_point now);
  // Octets from the cache, any amount; whole PDUs are handled, the rest kept for later.
  Output Received(std::span<const uint8_t> octets, Clock::time_point now);
  // The connection closed or failed; a response in progress is dropped. Data stays until it
  // expires. A Serial Query left unanswered makes the next query a Reset Query.
  void Disconnected();
  // The next time Tick must be called (refresh, query timeout or expiry); nullopt: none due.
  std::optional<Clock::time_point> Deadline() const;
  Output Tick(Clock::time_point now);

  State state() const { return state_; }
  uint8_t version() const { return version_; }
  std::optional<uint16_t> session_id() const { return session_id_; }
  std::optional<uint32_t> serial() const { return serial_; }
  const rtr::Intervals& intervals() const { return intervals_; }
  // The time of the last End of Data; nullopt before the first or after the data expired.
  std::optional<Clock::time_point> last_sync() const { return last_sync_; }
  bool has_data() const { return last_sync_.has_value(); }
  uint64_t expiries() const { return expiries_; }

 private:
  Output Handle(const rtr::Decoded& decoded, std::span<const uint8_t> raw, Clock::time_point now);
  Output OnCacheResponse(const rtr::CacheResponse& pdu, std::span<const uint8_t> raw);
  Output OnPrefix(const rtr::PrefixPdu& pdu, std::span<const uint8_t> raw);
  Output OnEndOfData(const rtr::EndOfData& pdu, std::span<const uint8_t> raw,
                     Clock::time_point now);
  Output OnErrorReport(const rtr::ErrorReport& pdu, uint8_t version);
  // A Serial Query when there is a session id and serial, else a Reset Query.
  Output Query(Clock::time_point now);
  Output Fail(rtr::ErrorCode code, std::span<const uint8_t> raw, const std::string& what);
  void ApplyReset();
  void ApplyChanges();
  void Expire();

  VrpStore* store_;
  VrpStore::CacheId cache_;
  rtr::Intervals defaults_;
  rtr::Intervals intervals_;
  uint8_t version_;
  State state_ = State::kIdle;
  std::vector<uint8_t> buffer_;             // received, not yet a whole PDU
  bool in_response_ = false;                // between Cache Response and End of Data
  absl::flat_hash_map<Vrp, bool> pending_;  // this response: VRP → announced (true), withdrawn
  std::optional<uint16_t> session_id_;
  std::optional<uint32_t> serial_;
  std::optional<Clock::time_point> last_sync_;
  Clock::time_point query_sent_{};
  uint64_t expiries_ = 0;
};

}  // namespace sluice::rpki
