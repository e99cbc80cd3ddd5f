#pragma once
// MessageTap: what monitoring sees of every BGP session, for exporters that report sessions as
// they happen — BMP (RFC 7854: Peer Up §4.10, Peer Down §4.9, pre-policy Route Monitoring §4.6)
// and MRT update logs (RFC 6396 §4.4: BGP4MP_MESSAGE_AS4 and BGP4MP_STATE_CHANGE_AS4).
//
// A PeerManager calls every tap added with PeerManager::AddTap, on the event loop, in the order
// things happen on each session. Messages are whole BGP messages, header included, exactly as
// they crossed the wire; the spans are valid only during the call (copy what you keep). A tap
// must be quick: it runs on the loop that keeps every session alive, so an exporter queues and
// writes elsewhere (and bounds its queue).

#include <cstdint>
#include <span>
#include <string>

#include "bgp/session/fsm.h"
#include "bgp/session/session_link.h"
#include "net/ip_address.h"

namespace sluice::bgp {

// Who a session is with, as far as it is known when the tap is called.
struct TapPeer {
  net::IPAddress remote_address;
  uint16_t remote_port = 0;      // 0 while no TCP connection is up
  net::IPAddress local_address;  // unspecified (0.0.0.0 or ::) while no connection is up
  uint16_t local_port = 0;
  uint32_t local_as = 0;           // 4 octets (RFC 6793)
  uint32_t remote_as = 0;          // as configured, or as the peer's OPEN said once Established
  net::IPv4Address remote_bgp_id;  // 0.0.0.0 before the peer's OPEN
  // Both sides announced 4-octet AS support: the AS_PATH in this session's UPDATEs carries
  // 4-octet AS numbers (RFC 6793 §4.1); before Established, true.
  bool four_octet_as = true;
};

// Why an Established session went down (RFC 7854 §4.9's reasons).
enum class TapDownReason : uint8_t {
  kLocalNotification,     // we sent `notification`
  kLocalNoNotification,   // we closed without a NOTIFICATION (a restart of ours, an internal fault)
  kRemoteNotification,    // the peer sent `notification`
  kRemoteNoNotification,  // the TCP connection was lost
};

class MessageTap {
 public:
  virtual ~MessageTap() = default;
  // The session's RFC 4271 §8.2.2 state changed (MRT BGP4MP_STATE_CHANGE).
  virtual void OnStateChange(const TapPeer& /*peer*/, FsmState /*old_state*/,
                             FsmState /*new_state*/) {}
  // A whole message received from the peer on the session's connection (while the two
  // connections of a collision exist, on either), before it is decoded: OPEN, UPDATE,
  // NOTIFICATION, KEEPALIVE, ROUTE-REFRESH. Called for malformed UPDATEs too (RFC 7606 handling
  // comes after).
  virtual void OnMessageReceived(const TapPeer& /*peer*/, std::span<const uint8_t> /*message*/) {}
  // The session reached Established: the OPEN we sent and the OPEN the peer sent, whole
  // messages (BMP Peer Up).
  virtual void OnPeerUp(const TapPeer& /*peer*/, const EstablishedInfo& /*info*/,
                        std::span<const uint8_t> /*sent_open*/,
                        std::span<const uint8_t> /*received_open*/) {}
  // The session left Established. `notification`: the whole NOTIFICATION message sent or
  // received, empty for the reasons without one.
  virtual void OnPeerDown(const TapPeer& /*peer*/, TapDownReason /*reason*/,
                          std::span<const uint8_t> /*notification*/) {}
};

}  // namespace sluice::bgp
