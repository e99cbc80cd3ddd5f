#pragma once
// PeerStatus: what the peer list shows about one peer (issue 7, item 2) — its configuration key,
// FSM state, negotiated parameters, counters, uptime and last error.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "bgp/session/fsm.h"
#include "bgp/wire/constants.h"
#include "bgp/wire/notification.h"
#include "net/ip_address.h"

namespace sluice::bgp {

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
  PeerCounters counters;
  std::string last_error;
  std::optional<Notification> last_notification_sent, last_notification_received;
  bool max_prefix_exceeded = false;  // accepted prefixes above the limit now
  int consecutive_failures = 0;
  double idle_hold_remaining_s = 0;  // seconds until the session starts again by itself

  // One line: "127.0.0.2 AS65001 Established up 12s in 40 out 3 pfx 3/3/0".
  std::string ToString() const;
};

}  // namespace sluice::bgp
