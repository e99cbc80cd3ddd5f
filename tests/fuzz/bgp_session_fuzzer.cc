// libFuzzer target: a BGP session fed a sequence of events — bytes from the peer on either TCP
// connection, time passing, connections opening, closing and failing, administrative stops —
// without sockets. The session is what PeerSession (bgp/session/peer_session.h) builds on: the
// RFC 4271 §8 state machine (Fsm), a MessageFramer per connection, and the UPDATE decoder of the
// negotiated session parameters once Established, with RFC 7606 session resets fed back; this
// harness carries out the FSM's actions as PeerSession does.
//
// Input: one octet of settings (bit 0 passive, 1 a 2-octet local AS, 2 iBGP, 3 add-path,
// extended messages and graceful restart offered, 4 hold time 0, 5 every family offered), then
// events, each an octet e (side = bit 3, Side::kIncoming when set) and its operands:
//   e & 7 = 0  bytes: a 2-octet length L, then L octets the peer sent on that side
//           1  time: one octet t, the clock advances t/4 s and the timers run
//           2  the clock jumps to the next timer, which runs
//           3  that side's TCP connection closes
//           4  the peer opens a connection (a listener accepted it)
//           5  our connection attempt succeeds (bit 4 clear) or fails (bit 4 set)
//           6  ManualStop with Cease, then ManualStart unless bit 4 is set
//           7  the max-prefix limit is exceeded (teardown)
// Checked: the messages the session sends are well formed; the session is Established exactly
// when the FSM says so; UPDATEs reach the decoder only on the Established connection; timers
// never stay due after they ran (a busy loop in the event loop).
#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <vector>

#include "bgp/session/fsm.h"
#include "bgp/wire/attribute_store.h"
#include "bgp/wire/constants.h"
#include "bgp/wire/message_framer.h"
#include "bgp/wire/open_message.h"
#include "bgp/wire/update_decoder.h"

namespace sluice::bgp {
namespace {

void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

FsmSettings SettingsFrom(uint8_t bits) {
  FsmSettings s;
  s.local_as = (bits & 2) ? 65000 : 4200000001u;
  s.local_id = net::IPv4Address(0x0a000001);
  s.peer_as = (bits & 4) ? s.local_as : 4200000002u;
  s.passive = bits & 1;
  s.hold_time_s = (bits & 16) ? 0 : 9;
  s.connect_retry_s = 2;
  s.idle_hold_s = 1;
  s.idle_hold_max_s = 8;
  s.stable_s = 30;
  s.capabilities.route_refresh = true;
  s.capabilities.multiprotocol = {kIPv4Unicast, kIPv6Unicast};
  if (bits & 32) {
    s.capabilities.multiprotocol.clear();
    for (int i = 0; i < AfiSafi::kCount; ++i) {
      s.capabilities.multiprotocol.push_back(AfiSafi::FromIndex(i));
    }
  }
  if (bits & 8) {
    s.capabilities.extended_message = true;
    s.capabilities.enhanced_route_refresh = true;
    for (AfiSafi f : s.capabilities.multiprotocol) {
      s.capabilities.add_path.push_back(AddPathFamily{f, 3});
    }
    s.capabilities.graceful_restart = GracefulRestart{false, true, 120, {}};
  }
  return s;
}

// One connection as PeerSession keeps it: none, connecting (ours), or open with its framer.
struct Connection {
  bool connecting = false;
  std::optional<MessageFramer> framer;
};

class Session {
 public:
  Session(FsmSettings settings, AttributeStore* store) : fsm_(std::move(settings)), store_(store) {
    Run([&](FsmActions* out) { fsm_.Start(now_, out); });
  }

  void Receive(Side side, Bytes data) {
    Connection& c = conns_[int(side)];
    if (!c.framer) return;  // nothing arrives on a connection that is not open
    c.framer->Append(data);
    for (;;) {
      if (!c.framer) return;  // closed by what the last message did
      Bytes view;
      Notification error;
      const MessageFramer::Result r = c.framer->Next(&view, &error);
      if (r == MessageFramer::Result::kNeedMore) return;
      if (r == MessageFramer::Result::kError) {
        Run([&](FsmActions* out) { fsm_.HeaderError(now_, side, error, out); });
        c.framer.reset();  // the stream is unusable (PeerSession's Connection closes it)
        return;
      }
      // A copy: the actions may close the connection and its framer with it.
      const std::vector<uint8_t> message(view.begin(), view.end());
      Message(side, message);
    }
  }

  void Advance(SteadyClock::duration d) {
    now_ += d;
    Run([&](FsmActions* out) { fsm_.Tick(now_, out); });
    CheckTimers();
  }
  void RunNextTimer() {
    if (auto deadline = fsm_.NextDeadline()) {
      if (*deadline > now_) now_ = *deadline;
      Run([&](FsmActions* out) { fsm_.Tick(now_, out); });
    }
    CheckTimers();
  }
  void Closed(Side side) {
    Connection& c = conns_[int(side)];
    if (!c.framer) return;  // a connection attempt fails instead (ConnectResult)
    c = Connection();
    Run([&](FsmActions* out) { fsm_.ConnectionClosed(now_, side, "fuzz: closed", out); });
  }
  void Incoming() {
    incoming_pending_ = true;
    Run([&](FsmActions* out) { fsm_.IncomingConnection(now_, out); });
    incoming_pending_ = false;  // not taken: refused and closed
  }
  void ConnectResult(bool ok) {
    Connection& c = conns_[int(Side::kOutgoing)];
    if (!c.connecting) return;
    c.connecting = false;
    if (ok) {
      c.framer.emplace();
      Run([&](FsmActions* out) { fsm_.ConnectSucceeded(now_, out); });
    } else {
      Run([&](FsmActions* out) { fsm_.ConnectFailed(now_, "fuzz: refused", out); });
    }
  }
  void StopStart(bool restart) {
    const Notification cease{uint8_t(ErrorCode::kCease), 2, {}};
    Run([&](FsmActions* out) { fsm_.Stop(now_, cease, out); });
    if (restart) Run([&](FsmActions* out) { fsm_.Start(now_, out); });
  }
  void MaxPrefix() {
    const Notification cease{uint8_t(ErrorCode::kCease), 1, {}};
    Run([&](FsmActions* out) { fsm_.LimitExceeded(now_, cease, "max-prefix", 1.0, out); });
  }

 private:
  void Message(Side side, const std::vector<uint8_t>& message) {
    MessageVerdict verdict = MessageVerdict::kHandled;
    Run([&](FsmActions* out) { verdict = fsm_.Message(now_, side, message, out); });
    if (verdict == MessageVerdict::kUpdate) {
      Check(established_ == side && decoder_ != nullptr, "UPDATEs only when Established");
      UpdateMessage update;
      decoder_->Decode(message, &update);
      const UpdateAction action = update.errors.action();
      if (action == UpdateAction::kSessionReset || action == UpdateAction::kAfiSafiDisable) {
        Run([&](FsmActions* out) {
          fsm_.UpdateError(now_, update.errors.notification, update.errors.reason, out);
        });
      }
    } else if (verdict == MessageVerdict::kRouteRefresh) {
      Check(established_ == side, "ROUTE-REFRESH only when Established");
      RouteRefresh rr;
      (void)DecodeRouteRefresh(message, &rr);
    }
  }

  template <typename Event>
  void Run(Event&& event) {
    FsmActions actions;
    event(&actions);
    for (FsmAction& a : actions) Execute(a);
    Check((fsm_.state() == FsmState::kEstablished) == established_.has_value(),
          "Established exactly when the FSM is");
    Check(fsm_.established_side() == established_, "Established on the FSM's connection");
  }

  void Execute(const FsmAction& a) {
    Connection& c = conns_[int(a.side)];
    switch (a.kind) {
      case FsmAction::Kind::kConnect:
        c = Connection();
        c.connecting = true;
        return;
      case FsmAction::Kind::kAccept:
        Check(incoming_pending_, "a connection is accepted only when one came in");
        incoming_pending_ = false;
        c = Connection();
        c.framer.emplace();
        return;
      case FsmAction::Kind::kSend:
        CheckSent(a.message);
        return;
      case FsmAction::Kind::kClose:
        c = Connection();
        return;
      case FsmAction::Kind::kEstablished: {
        Check(!established_.has_value(), "one Established connection at a time");
        const Negotiated& n = fsm_.negotiated(a.side);
        established_ = a.side;
        decoder_ = std::make_unique<UpdateDecoder>(n.params, store_);
        if (c.framer) c.framer->set_max_message_size(n.params.max_message_size());
        return;
      }
      case FsmAction::Kind::kDown:
        Check(established_.has_value(), "down only after Established");
        established_.reset();
        decoder_.reset();
        return;
    }
  }

  // What the session sends must be what a peer can read.
  static void CheckSent(const std::vector<uint8_t>& m) {
    size_t length = 0;
    Notification error;
    Check(CheckHeader(m, kMaxExtendedMessageSize, &length, &error) && length == m.size(),
          "a sent message has a good header");
    switch (MessageType(m[18])) {
      case MessageType::kOpen: {
        OpenMessage open;
        Check(DecodeOpen(m, &open, &error).ok(), "a sent OPEN decodes");
        break;
      }
      case MessageType::kNotification: {
        Notification n;
        Check(DecodeNotification(m, &n).ok() && n.code != 0, "a sent NOTIFICATION decodes");
        break;
      }
      case MessageType::kKeepalive:
        break;
      default:
        Check(false, "the FSM sends only OPEN, KEEPALIVE and NOTIFICATION");
    }
  }

  void CheckTimers() const {
    const auto deadline = fsm_.NextDeadline();
    Check(!deadline || *deadline > now_, "no timer stays due after Tick");
  }

  Fsm fsm_;
  AttributeStore* store_;
  SteadyTime now_ = SteadyTime() + std::chrono::hours(1);
  std::array<Connection, 2> conns_;
  bool incoming_pending_ = false;
  std::optional<Side> established_;
  std::unique_ptr<UpdateDecoder> decoder_;
};

}  // namespace
}  // namespace sluice::bgp

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice::bgp;
  if (size < 1) return 0;
  AttributeStore store;  // outlives the session and every route it decoded
  Session session(SettingsFrom(data[0]), &store);
  size_t at = 1;
  while (at < size) {
    const uint8_t e = data[at++];
    const Side side = (e & 8) ? Side::kIncoming : Side::kOutgoing;
    const bool flag = e & 16;
    switch (e & 7) {
      case 0: {
        if (size - at < 2) return 0;
        const size_t want = (size_t(data[at]) << 8) | data[at + 1];
        at += 2;
        const size_t n = std::min(want, size - at);
        session.Receive(side, Bytes(data + at, n));
        at += n;
        break;
      }
      case 1:
        if (at >= size) return 0;
        session.Advance(std::chrono::milliseconds(250) * data[at++]);
        break;
      case 2:
        session.RunNextTimer();
        break;
      case 3:
        session.Closed(side);
        break;
      case 4:
        session.Incoming();
        break;
      case 5:
        session.ConnectResult(!flag);
        break;
      case 6:
        session.StopStart(!flag);
        break;
      case 7:
        session.MaxPrefix();
        break;
    }
  }
  return 0;
}
