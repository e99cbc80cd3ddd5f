#pragma once
// PeerStatus: what the peer list shows about one peer — its configuration key,
// FSM state, negotiated parameters, counters, uptime and last error.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bgp/session/fsm.h"
#include "bgp/wire/constants.h"
#include "bgp/wire/notification.h"
#include "net/ip_address.h"

namespace sluice::bgp {

// Why an Established session ended (PeerCounters::session_resets).
enum class ResetCause : uint8_t {
  kUpdateError,           // a malformed UPDATE that RFC 7606 says resets the session
  kMaxPrefix,             // max-prefix with action teardown (RFC 4486 subcode 1)
  kAdjRibInLimit,         // the Adj-RIB-In ceiling (RFC 4486 subcode 1)
  kHoldTimerExpired,      // RFC 4271 §6.5
  kNotificationReceived,  // the peer sent a NOTIFICATION
  kMessageError,          // a bad header or a message the state does not expect (§6.1, §6.6)
  kConnectionLost,        // TCP closed or failed
  kAdministrative,        // disabled, reset, removed, identity changed, shut down
  kInternalError,         // a fault of ours while handling the session (an exception)
};
inline constexpr int kResetCauses = 9;
// "update-error", "max-prefix", "adj-rib-in-limit", "hold-timer-expired",
// "notification-received", "message-error", "connection-lost", "administrative",
// "internal-error".
std::string_view ResetCauseName(ResetCause cause);

struct PeerCounters {
  // Messages received and sent, all types, and by type.
  uint64_t messages_in = 0, messages_out = 0;
  uint64_t opens_in = 0, opens_out = 0;
  uint64_t updates_in = 0, updates_out = 0;
  uint64_t keepalives_in = 0, keepalives_out = 0;
  uint64_t notifications_in = 0, notifications_out = 0;
  uint64_t route_refreshes_in = 0, route_refreshes_out = 0;
  // NLRI in the UPDATEs received since the peer was added (counted by the session).
  uint64_t nlri_announced_in = 0, nlri_withdrawn_in = 0;
  // RFC 7606 approaches applied to the UPDATEs received (an UPDATE with several errors counts
  // in each approach it needed): treat-as-withdraw and attribute discard per UPDATE;
  // AFI/SAFI disable per family disabled. Session resets are in session_resets.
  uint64_t updates_treat_as_withdraw = 0;
  uint64_t updates_attribute_discard = 0;
  uint64_t afi_safi_disables = 0;
  // Times an Established session ended, by cause (index: ResetCause).
  std::array<uint64_t, kResetCauses> session_resets{};
  // Reported by the routing side (SessionSender::ReportPrefixCount / ReportRouteCounts).
  size_t prefixes_received = 0;  // in the Adj-RIB-In
  size_t prefixes_accepted = 0;  // after import policy
  size_t prefixes_advertised = 0;
  uint64_t established_transitions = 0;  // times the session reached Established
  uint64_t connect_attempts = 0;
  uint64_t collisions = 0;  // connections closed by collision resolution (RFC 4271 §6.8)
};

struct PeerStatus {
  net::IPAddress address;
  uint16_t port = 0;
  uint32_t remote_as = 0;
  std::string description;
  bool enabled = false;
  FsmState state = FsmState::kIdle;
  double uptime_s = 0;  // seconds in Established; 0 when not Established
  // The current (or, when down, last) session's transport and negotiated parameters.
  std::optional<net::IPAddress> local_address;
  uint16_t local_port = 0, remote_port = 0;
  net::IPv4Address remote_bgp_id;
  uint16_t hold_time_s = 0;       // negotiated
  uint16_t keepalive_time_s = 0;  // negotiated
  AfiSafiSet families;            // negotiated
  bool four_octet_as = false;
  bool route_refresh = false;
  // Graceful restart (RFC 4724): the capability we sent and the one the peer sent in the current
  // (or last) session; `graceful_notification`: both set the N bit (RFC 8538).
  std::optional<GracefulRestart> graceful_restart_sent, graceful_restart_received;
  bool graceful_notification = false;
  PeerCounters counters;
  std::string last_error;
  std::optional<Notification> last_notification_sent, last_notification_received;
  bool max_prefix_exceeded = false;  // prefixes above the max-prefix limit now
  // Families RFC 7606 AFI/SAFI disable (RFC 4760 §7) turned off for the current session: the
  // peer's routes of these are gone and further NLRI of them are ignored until the next session.
  AfiSafiSet disabled_families;
  int consecutive_failures = 0;
  double idle_hold_remaining_s = 0;  // seconds until the session starts again by itself

  // One line: "127.0.0.2 AS65001 Established up 12s in 40 out 3 pfx 3/3/0".
  std::string ToString() const;
};

}  // namespace sluice::bgp
