#include "bgp/session/fsm.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "bgp/session/open_check.h"
#include "bgp/wire/constants.h"

namespace sluice::bgp {
namespace {

SteadyClock::duration Seconds(double s) {
  return std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(s));
}

Notification Cease(uint8_t subcode) {
  return Notification{uint8_t(ErrorCode::kCease), subcode, {}};
}

FsmAction Action(FsmAction::Kind kind, Side side) {
  FsmAction a;
  a.kind = kind;
  a.side = side;
  return a;
}

}  // namespace

std::string_view FsmStateName(FsmState state) {
  switch (state) {
    case FsmState::kIdle:
      return "Idle";
    case FsmState::kConnect:
      return "Connect";
    case FsmState::kActive:
      return "Active";
    case FsmState::kOpenSent:
      return "OpenSent";
    case FsmState::kOpenConfirm:
      return "OpenConfirm";
    case FsmState::kEstablished:
      return "Established";
  }
  return "?";
}

std::string_view SideName(Side side) { return side == Side::kOutgoing ? "outgoing" : "incoming"; }

Fsm::Fsm(FsmSettings settings) : settings_(std::move(settings)) {}

OpenMessage Fsm::LocalOpen() const {
  return OpenMessage::Make(settings_.local_as, settings_.hold_time_s, settings_.local_id,
                           settings_.capabilities);
}

FsmState Fsm::state() const {
  static constexpr std::pair<Conn, FsmState> kOrder[] = {
      {Conn::kEstablished, FsmState::kEstablished},
      {Conn::kOpenConfirm, FsmState::kOpenConfirm},
      {Conn::kOpenSent, FsmState::kOpenSent},
      {Conn::kConnecting, FsmState::kConnect},
  };
  for (const auto& [c, s] : kOrder) {
    if (conns_[0].state == c || conns_[1].state == c) return s;
  }
  return started_ && !idle_until_ ? FsmState::kActive : FsmState::kIdle;
}

std::optional<Side> Fsm::established_side() const {
  for (Side s : {Side::kOutgoing, Side::kIncoming}) {
    if (conn(s).state == Conn::kEstablished) return s;
  }
  return std::nullopt;
}

bool Fsm::Progressing() const {
  return conns_[0].state >= Conn::kOpenSent || conns_[1].state >= Conn::kOpenSent;
}

// ---- administrative events ----

void Fsm::Start(SteadyTime now, FsmActions* out) {
  if (started_) return;
  started_ = true;
  consecutive_failures_ = 0;
  idle_until_.reset();
  AutomaticStart(now, out);
}

void Fsm::Stop(SteadyTime now, const Notification& cease, FsmActions* out) {
  (void)now;
  const std::string reason = absl::StrCat("stopped: ", cease.ToString());
  for (Side side : {Side::kOutgoing, Side::kIncoming}) {
    Connection& c = conn(side);
    if (c.state == Conn::kNone) continue;
    const bool established = c.state == Conn::kEstablished;
    const bool sent_notification = c.state != Conn::kConnecting;
    if (sent_notification) SendNotification(side, cease, out);
    out->push_back(Action(FsmAction::Kind::kClose, side));
    c = Connection();
    if (established) {
      FsmAction down = Action(FsmAction::Kind::kDown, side);
      down.reason = reason;
      if (sent_notification) down.notification = cease;
      out->push_back(std::move(down));
    }
  }
  started_ = false;
  idle_until_.reset();
  connect_retry_.reset();
  established_at_.reset();
  consecutive_failures_ = 0;
}

void Fsm::AutomaticStart(SteadyTime now, FsmActions* out) {
  if (settings_.passive) {
    connect_retry_.reset();  // Active: the peer connects
    return;
  }
  StartConnect(now, out);
}

void Fsm::StartConnect(SteadyTime now, FsmActions* out) {
  connect_retry_ = now + Seconds(settings_.connect_retry_s);
  if (conn(Side::kOutgoing).state != Conn::kNone) return;
  conn(Side::kOutgoing).state = Conn::kConnecting;
  out->push_back(Action(FsmAction::Kind::kConnect, Side::kOutgoing));
}

// ---- TCP events ----

void Fsm::ConnectSucceeded(SteadyTime now, FsmActions* out) {
  if (conn(Side::kOutgoing).state != Conn::kConnecting) return;  // stale
  connect_retry_.reset();
  SendOpen(now, Side::kOutgoing, out);
}

void Fsm::ConnectFailed(SteadyTime now, const std::string& reason, FsmActions* out) {
  if (conn(Side::kOutgoing).state != Conn::kConnecting) return;
  conn(Side::kOutgoing) = Connection();
  out->push_back(Action(FsmAction::Kind::kClose, Side::kOutgoing));
  last_error_ = absl::StrCat("cannot connect: ", reason);
  // Active until the ConnectRetry timer (armed when the attempt started) opens another.
  if (!connect_retry_ && started_ && !settings_.passive) {
    connect_retry_ = now + Seconds(settings_.connect_retry_s);
  }
}

Fsm::Incoming Fsm::IncomingConnection(SteadyTime now, FsmActions* out) {
  if (!started_ || idle_until_) return Incoming{false, Cease(cease::kConnectionRejected)};
  if (established_side()) {
    ++collisions_;
    return Incoming{false, Cease(cease::kConnectionCollision)};
  }
  if (Alive(Side::kIncoming)) {
    // The peer gave up on its earlier connection: the new one replaces it.
    End(now, Side::kIncoming, Ending::kQuiet, "replaced by a new connection from the peer",
        Cease(cease::kConnectionCollision), out);
  }
  out->push_back(Action(FsmAction::Kind::kAccept, Side::kIncoming));
  SendOpen(now, Side::kIncoming, out);
  return Incoming{true, std::nullopt};
}

void Fsm::ConnectionClosed(SteadyTime now, Side side, const std::string& reason, FsmActions* out) {
  const Conn state = conn(side).state;
  if (state == Conn::kNone) return;
  if (state == Conn::kConnecting) return ConnectFailed(now, reason, out);
  End(now, side, state == Conn::kOpenSent ? Ending::kLost : Ending::kError,
      absl::StrCat("connection closed: ", reason), std::nullopt, out);
}

// ---- messages ----

MessageVerdict Fsm::Message(SteadyTime now, Side side, Bytes message, FsmActions* out) {
  Connection& c = conn(side);
  if (c.state == Conn::kNone || c.state == Conn::kConnecting || message.size() < 19) {
    return MessageVerdict::kHandled;  // stale
  }
  RestartHold(now, side);
  switch (MessageType(message[18])) {
    case MessageType::kOpen:
      if (c.state != Conn::kOpenSent) {
        FsmError(now, side, "OPEN", out);
      } else {
        OnOpen(now, side, message, out);
      }
      return MessageVerdict::kHandled;
    case MessageType::kKeepalive:
      OnKeepalive(now, side, out);
      return MessageVerdict::kHandled;
    case MessageType::kNotification:
      OnNotification(now, side, message, out);
      return MessageVerdict::kHandled;
    case MessageType::kUpdate:
      if (c.state == Conn::kEstablished) return MessageVerdict::kUpdate;
      FsmError(now, side, "UPDATE", out);
      return MessageVerdict::kHandled;
    case MessageType::kRouteRefresh:
      if (c.state == Conn::kEstablished) return MessageVerdict::kRouteRefresh;
      FsmError(now, side, "ROUTE-REFRESH", out);
      return MessageVerdict::kHandled;
  }
  return MessageVerdict::kHandled;  // the framer lets no other type through
}

void Fsm::OnOpen(SteadyTime now, Side side, Bytes message, FsmActions* out) {
  OpenMessage open;
  Notification error;
  absl::Status st = DecodeOpen(message, &open, &error);
  if (!st.ok()) {
    return End(now, side, Ending::kError, absl::StrCat("bad OPEN: ", st.message()), error, out);
  }
  if (auto refusal = CheckPeerOpen(open, settings_.peer_as, settings_.local_as, settings_.local_id,
                                   settings_.min_hold_time_s)) {
    return End(now, side, Ending::kError, absl::StrCat("OPEN refused: ", refusal->reason),
               refusal->notification, out);
  }
  const Side other = Other(side);
  if (conn(other).state == Conn::kEstablished) {
    ++collisions_;
    return End(now, side, Ending::kQuiet, "collision with the Established connection",
               Cease(cease::kConnectionCollision), out);
  }
  if (conn(other).state == Conn::kOpenConfirm) {
    ++collisions_;
    const Side keep = KeepOutgoingOnCollision(settings_.local_id, settings_.local_as,
                                              open.bgp_identifier, open.AsNumber())
                          ? Side::kOutgoing
                          : Side::kIncoming;
    const Side lose = Other(keep);
    End(now, lose, Ending::kQuiet,
        absl::StrCat("connection collision: the ", std::string(SideName(keep)),
                     " connection stays"),
        Cease(cease::kConnectionCollision), out);
    if (lose == side) return;
  }
  Connection& c = conn(side);
  c.peer_open = open;
  c.negotiated = Negotiate(LocalOpen(), open, settings_.peer_as != settings_.local_as);
  if (settings_.keepalive_time_s) {
    c.negotiated.keepalive_time =
        std::min<uint16_t>(*settings_.keepalive_time_s, uint16_t(c.negotiated.hold_time / 3));
  }
  std::vector<uint8_t> keepalive;
  AppendKeepalive(&keepalive);
  Send(side, std::move(keepalive), out);
  c.state = Conn::kOpenConfirm;
  if (c.negotiated.hold_time > 0) {
    c.hold_deadline = now + std::chrono::seconds(c.negotiated.hold_time);
    c.keepalive_deadline =
        now + std::chrono::seconds(std::max<int>(1, c.negotiated.keepalive_time));
  } else {
    c.hold_deadline.reset();
    c.keepalive_deadline.reset();
  }
}

void Fsm::OnKeepalive(SteadyTime now, Side side, FsmActions* out) {
  Connection& c = conn(side);
  if (c.state == Conn::kOpenSent) return FsmError(now, side, "KEEPALIVE", out);
  if (c.state != Conn::kOpenConfirm) return;  // Established: the hold timer was restarted
  c.state = Conn::kEstablished;
  established_at_ = now;
  connect_retry_.reset();
  const Side other = Other(side);
  if (Alive(other)) {
    std::optional<Notification> n;
    if (conn(other).state != Conn::kConnecting) {
      n = Cease(cease::kConnectionCollision);
      ++collisions_;
    }
    End(now, other, Ending::kQuiet, "the other connection is Established", n, out);
  }
  out->push_back(Action(FsmAction::Kind::kEstablished, side));
}

void Fsm::OnNotification(SteadyTime now, Side side, Bytes message, FsmActions* out) {
  Notification n;
  if (!DecodeNotification(message, &n).ok()) n = Notification{};
  last_received_ = n;
  const std::string reason = absl::StrCat("the peer sent NOTIFICATION ", n.ToString());
  // The peer resolving a collision against this connection, or refusing it (RFC 4486 subcode 5:
  // it is Idle, e.g. in its own idle hold), is no failure of the session: treated as a lost TCP
  // connection (Active, ConnectRetry), so that two speakers refusing each other while in idle hold
  // do not keep pushing each other back into it.
  const bool refused =
      n.code == uint8_t(ErrorCode::kCease) &&
      (n.subcode == cease::kConnectionCollision || n.subcode == cease::kConnectionRejected) &&
      conn(side).state != Conn::kEstablished;
  Ending ending = Ending::kError;
  if (refused) ending = Alive(Other(side)) ? Ending::kQuiet : Ending::kLost;
  End(now, side, ending, reason, std::nullopt, out, n);
}

void Fsm::FsmError(SteadyTime now, Side side, const char* what, FsmActions* out) {
  const Conn state = conn(side).state;
  // RFC 6608 §4: subcode by state, data = the unexpected message type.
  const uint8_t subcode = state == Conn::kOpenSent ? 1 : state == Conn::kOpenConfirm ? 2 : 3;
  uint8_t type = 0;
  static constexpr std::pair<std::string_view, MessageType> kTypes[] = {
      {"OPEN", MessageType::kOpen},
      {"UPDATE", MessageType::kUpdate},
      {"KEEPALIVE", MessageType::kKeepalive},
      {"ROUTE-REFRESH", MessageType::kRouteRefresh}};
  for (const auto& [name, t] : kTypes) {
    if (name == what) type = uint8_t(t);
  }
  End(now, side, Ending::kError,
      absl::StrCat("unexpected ", what, " in ",
                   state == Conn::kOpenSent      ? "OpenSent"
                   : state == Conn::kOpenConfirm ? "OpenConfirm"
                                                 : "Established"),
      Notification{uint8_t(ErrorCode::kFsm), subcode, {type}}, out);
}

void Fsm::HeaderError(SteadyTime now, Side side, const Notification& error, FsmActions* out) {
  if (conn(side).state < Conn::kOpenSent) return;
  End(now, side, Ending::kError, absl::StrCat("bad message header: ", error.ToString()), error,
      out);
}

void Fsm::UpdateError(SteadyTime now, const Notification& error, const std::string& reason,
                      FsmActions* out) {
  const auto side = established_side();
  if (!side) return;
  End(now, *side, Ending::kError, absl::StrCat("bad UPDATE: ", reason), error, out);
}

void Fsm::LimitExceeded(SteadyTime now, const Notification& cease, const std::string& reason,
                        std::optional<double> restart_after_s, FsmActions* out) {
  const auto side = established_side();
  if (!side) return;
  if (!restart_after_s) return End(now, *side, Ending::kError, reason, cease, out);
  End(now, *side, Ending::kQuiet, reason, cease, out);
  last_error_ = reason;
  established_at_.reset();
  connect_retry_.reset();
  if (Alive(Other(*side))) {
    conn(Other(*side)) = Connection();
    out->push_back(Action(FsmAction::Kind::kClose, Other(*side)));
  }
  if (*restart_after_s > 0) {
    idle_until_ = now + Seconds(*restart_after_s);
  } else {
    started_ = false;
  }
}

void Fsm::LocalFault(SteadyTime now, const Notification& cease, const std::string& reason,
                     FsmActions* out) {
  for (Side side : {Side::kOutgoing, Side::kIncoming}) {
    if (Alive(side)) End(now, side, Ending::kError, reason, cease, out);
  }
}

// ---- endings ----

void Fsm::Send(Side side, std::vector<uint8_t> message, FsmActions* out) {
  FsmAction a = Action(FsmAction::Kind::kSend, side);
  a.message = std::move(message);
  out->push_back(std::move(a));
}

void Fsm::SendNotification(Side side, const Notification& n, FsmActions* out) {
  last_sent_ = n;
  std::vector<uint8_t> wire;
  AppendNotification(n, &wire);
  Send(side, std::move(wire), out);
}

void Fsm::SendOpen(SteadyTime now, Side side, FsmActions* out) {
  std::vector<uint8_t> wire;
  absl::Status st = AppendOpen(LocalOpen(), &wire);
  Connection& c = conn(side);
  c = Connection();
  if (!st.ok()) {  // only capabilities over 255 octets, which configuration cannot produce
    last_error_ = absl::StrCat("cannot encode our OPEN: ", st.message());
    out->push_back(Action(FsmAction::Kind::kClose, side));
    return;
  }
  c.state = Conn::kOpenSent;
  c.hold_deadline = now + Seconds(settings_.open_hold_s);
  Send(side, std::move(wire), out);
}

void Fsm::RestartHold(SteadyTime now, Side side) {
  Connection& c = conn(side);
  if (c.state < Conn::kOpenConfirm || c.negotiated.hold_time == 0) return;
  c.hold_deadline = now + std::chrono::seconds(c.negotiated.hold_time);
}

void Fsm::End(SteadyTime now, Side side, Ending ending, const std::string& reason,
              const std::optional<Notification>& n, FsmActions* out,
              const std::optional<Notification>& received) {
  Connection& c = conn(side);
  if (c.state == Conn::kNone) return;
  const bool established = c.state == Conn::kEstablished;
  if (ending != Ending::kQuiet) last_error_ = reason;
  if (n && c.state != Conn::kConnecting) SendNotification(side, *n, out);
  out->push_back(Action(FsmAction::Kind::kClose, side));
  c = Connection();
  if (established) {
    FsmAction down = Action(FsmAction::Kind::kDown, side);
    down.reason = reason;
    if (n) {
      down.notification = n;
    } else if (received) {
      down.notification = received;
      down.notification_received = true;
    }
    out->push_back(std::move(down));
  }
  const Side other = Other(side);
  switch (ending) {
    case Ending::kQuiet:
      return;
    case Ending::kLost:
      if (Alive(other)) return;
      if (started_ && !settings_.passive) connect_retry_ = now + Seconds(settings_.connect_retry_s);
      return;
    case Ending::kError:
      if (conn(other).state >= Conn::kOpenSent) return;  // the other connection carries on
      if (Alive(other)) {                                // a connection attempt: abandon it
        conn(other) = Connection();
        out->push_back(Action(FsmAction::Kind::kClose, other));
      }
      if (established && established_at_ && now - *established_at_ >= Seconds(settings_.stable_s)) {
        consecutive_failures_ = 0;
      }
      GoIdle(now, out);
      return;
  }
}

void Fsm::GoIdle(SteadyTime now, FsmActions* out) {
  (void)out;
  ++consecutive_failures_;
  const double factor = std::ldexp(1.0, std::min(consecutive_failures_ - 1, 30));
  const double hold = std::min(settings_.idle_hold_s * factor,
                               std::max(settings_.idle_hold_s, settings_.idle_hold_max_s));
  idle_until_ = now + Seconds(hold);
  connect_retry_.reset();
  established_at_.reset();
}

// ---- timers ----

void Fsm::Tick(SteadyTime now, FsmActions* out) {
  if (idle_until_ && now >= *idle_until_) {
    idle_until_.reset();
    if (started_) AutomaticStart(now, out);
  }
  for (Side side : {Side::kOutgoing, Side::kIncoming}) {
    Connection& c = conn(side);
    if (c.hold_deadline && now >= *c.hold_deadline) {
      End(now, side, Ending::kError, "hold timer expired",
          Notification{uint8_t(ErrorCode::kHoldTimerExpired), 0, {}}, out);
      continue;
    }
    if (c.keepalive_deadline && now >= *c.keepalive_deadline) {
      std::vector<uint8_t> keepalive;
      AppendKeepalive(&keepalive);
      Send(side, std::move(keepalive), out);
      c.keepalive_deadline =
          now + std::chrono::seconds(std::max<int>(1, c.negotiated.keepalive_time));
    }
  }
  if (connect_retry_ && now >= *connect_retry_) {
    connect_retry_.reset();
    if (started_ && !idle_until_ && !Progressing() && !settings_.passive) {
      if (Alive(Side::kOutgoing)) {  // still connecting: drop that attempt, start another
        last_error_ = "connection attempt timed out (no answer within the ConnectRetry time)";
        conn(Side::kOutgoing) = Connection();
        out->push_back(Action(FsmAction::Kind::kClose, Side::kOutgoing));
      }
      StartConnect(now, out);
    }
  }
}

std::optional<SteadyTime> Fsm::NextDeadline() const {
  std::optional<SteadyTime> next;
  auto consider = [&](const std::optional<SteadyTime>& t) {
    if (t && (!next || *t < *next)) next = t;
  };
  consider(idle_until_);
  consider(connect_retry_);
  for (const Connection& c : conns_) {
    consider(c.hold_deadline);
    consider(c.keepalive_deadline);
  }
  return next;
}

}  // namespace sluice::bgp
