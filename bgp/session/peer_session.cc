#include "bgp/session/peer_session.h"

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "bgp/wire/constants.h"
#include "stage/route_arrival.h"

namespace sluice::bgp {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

Notification Cease(uint8_t subcode) {
  return Notification{uint8_t(ErrorCode::kCease), subcode, {}};
}

}  // namespace

PeerSession::PeerSession(asio::io_context& io, const PeerConfig& config, const LocalConfig& local,
                         AttributeStore* store)
    : io_(io), config_(config), local_(local), store_(store), fsm_(MakeSettings()), timer_(io) {}

PeerSession::~PeerSession() {
  alive_.reset();
  for (auto& c : conns_) {
    if (c) c->Close();
  }
  timer_.cancel();
}

FsmSettings PeerSession::MakeSettings() const {
  FsmSettings s;
  s.local_as = local_.as;
  s.local_id = local_.bgp_id;
  s.peer_as = config_.remote_as;
  s.hold_time_s = config_.hold_time_s;
  s.min_hold_time_s = config_.min_hold_time_s;
  s.keepalive_time_s = config_.keepalive_s;
  s.passive = config_.passive;
  s.connect_retry_s = config_.connect_retry_s;
  s.idle_hold_s = config_.idle_hold_s;
  s.idle_hold_max_s = config_.idle_hold_max_s;
  s.stable_s = config_.stable_s;
  for (int i = 0; i < AfiSafi::kCount; ++i) {
    if (config_.families.Has(AfiSafi::FromIndex(i))) {
      s.capabilities.multiprotocol.push_back(AfiSafi::FromIndex(i));
    }
  }
  s.capabilities.route_refresh = true;
  s.capabilities.extended_message = config_.extended_messages;
  if (config_.graceful_restart) {
    GracefulRestart gr;
    gr.restart_state = graceful_.restarting;
    gr.notification = true;
    gr.restart_time = std::min<uint16_t>(graceful_.restart_time_s, kGrMaxRestartTime);
    for (const AfiSafi& f : s.capabilities.multiprotocol) {
      gr.families.push_back({f, graceful_.forwarding_preserved});
    }
    s.capabilities.graceful_restart = std::move(gr);
  }
  return s;
}

void PeerSession::SetGracefulRestart(const GracefulRestartConfig& gr) {
  graceful_ = gr;
  fsm_.set_settings(MakeSettings());
}

Notification PeerSession::Deliberate(Notification cease) const {
  if (!established_ || !graceful_notification_) return cease;
  // RFC 8538 §3: the data is the NOTIFICATION it stands for: code, subcode, data.
  Notification hard{uint8_t(ErrorCode::kCease), cease::kHardReset, {cease.code, cease.subcode}};
  hard.data.insert(hard.data.end(), cease.data.begin(), cease.data.end());
  return hard;
}

bool PeerSession::EndsGracefully(const FsmAction& down) const {
  if (!info_.graceful_restart) return false;  // not both sides: RFC 4724 §4.2 does not apply
  if (!down.notification) return true;        // the TCP connection was lost
  // RFC 8538 §4: with the N bit on both sides, any NOTIFICATION but Cease / Hard Reset.
  const Notification& n = *down.notification;
  const bool hard_reset = n.code == uint8_t(ErrorCode::kCease) && n.subcode == cease::kHardReset;
  return graceful_notification_ && !hard_reset;
}

ConnectionOptions PeerSession::MakeOptions() const {
  ConnectionOptions o;
  o.md5_password = config_.md5_password;
  o.gtsm_hops = config_.gtsm_hops;
  o.multihop_ttl = config_.multihop_ttl;
  o.local_address = config_.local_address;
  return o;
}

// ---- administrative ----

void PeerSession::Start() {
  enabled_ = true;
  Run(ResetCause::kAdministrative, [&](FsmActions* out) { fsm_.Start(Clock::now(), out); });
}

void PeerSession::Stop(uint8_t cease_subcode) {
  enabled_ = false;
  Run(ResetCause::kAdministrative,
      [&](FsmActions* out) { fsm_.Stop(Clock::now(), Deliberate(Cease(cease_subcode)), out); });
}

void PeerSession::Reset(uint8_t cease_subcode) {
  if (!enabled_) return;
  Run(ResetCause::kAdministrative, [&](FsmActions* out) {
    fsm_.Stop(Clock::now(), Deliberate(Cease(cease_subcode)), out);
    fsm_.Start(Clock::now(), out);
  });
}

void PeerSession::SetLocal(const LocalConfig& local) {
  if (local.as == local_.as && local.bgp_id == local_.bgp_id) return;
  local_ = local;
  fsm_.set_settings(MakeSettings());
  Reset(cease::kOtherConfigurationChange);
}

void PeerSession::Accept(tcp::socket socket) {
  Guard("an incoming connection", [&] { HandleAccept(std::move(socket)); });
}

void PeerSession::HandleAccept(tcp::socket socket) {
  accepting_.emplace(std::move(socket));
  Fsm::Incoming verdict;
  Run(ResetCause::kConnectionLost,
      [&](FsmActions* out) { verdict = fsm_.IncomingConnection(Clock::now(), out); });
  if (!accepting_) return;  // taken (FsmAction::kAccept)
  auto c = Connection::Accepted(io_, nullptr, std::move(*accepting_), MakeOptions());
  accepting_.reset();
  if (verdict.notification) {
    std::vector<uint8_t> wire;
    AppendNotification(*verdict.notification, &wire);
    CountOut(uint8_t(MessageType::kNotification));
    c->SendUrgent(std::move(wire));
  }
  SLUICE_LOG(kDebug) << "peer " << config_.address.ToString() << ": connection refused in "
                     << FsmStateName(fsm_.state());
  c->Close();
}

// ---- the FSM ----

void PeerSession::Fault(std::string_view where, const HandlerFault& fault) {
  const std::string reason = absl::StrCat(fault.ToString(), " (", std::string(where), ")");
  SLUICE_LOG(kError) << "peer " << config_.address.ToString() << ": " << reason
                     << "; resetting the session";
  // The Run that threw stopped half way: its remaining actions are dropped with it.
  pending_.clear();
  running_ = false;
  // RFC 4486 §4 Out of Resources for memory; otherwise a plain Cease (RFC 4271 §6.7).
  const Notification cease = Cease(fault.out_of_memory ? cease::kOutOfResources : 0);
  std::optional<HandlerFault> again = CatchFault([&] {
    Run(ResetCause::kInternalError,
        [&](FsmActions* out) { fsm_.LocalFault(Clock::now(), cease, reason, out); });
  });
  if (again) {
    pending_.clear();
    running_ = false;
    SLUICE_LOG(kError) << "peer " << config_.address.ToString()
                       << ": resetting the session failed too: " << again->what;
  }
}

template <typename Event>
void PeerSession::Run(ResetCause cause, Event&& event) {
  FsmActions actions;
  const bool tapped_now = tapped();  // untapped sessions pay nothing for state changes
  const FsmState old_state = tapped_now ? fsm_.state() : FsmState::kIdle;
  event(&actions);
  if (tapped_now && fsm_.state() != old_state) TapStateChange(old_state);
  for (FsmAction& a : actions) pending_.push_back(Pending{std::move(a), cause});
  if (running_) return;  // an outer Run carries them out
  running_ = true;
  const std::weak_ptr<bool> alive = alive_;
  while (!pending_.empty()) {
    Pending p = std::move(pending_.front());
    pending_.pop_front();
    Execute(p.action, p.cause);
    if (alive.expired()) return;
  }
  running_ = false;
  ArmTimer();
}

void PeerSession::Execute(FsmAction& a, ResetCause cause) {
  const int side = int(a.side);
  switch (a.kind) {
    case FsmAction::Kind::kConnect: {
      ++counters_.connect_attempts;
      const tcp::endpoint remote(ToAsio(config_.address), config_.port);
      conns_[side] = Connection::Connect(io_, this, remote, MakeOptions());
      return;
    }
    case FsmAction::Kind::kAccept:
      if (accepting_) {
        conns_[side] = Connection::Accepted(io_, this, std::move(*accepting_), MakeOptions());
        accepting_.reset();
      }
      return;
    case FsmAction::Kind::kSend:
      if (conns_[side] && a.message.size() >= size_t(kHeaderSize)) {
        // A NOTIFICATION that ends an Established session is in its "down" line.
        if (a.message[18] == uint8_t(MessageType::kNotification) && established_ != a.side) {
          LogNotification(a.message, "sent");
        }
        CountOut(a.message[18]);
        TapSentMessage(a.side, a.message);
        conns_[side]->SendUrgent(std::move(a.message));
      }
      return;
    case FsmAction::Kind::kClose:
      if (conns_[side]) {
        conns_[side]->Close();
        conns_[side].reset();
      }
      return;
    case FsmAction::Kind::kEstablished: {
      const Negotiated& n = fsm_.negotiated(a.side);
      const OpenMessage& open = fsm_.peer_open(a.side);
      established_ = a.side;
      established_at_ = Clock::now();
      if (conns_[side]) conns_[side]->PauseReading(input_paused_);
      ++counters_.established_transitions;
      max_prefix_exceeded_ = false;
      teardown_pending_ = false;
      disabled_families_ = AfiSafiSet();
      SessionParams params = n.params;
      if (config_.enforce_first_as && params.external) params.enforce_first_as = n.peer_as;
      decoder_ = std::make_shared<UpdateDecoder>(params, store_);
      ++session_generation_;
      info_ = EstablishedInfo();
      info_.params = params;
      info_.remote_as = n.peer_as;
      info_.remote_bgp_id = open.bgp_identifier;
      info_.hold_time_s = n.hold_time;
      keepalive_time_s_ = n.keepalive_time;
      info_.route_refresh = n.route_refresh;
      info_.remote_address = config_.address;
      graceful_sent_ = fsm_.LocalOpen().capabilities.graceful_restart;
      graceful_received_ = n.peer_graceful_restart;
      if (graceful_sent_ && n.peer_graceful_restart) {
        info_.graceful_restart = n.peer_graceful_restart;
      }
      graceful_notification_ = info_.graceful_restart && info_.graceful_restart->notification &&
                               graceful_sent_->notification;
      if (conns_[side]) {
        conns_[side]->set_max_message_size(params.max_message_size());
        conns_[side]->NegotiatedHoldTime(uint16_t(n.hold_time));
        info_.local_address = FromAsio(conns_[side]->local_endpoint().address());
        local_port_ = conns_[side]->local_endpoint().port();
        remote_port_ = conns_[side]->remote_endpoint().port();
      }
      SLUICE_LOG(kInfo).Field("peer", config_.address.ToString()).Field("as", n.peer_as)
          << "peer " << config_.address.ToString() << " AS" << n.peer_as << " Established ("
          << SideName(a.side) << " connection, hold time " << n.hold_time << " s)";
      if (listener_) listener_->OnEstablished(info_);
      if (tapped()) TapPeerUp(a.side);
      return;
    }
    case FsmAction::Kind::kDown:
      ++counters_.session_resets[int(cause)];
      if (tapped()) TapPeerDown(a);
      established_.reset();
      decoder_.reset();
      ++session_generation_;
      counters_.prefixes_received = 0;
      counters_.prefixes_accepted = 0;
      counters_.prefixes_advertised = 0;
      LogDown(a);
      EndUpdates();  // what the session's last UPDATEs changed goes downstream first
      if (EndsGracefully(a)) {
        if (listener_) listener_->OnSessionDownGraceful(a.reason);
      } else {
        if (listener_) listener_->OnSessionDown(a.reason);
      }
      return;
  }
}

void PeerSession::LogDown(const FsmAction& a) const {
  // A Cease (an operator, a limit, a collision) is a state change; any other ending a failure.
  const bool failure = !a.notification || a.notification->code != 6;
  const bool graceful = EndsGracefully(a);
  const base::LogLevel level = failure ? base::LogLevel::kWarning : base::LogLevel::kInfo;
  if (!base::LogEnabled(level)) return;
  base::LogLine line(level);
  line << "peer " << config_.address.ToString() << " down: " << a.reason
       << (graceful ? " (graceful restart: its routes stay, stale)" : "")
       << base::Kv("peer", config_.address.ToString()) << base::Kv("event", "down");
  if (a.notification) {
    line << base::Kv(a.notification_received ? "notification_received" : "notification_sent",
                     absl::StrCat(a.notification->code, "/", a.notification->subcode));
  }
}

void PeerSession::LogNotification(Bytes message, const char* direction) const {
  Notification n;
  if (!DecodeNotification(message, &n).ok()) return;
  SLUICE_LOG(kWarning)
          .Field("peer", config_.address.ToString())
          .Field(absl::StrCat("notification_", direction), absl::StrCat(n.code, "/", n.subcode))
      << "peer " << config_.address.ToString() << ": NOTIFICATION " << direction << ": "
      << n.ToString();
}

void PeerSession::ArmTimer() {
  const std::optional<SteadyTime> next = fsm_.NextDeadline();
  if (!next) return;                       // an armed timer fires harmlessly
  if (armed_ && *armed_ <= *next) return;  // it fires first and re-arms
  armed_ = next;
  timer_.expires_at(*next);
  timer_.async_wait([this,
                     alive = std::weak_ptr<bool>(alive_)](const boost::system::error_code& ec) {
    if (ec || alive.expired()) return;
    armed_.reset();
    // What Tick ends is ended by a timer: the hold timer (RFC 4271 §6.5).
    Guard("a timer", [&] {
      Run(ResetCause::kHoldTimerExpired, [&](FsmActions* out) { fsm_.Tick(Clock::now(), out); });
    });
  });
}

std::optional<Side> PeerSession::SideOf(const Connection* c) const {
  if (c == nullptr) return std::nullopt;
  if (conns_[0].get() == c) return Side::kOutgoing;
  if (conns_[1].get() == c) return Side::kIncoming;
  return std::nullopt;
}

// ---- connection events ----

void PeerSession::OnConnected(Connection* c) {
  Guard("connection up", [&] { HandleConnected(c); });
}
void PeerSession::OnConnectFailed(Connection* c, const std::string& reason) {
  Guard("connection failed", [&] { HandleConnectFailed(c, reason); });
}
void PeerSession::OnMessage(Connection* c, Bytes message) {
  Guard("a message", [&] { HandleMessage(c, message); });
}
void PeerSession::OnSliceEnd(Connection*) {
  Guard("the end of a read", [&] { EndUpdates(); });
}
void PeerSession::OnHeaderError(Connection* c, const Notification& error) {
  Guard("a header error", [&] { HandleHeaderError(c, error); });
}
void PeerSession::OnClosed(Connection* c, const std::string& reason) {
  Guard("connection closed", [&] { HandleClosed(c, reason); });
}
void PeerSession::OnWritable(Connection* c) {
  Guard("writable", [&] {
    if (established_ && conns_[int(*established_)].get() == c && listener_) {
      listener_->OnWritable();
    }
  });
}

void PeerSession::HandleConnected(Connection* c) {
  if (SideOf(c) != Side::kOutgoing) return;
  Run(ResetCause::kConnectionLost,
      [&](FsmActions* out) { fsm_.ConnectSucceeded(Clock::now(), out); });
}

void PeerSession::HandleConnectFailed(Connection* c, const std::string& reason) {
  if (SideOf(c) != Side::kOutgoing) return;
  Run(ResetCause::kConnectionLost,
      [&](FsmActions* out) { fsm_.ConnectFailed(Clock::now(), reason, out); });
}

void PeerSession::HandleClosed(Connection* c, const std::string& reason) {
  const auto side = SideOf(c);
  if (!side) return;
  Run(ResetCause::kConnectionLost,
      [&](FsmActions* out) { fsm_.ConnectionClosed(Clock::now(), *side, reason, out); });
}

void PeerSession::HandleHeaderError(Connection* c, const Notification& error) {
  const auto side = SideOf(c);
  if (!side) return;
  Run(ResetCause::kMessageError,
      [&](FsmActions* out) { fsm_.HeaderError(Clock::now(), *side, error, out); });
}

void PeerSession::HandleMessage(Connection* c, Bytes message) {
  const auto side = SideOf(c);
  if (!side) return;
  CountIn(message[18]);
  TapMessage(*side, message);
  if (message[18] == uint8_t(MessageType::kNotification) && established_ != side) {
    LogNotification(message, "received");
  }
  const ResetCause cause = message[18] == uint8_t(MessageType::kNotification)
                               ? ResetCause::kNotificationReceived
                               : ResetCause::kMessageError;
  MessageVerdict verdict = MessageVerdict::kHandled;
  Run(cause, [&](FsmActions* out) { verdict = fsm_.Message(Clock::now(), *side, message, out); });
  if (verdict == MessageVerdict::kUpdate) {
    HandleUpdate(message);
  } else if (verdict == MessageVerdict::kRouteRefresh) {
    HandleRouteRefresh(message);
  }
}

void PeerSession::HandleUpdate(Bytes message) {
  if (!decoder_ || teardown_pending_) return;
  if (parse_pool_ != nullptr) return ParseOffLoop(message);
  // The routes' arrival, for the route latency histogram (stage/route_arrival.h).
  stage::ArrivalScope arrival(stage::MonotonicNowNs());
  decoder_->Decode(message, &update_);
  BeginUpdates();
  DeliverUpdate(update_);
}

void PeerSession::BeginUpdates() {
  if (updates_open_ || listener_ == nullptr) return;
  updates_open_ = true;
  listener_->BeginUpdates();
}

void PeerSession::EndUpdates() {
  if (!updates_open_) return;
  updates_open_ = false;
  if (listener_) listener_->EndUpdates();
}

void PeerSession::DeliverUpdate(UpdateMessage& update) {
  if (!update.errors.ok()) NoteUpdateErrors(update);
  const UpdateAction action = update.errors.action();
  if (action == UpdateAction::kSessionReset) {
    const Notification n = update.errors.notification;
    const std::string reason = update.errors.reason;
    Run(ResetCause::kUpdateError,
        [&](FsmActions* out) { fsm_.UpdateError(Clock::now(), n, reason, out); });
    return;
  }
  if (action == UpdateAction::kAfiSafiDisable) {
    DisableFamilies(update.errors.disabled_families, update.errors.reason);
  }
  // RFC 4760 §7: what arrives later of a disabled family is ignored.
  update.DropFamilies(disabled_families_);
  counters_.nlri_announced_in += update.announced.size();
  counters_.nlri_withdrawn_in += update.withdrawn.size();
  if (listener_) listener_->OnUpdate(update);
}

void PeerSession::NoteUpdateErrors(const UpdateMessage& update) {
  const UpdateErrors& e = update.errors;
  if (e.treat_as_withdraw) ++counters_.updates_treat_as_withdraw;
  if (!e.discarded.empty()) ++counters_.updates_attribute_discard;
  uint64_t held_back = 0;
  if (!error_log_.Allow(Clock::now(), &held_back)) return;
  SLUICE_LOG(kWarning)
          .Field("peer", config_.address.ToString())
          .Field("rfc7606", UpdateActionName(e.action()))
      << "peer " << config_.address.ToString() << ": malformed UPDATE ("
      << UpdateActionName(e.action()) << ", RFC 7606): " << e.reason
      << (held_back == 0 ? ""
                         : absl::StrCat(" [", held_back,
                                        " more malformed UPDATEs since the "
                                        "last report; see the peer's counters]"));
}

void PeerSession::DisableFamilies(AfiSafiSet families, const std::string& reason) {
  for (int i = 0; i < AfiSafi::kCount; ++i) {
    const AfiSafi f = AfiSafi::FromIndex(i);
    if (!families.Has(f) || disabled_families_.Has(f)) continue;
    disabled_families_.Add(f);
    ++counters_.afi_safi_disables;
    SLUICE_LOG(kWarning) << "peer " << config_.address.ToString() << ": " << f.ToString()
                         << " disabled until the session restarts (RFC 7606 AFI/SAFI disable, "
                            "RFC 4760 §7): "
                         << reason;
  }
}

void PeerSession::HandleRouteRefresh(Bytes message) {
  RouteRefresh rr;
  if (!DecodeRouteRefresh(message, &rr).ok() || rr.subtype != 0) return;
  if (!AfiSafi::Supported(rr.afi, rr.safi)) return;  // RFC 2918 §4: ignore
  const AfiSafi family{Afi(rr.afi), Safi(rr.safi)};
  if (!info_.params.families.Has(family)) return;
  if (listener_) listener_->OnRouteRefresh(family);
}

// ---- SessionSender ----

bool PeerSession::established() const { return established_.has_value(); }

bool PeerSession::SendMessages(std::vector<uint8_t> messages) {
  if (!established_ || !conns_[int(*established_)]) return false;
  for (size_t at = 0; at + kHeaderSize <= messages.size();) {
    const size_t length = LoadU16(messages.data() + at + 16);
    CountOut(messages[at + 18]);
    if (length < size_t(kHeaderSize)) break;
    at += length;
  }
  conns_[int(*established_)]->SendBulk(std::move(messages));
  return true;
}

void PeerSession::PauseInput(bool paused) {
  input_paused_ = paused;
  if (established_ && conns_[int(*established_)]) {
    conns_[int(*established_)]->PauseReading(paused);
  }
}

size_t PeerSession::send_backlog() const {
  if (!established_ || !conns_[int(*established_)]) return 0;
  return conns_[int(*established_)]->backlog();
}

void PeerSession::SendRouteRefresh(AfiSafi family) {
  if (!established_ || !conns_[int(*established_)]) return;
  if (!info_.route_refresh || !info_.params.families.Has(family)) return;
  std::vector<uint8_t> wire;
  AppendRouteRefresh(family, &wire);
  CountOut(uint8_t(MessageType::kRouteRefresh));
  conns_[int(*established_)]->SendUrgent(std::move(wire));
}

void PeerSession::ReportPrefixCount(size_t received, size_t accepted) {
  counters_.prefixes_received = received;
  counters_.prefixes_accepted = accepted;
  if (teardown_pending_) return;
  const size_t ceiling = config_.adj_rib_in_limit;
  if (ceiling != 0 && received > ceiling && established_) {
    const std::string reason = absl::StrCat("Adj-RIB-In ceiling reached: ", received,
                                            " routes, adj-rib-in-limit ", ceiling);
    SLUICE_LOG(kWarning) << "peer " << config_.address.ToString() << ": " << reason
                         << ": tearing the session down";
    return TearDownForLimit(ResetCause::kAdjRibInLimit, ceiling, reason, std::nullopt);
  }
  CheckMaxPrefix(received, accepted);
}

void PeerSession::CheckMaxPrefix(size_t received, size_t accepted) {
  const MaxPrefix& mp = config_.max_prefix;
  const bool counts_received = mp.count == MaxPrefixCount::kReceived;
  const size_t count = counts_received ? received : accepted;
  if (mp.limit == 0 || count <= mp.limit) {
    max_prefix_exceeded_ = false;
    return;
  }
  if (max_prefix_exceeded_) return;  // this crossing is handled
  max_prefix_exceeded_ = true;
  SLUICE_LOG(kWarning) << "peer " << config_.address.ToString() << ": " << count << " prefixes "
                       << (counts_received ? "received" : "accepted") << ", above the limit of "
                       << mp.limit
                       << (mp.action == MaxPrefixAction::kWarn ? "" : ": tearing the session down");
  if (mp.action == MaxPrefixAction::kWarn || !established_) return;
  TearDownForLimit(ResetCause::kMaxPrefix, mp.limit, "maximum number of prefixes reached",
                   mp.restart_after_s);
}

void PeerSession::TearDownForLimit(ResetCause cause, size_t limit, const std::string& reason,
                                   std::optional<double> restart_after_s) {
  // RFC 4486 §4 Data: AFI, SAFI and the limit, when the session carries one family.
  Notification n = Cease(cease::kMaxPrefixes);
  const bool hard = established_ && graceful_notification_;
  int families = 0;
  AfiSafi only;
  for (int i = 0; i < AfiSafi::kCount; ++i) {
    if (info_.params.families.Has(AfiSafi::FromIndex(i))) {
      ++families;
      only = AfiSafi::FromIndex(i);
    }
  }
  if (families == 1) {
    n.data.resize(7);
    StoreU16(n.data.data(), uint16_t(only.afi));
    n.data[2] = uint8_t(only.safi);
    StoreU32(n.data.data() + 3, uint32_t(std::min<size_t>(limit, UINT32_MAX)));
  }
  if (hard) n = Deliberate(n);  // the peer's routes go: it must not keep ours either
  // Not from inside the listener's OnUpdate: the teardown (and OnSessionDown) runs next on the
  // loop; UPDATEs still being handled meanwhile are dropped.
  teardown_pending_ = true;
  asio::post(io_, [this, alive = std::weak_ptr<bool>(alive_), n, cause, reason, restart_after_s] {
    if (alive.expired()) return;
    Guard("a prefix limit", [&] {
      Run(cause, [&](FsmActions* out) {
        fsm_.LimitExceeded(Clock::now(), n, reason, restart_after_s, out);
      });
    });
  });
}

void PeerSession::ReportRouteCounts(size_t received, size_t advertised) {
  counters_.prefixes_received = received;
  counters_.prefixes_advertised = advertised;
}

// ---- status ----

void PeerSession::CountIn(uint8_t type) {
  ++counters_.messages_in;
  switch (MessageType(type)) {
    case MessageType::kOpen:
      ++counters_.opens_in;
      break;
    case MessageType::kUpdate:
      ++counters_.updates_in;
      break;
    case MessageType::kKeepalive:
      ++counters_.keepalives_in;
      break;
    case MessageType::kNotification:
      ++counters_.notifications_in;
      break;
    case MessageType::kRouteRefresh:
      ++counters_.route_refreshes_in;
      break;
  }
}

void PeerSession::CountOut(uint8_t type) {
  ++counters_.messages_out;
  switch (MessageType(type)) {
    case MessageType::kOpen:
      ++counters_.opens_out;
      break;
    case MessageType::kUpdate:
      ++counters_.updates_out;
      break;
    case MessageType::kKeepalive:
      ++counters_.keepalives_out;
      break;
    case MessageType::kNotification:
      ++counters_.notifications_out;
      break;
    case MessageType::kRouteRefresh:
      ++counters_.route_refreshes_out;
      break;
  }
}

PeerStatus PeerSession::Status() const {
  PeerStatus s;
  s.address = config_.address;
  s.port = config_.port;
  s.remote_as = config_.remote_as;
  s.description = config_.description;
  s.enabled = enabled_;
  s.state = fsm_.state();
  if (established_) {
    s.uptime_s = std::chrono::duration<double>(Clock::now() - established_at_).count();
  }
  if (counters_.established_transitions > 0) {
    s.local_address = info_.local_address;
    s.local_port = local_port_;
    s.remote_port = remote_port_;
    s.remote_bgp_id = info_.remote_bgp_id;
    s.hold_time_s = uint16_t(info_.hold_time_s);
    s.keepalive_time_s = keepalive_time_s_;
    s.families = info_.params.families;
    s.four_octet_as = info_.params.four_octet_as;
    s.route_refresh = info_.route_refresh;
    s.graceful_restart_sent = graceful_sent_;
    s.graceful_restart_received = graceful_received_;
    s.graceful_notification = graceful_notification_;
  }
  s.counters = counters_;
  s.counters.collisions = fsm_.collisions();
  s.last_error = fsm_.last_error();
  s.last_notification_sent = fsm_.last_notification_sent();
  s.last_notification_received = fsm_.last_notification_received();
  s.max_prefix_exceeded = max_prefix_exceeded_;
  s.disabled_families = disabled_families_;
  s.consecutive_failures = fsm_.consecutive_failures();
  if (auto until = fsm_.idle_until()) {
    s.idle_hold_remaining_s =
        std::max(0.0, std::chrono::duration<double>(*until - Clock::now()).count());
  }
  return s;
}

}  // namespace sluice::bgp
