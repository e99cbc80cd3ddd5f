#pragma once
// Fsm: the BGP finite state machine of one peer (RFC 4271 §8), without sockets or clocks — events
// in, actions out. The transport (PeerSession) feeds it TCP events, whole framed messages and the
// current time, carries out the actions it returns (connect, send, close, report Established or
// down), and calls Tick() at NextDeadline().
//
// States (RFC 4271 §8.2.2): Idle, Connect (our TCP connection is being opened), Active (waiting
// for the peer's connection, or for the ConnectRetry timer), OpenSent, OpenConfirm, Established.
//
// Connections: up to two at a time, one we opened (Side::kOutgoing) and one the peer opened
// (Side::kIncoming), each with its own progress and its own Hold and Keepalive timers, as RFC 4271
// §8 allows during a connection collision. Collision detection (§6.8, with RFC 6286 §2.3 for
// equal identifiers): when an OPEN arrives while the other connection is in OpenConfirm, the
// connection opened by the speaker with the higher BGP Identifier stays and the other gets
// NOTIFICATION Cease / Connection Collision Resolution (RFC 4486 subcode 7); a connection arriving
// while Established gets the same. The session's state is the most advanced connection's.
//
// Timers (deadlines kept here; seconds in FsmSettings):
//   ConnectRetry  while Connect/Active: (re)open our connection (never for a passive peer)
//   Hold          per connection: 240 s until the peer's OPEN, then the negotiated hold time;
//                 restarted by every message received; expiry sends NOTIFICATION 4/0
//   Keepalive     per connection in OpenConfirm/Established: hold time / 3
//   IdleHold      after an error the session stays Idle, then starts again by itself
//                 (AutomaticStart); doubling with consecutive failures (DampPeerOscillations)
//
// Errors: every error detected here closes the connection after a NOTIFICATION (RFC 4271 §6):
// header errors (reported by the framer), OPEN errors (§6.2 plus the configured peer AS and
// minimum hold time, and BGP Identifier equal to ours on an iBGP session), FSM errors (RFC 6608
// subcodes: a message the state does not expect), hold timer expiry, UPDATE errors that RFC 7606
// says reset the session, administrative Cease (RFC 4486). Then Idle with backoff — except a TCP
// connection lost before the peer's OPEN, which goes to Active (§8.2.2 OpenSent,
// TcpConnectionFails) — and except when the other connection of a collision carries on.

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bgp/wire/byte_io.h"
#include "bgp/wire/notification.h"
#include "bgp/wire/open_message.h"
#include "net/ip_address.h"

namespace sluice::bgp {

using SteadyClock = std::chrono::steady_clock;
using SteadyTime = SteadyClock::time_point;

enum class FsmState : uint8_t { kIdle, kConnect, kActive, kOpenSent, kOpenConfirm, kEstablished };
std::string_view FsmStateName(FsmState state);  // "Idle", "Connect", ... as in RFC 4271

// Which end opened a TCP connection.
enum class Side : uint8_t { kOutgoing = 0, kIncoming = 1 };
std::string_view SideName(Side side);  // "outgoing", "incoming"

struct FsmSettings {
  uint32_t local_as = 0;
  net::IPv4Address local_id;
  uint32_t peer_as = 0;
  uint16_t hold_time_s = 90;  // offered
  uint16_t min_hold_time_s = 3;
  // RFC 4271 §4.4: our KeepaliveTime, at most a third of the negotiated hold time; unset: that
  // third.
  std::optional<uint16_t> keepalive_time_s;
  bool passive = false;
  double connect_retry_s = 120;
  double idle_hold_s = 5;
  double idle_hold_max_s = 120;
  double stable_s = 60;
  double open_hold_s = 240;   // hold timer while waiting for the peer's OPEN (§8.2.2: "large")
  Capabilities capabilities;  // offered; four_octet_as is set from local_as
};

// One thing for the transport to do, in order.
struct FsmAction {
  enum class Kind : uint8_t {
    kConnect,      // open a TCP connection to the peer (Side::kOutgoing)
    kAccept,       // take the connection IncomingConnection() was called for (Side::kIncoming)
    kSend,         // write `message` (OPEN, KEEPALIVE, NOTIFICATION) ahead of queued UPDATEs
    kClose,        // close `side` once what kSend queued on it is written
    kEstablished,  // `side` reached Established: see Fsm::negotiated() / peer_open()
    kDown,         // the session left Established (`reason`): every route of the peer must go
  };
  Kind kind;
  Side side = Side::kOutgoing;
  std::vector<uint8_t> message;
  std::string reason;
  // kDown: the NOTIFICATION that ended the session, sent by us or received from the peer
  // (`notification_received`); none when the TCP connection was lost. RFC 8538 §4 decides from it
  // whether graceful restart applies.
  std::optional<Notification> notification;
  bool notification_received = false;
};
using FsmActions = std::vector<FsmAction>;

// What Fsm::Message() found in a message; the transport handles the last two.
enum class MessageVerdict : uint8_t {
  kHandled,       // OPEN, KEEPALIVE, NOTIFICATION, or an error (actions say what happens)
  kUpdate,        // an UPDATE on an Established connection: decode it and deliver it
  kRouteRefresh,  // a ROUTE-REFRESH on an Established connection
};

class Fsm {
 public:
  explicit Fsm(FsmSettings settings);

  // New settings (configuration change). They apply to connections opened from now on.
  void set_settings(FsmSettings settings) { settings_ = std::move(settings); }
  const FsmSettings& settings() const { return settings_; }

  // ManualStart (§8.1.2 event 1): leave Idle and connect (or wait, for a passive peer).
  void Start(SteadyTime now, FsmActions* out);
  // ManualStop (event 2): NOTIFICATION `cease` on every open connection, close, Idle until Start.
  void Stop(SteadyTime now, const Notification& cease, FsmActions* out);

  // Our connection is up (event 16/17) or could not be made (event 18).
  void ConnectSucceeded(SteadyTime now, FsmActions* out);
  void ConnectFailed(SteadyTime now, const std::string& reason, FsmActions* out);
  // The peer's connection was accepted by a listener (event 17). The FSM takes it (the OPEN to
  // send is in `out`) unless the session is Idle (§8.2.2 refuses connections in Idle: closed after
  // NOTIFICATION Cease / Connection Rejected, RFC 4486 §4 subcode 5) or Established (closed after
  // Cease / Connection Collision Resolution, §6.8, RFC 4486 subcode 7).
  struct Incoming {
    bool accepted = false;
    std::optional<Notification> notification;  // to send before closing a connection not taken
  };
  Incoming IncomingConnection(SteadyTime now, FsmActions* out);
  // The TCP connection `side` was closed or failed (event 18).
  void ConnectionClosed(SteadyTime now, Side side, const std::string& reason, FsmActions* out);

  // A whole message received on `side` (as MessageFramer cuts it: header checked).
  MessageVerdict Message(SteadyTime now, Side side, Bytes message, FsmActions* out);
  // The framer found a bad header on `side` (event 21): `error` is its NOTIFICATION.
  void HeaderError(SteadyTime now, Side side, const Notification& error, FsmActions* out);
  // Decoding an UPDATE found an error that resets the session (event 28, RFC 7606).
  void UpdateError(SteadyTime now, const Notification& error, const std::string& reason,
                   FsmActions* out);
  // A prefix limit (max-prefix with action teardown, or the Adj-RIB-In ceiling) was exceeded:
  // send `cease` (6/1, RFC 4486), `reason` becomes the last error, then Idle for
  // `restart_after_s` seconds (0: until Start; nullopt: the idle hold of any error, doubling with
  // consecutive failures).
  void LimitExceeded(SteadyTime now, const Notification& cease, const std::string& reason,
                     std::optional<double> restart_after_s, FsmActions* out);
  // A fault of our own while handling the session (an exception in a handler): NOTIFICATION
  // `cease` on every connection, then Idle with backoff, as after any error.
  void LocalFault(SteadyTime now, const Notification& cease, const std::string& reason,
                  FsmActions* out);

  // Runs the timers due at `now`.
  void Tick(SteadyTime now, FsmActions* out);
  // The earliest timer, if any runs.
  std::optional<SteadyTime> NextDeadline() const;

  FsmState state() const;
  bool started() const { return started_; }
  // The Established connection, if any.
  std::optional<Side> established_side() const;
  // Valid once `side` reached OpenConfirm.
  const Negotiated& negotiated(Side side) const { return conns_[int(side)].negotiated; }
  const OpenMessage& peer_open(Side side) const { return conns_[int(side)].peer_open; }
  // The OPEN we send (also for tests).
  OpenMessage LocalOpen() const;
  // Why the session last failed ("" if it never did), and the NOTIFICATIONs of the last failure.
  const std::string& last_error() const { return last_error_; }
  const std::optional<Notification>& last_notification_sent() const { return last_sent_; }
  const std::optional<Notification>& last_notification_received() const { return last_received_; }
  int consecutive_failures() const { return consecutive_failures_; }
  // Connections closed with Cease / Connection Collision Resolution (§6.8), ours or the peer's.
  uint64_t collisions() const { return collisions_; }
  // When the session will start again by itself after an error, if it is waiting to.
  std::optional<SteadyTime> idle_until() const { return idle_until_; }

 private:
  enum class Conn : uint8_t { kNone, kConnecting, kOpenSent, kOpenConfirm, kEstablished };
  struct Connection {
    Conn state = Conn::kNone;
    std::optional<SteadyTime> hold_deadline;
    std::optional<SteadyTime> keepalive_deadline;
    OpenMessage peer_open;
    Negotiated negotiated;
  };
  // How a connection ends.
  enum class Ending : uint8_t {
    kQuiet,  // closed without consequence (collision loser, replaced)
    kLost,   // TCP closed before the peer's OPEN: Active (§8.2.2)
    kError,  // an error: Idle with backoff unless the other connection carries on
  };

  Connection& conn(Side side) { return conns_[int(side)]; }
  const Connection& conn(Side side) const { return conns_[int(side)]; }
  static Side Other(Side side) {
    return side == Side::kOutgoing ? Side::kIncoming : Side::kOutgoing;
  }
  bool Alive(Side side) const { return conn(side).state != Conn::kNone; }
  // Some connection got at least as far as OpenSent.
  bool Progressing() const;

  void AutomaticStart(SteadyTime now, FsmActions* out);
  void StartConnect(SteadyTime now, FsmActions* out);
  void SendOpen(SteadyTime now, Side side, FsmActions* out);
  void Send(Side side, std::vector<uint8_t> message, FsmActions* out);
  void SendNotification(Side side, const Notification& n, FsmActions* out);
  // Closes `side` (NOTIFICATION `n` first when given) and decides what follows.
  // `received`: the peer's NOTIFICATION that ends it, if that is why.
  void End(SteadyTime now, Side side, Ending ending, const std::string& reason,
           const std::optional<Notification>& n, FsmActions* out,
           const std::optional<Notification>& received = std::nullopt);
  void GoIdle(SteadyTime now, FsmActions* out);
  void OnOpen(SteadyTime now, Side side, Bytes message, FsmActions* out);
  void OnKeepalive(SteadyTime now, Side side, FsmActions* out);
  void OnNotification(SteadyTime now, Side side, Bytes message, FsmActions* out);
  void FsmError(SteadyTime now, Side side, const char* what, FsmActions* out);
  void RestartHold(SteadyTime now, Side side);

  FsmSettings settings_;
  std::array<Connection, 2> conns_;
  bool started_ = false;
  std::optional<SteadyTime> idle_until_;
  std::optional<SteadyTime> connect_retry_;
  std::optional<SteadyTime> established_at_;
  int consecutive_failures_ = 0;
  uint64_t collisions_ = 0;
  std::string last_error_;
  std::optional<Notification> last_sent_, last_received_;
};

}  // namespace sluice::bgp
