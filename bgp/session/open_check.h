#pragma once
// The checks of a peer's OPEN that need the session's configuration (RFC 4271 §6.2; the checks
// that need none are DecodeOpen's), and connection collision resolution (§6.8).

#include <cstdint>
#include <optional>
#include <string>

#include "bgp/wire/notification.h"
#include "bgp/wire/open_message.h"
#include "net/ip_address.h"

namespace sluice::bgp {

struct OpenRefusal {
  Notification notification;
  std::string reason;  // "the peer is AS65001, AS65002 configured"
};

// Returns the NOTIFICATION to send when the peer's OPEN is unacceptable:
//   2/2 Bad Peer AS: its AS (4-octet capability, else My AS) is not `peer_as`; data: the 2-octet
//       My Autonomous System field as received;
//   2/6 Unacceptable Hold Time: not 0 and below `min_hold_time_s` (DecodeOpen refuses 1 and 2);
//       data: the offered hold time (2 octets);
//   2/3 Bad BGP Identifier: equal to ours on an iBGP session (RFC 6286 §2.2).
std::optional<OpenRefusal> CheckPeerOpen(const OpenMessage& open, uint32_t peer_as,
                                         uint32_t local_as, net::IPv4Address local_id,
                                         uint16_t min_hold_time_s);

// §6.8 collision resolution: the connection opened by the speaker with the higher BGP Identifier
// (compared as 4-octet unsigned integers) stays; with equal identifiers (possible between ASes,
// RFC 6286 §2.3) the one opened by the speaker with the larger AS. Returns the side to keep:
// kOutgoing means ours (Side is in fsm.h; 0 = outgoing, 1 = incoming).
bool KeepOutgoingOnCollision(net::IPv4Address local_id, uint32_t local_as,
                             net::IPv4Address remote_id, uint32_t remote_as);

}  // namespace sluice::bgp
