#pragma once
// The seam between a BGP session (the RFC 4271 §8 state machine and its TCP connection,
// bgp/session/) and the routing side (the staged pipeline, bgp/stages/). Neither side knows the
// other's classes: a session reports to a SessionListener, and the routing side drives the
// session through SessionSender. Everything runs on the BGP process's event loop.
//
// Flow control: the routing side queues encoded UPDATEs with SendMessages() and watches
// send_backlog(); it stops producing for a peer above a high-water mark of its choosing and
// resumes on OnWritable(), which the session calls when its backlog has drained below its
// low-water mark (documented by the session). A slow peer therefore never makes the routing
// side buffer without bound.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bgp/wire/constants.h"
#include "bgp/wire/open_message.h"
#include "bgp/wire/session_params.h"
#include "bgp/wire/update_message.h"
#include "net/ip_address.h"

namespace sluice::bgp {

// What the peer said about itself in its OPEN, and what both sides agreed on.
struct EstablishedInfo {
  SessionParams params;            // negotiated: 4-octet AS, families, ADD-PATH, ...
  uint32_t remote_as = 0;          // the peer's AS (4 octets)
  net::IPv4Address remote_bgp_id;  // the peer's BGP Identifier (decision tie-break, §9.1.2.2)
  net::IPAddress remote_address;   // the peer's transport address (tie-break, §9.1.2.2 g)
  net::IPAddress local_address;    // our transport address on this session (next-hop-self)
  int hold_time_s = 0;             // negotiated hold time, seconds (0 = no keepalives)
  bool route_refresh = false;      // RFC 2918 negotiated
  // RFC 4724: the peer's Graceful Restart capability, when both sides sent one (we help it
  // restart, and it keeps our routes when we do); nullopt otherwise.
  std::optional<GracefulRestart> graceful_restart;
};

// Implemented by the routing side, one per peer; called by the session.
class SessionListener {
 public:
  virtual ~SessionListener() = default;
  // The session reached Established.
  virtual void OnEstablished(const EstablishedInfo& info) = 0;
  // A decoded UPDATE (RFC 7606 handling already applied: treat-as-withdraw NLRI are in
  // `withdrawn`, discarded attributes are gone; session-reset errors never reach here — the
  // session sends the NOTIFICATION and goes down instead). With action kAfiSafiDisable, the
  // families in `errors.disabled_families` are off for the rest of the session (RFC 4760 §7):
  // every route of the peer in them must go; the session drops their NLRI from then on.
  // End-of-RIB arrives as an UPDATE with `end_of_rib` set.
  virtual void OnUpdate(UpdateMessage& update) = 0;
  // The UPDATEs from here to EndUpdates() were read together (one slice of the connection's
  // reading, decoded on the event loop): the listener may hold back their push downstream until
  // EndUpdates, so that what follows them (export, encoding, sending) runs once for all of them.
  // Without BeginUpdates, each OnUpdate is pushed on its own.
  virtual void BeginUpdates() {}
  virtual void EndUpdates() {}
  // The peer asked for our Adj-RIB-Out of `family` again (RFC 2918).
  virtual void OnRouteRefresh(AfiSafi family) = 0;
  // The session left Established (NOTIFICATION sent or received, hold timer expired, TCP
  // closed, administratively stopped). Every route learned from the peer must go.
  virtual void OnSessionDown(const std::string& reason) = 0;
  // The session left Established in a way that lets the peer restart (RFC 4724 §4.2: TCP lost,
  // or, with RFC 8538's N bit on both sides, a NOTIFICATION other than Cease / Hard Reset), and
  // the session carried the peer's capability (EstablishedInfo::graceful_restart). The routes
  // learned from it may stay, stale, until it comes back and sends End-of-RIB, or its restart time
  // passes. A listener that does not help restarting peers treats it as OnSessionDown.
  virtual void OnSessionDownGraceful(const std::string& reason) { OnSessionDown(reason); }
  // The send backlog drained: the routing side may send more.
  virtual void OnWritable() = 0;
};

// Implemented by the session; called by the routing side.
class SessionSender {
 public:
  virtual ~SessionSender() = default;
  virtual bool established() const = 0;
  // Queues whole encoded BGP messages, back to back (UPDATEs, End-of-RIB). Returns false and
  // drops them when the session is not Established.
  virtual bool SendMessages(std::vector<uint8_t> messages) = 0;
  // Octets queued and not yet written to the socket.
  virtual size_t send_backlog() const = 0;
  // Asks the peer to re-send its routes of `family` (RFC 2918), when negotiated.
  virtual void SendRouteRefresh(AfiSafi family) = 0;
  // The peer's routes changed: `received` in its Adj-RIB-In (every family, before import
  // policy), `accepted` by import policy. The session applies the Adj-RIB-In ceiling and the
  // max-prefix limit, which counts one or the other (warn, or Cease subcode 1 and idle, RFC 4486).
  virtual void ReportPrefixCount(size_t received, size_t accepted) = 0;
  // Optional: the other counts shown in the peer list — prefixes in this peer's Adj-RIB-In
  // (received, before import policy) and in its Adj-RIB-Out (advertised to it).
  virtual void ReportRouteCounts(size_t received, size_t advertised) {
    (void)received;
    (void)advertised;
  }
  // Optional: the routing side cannot take more input now (true) or can again (false). The
  // session stops handing on (and reading) the peer's messages at the next message boundary, so
  // that TCP holds the peer back; timers and sending go on. Holds across session restarts.
  virtual void PauseInput(bool paused) { (void)paused; }
};

}  // namespace sluice::bgp
