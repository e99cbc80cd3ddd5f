#pragma once
// PeerSession: one configured peer — its FSM (fsm.h) driven by its TCP connections
// (connection.h) on the process's event loop, UPDATE decoding (RFC 7606 outcomes), counters, and
// the max-prefix limit and Adj-RIB-In ceiling. It implements SessionSender for the routing side
// and reports to the SessionListener the routing side gave it (session_link.h).
//
// RFC 7606 outcomes: a session reset sends the decoder's NOTIFICATION; AFI/SAFI disable (RFC 4760
// §7) turns the family off for the rest of the session — the listener gets the UPDATE with
// action kAfiSafiDisable and withdraws the peer's routes of that family, and NLRI of it arriving
// later are dropped here; treat-as-withdraw and attribute discard reach the listener as decoded.
// Each is counted (PeerCounters) and logged as a warning at most once per kErrorLogInterval per
// peer, with the number of malformed UPDATEs not logged since.
//
// Faults: every entry point from the event loop (connection events, timers, posted work, parse
// jobs) runs under CatchFault (handler_fault.h). An exception — std::bad_alloc from a huge
// UPDATE, a throwing library call, a listener's failure — fails this session only: NOTIFICATION
// Cease (Out of Resources for bad_alloc, RFC 4486; no subcode otherwise), Idle with backoff,
// counted as session reset cause "internal-error".
//
// Made and owned by PeerManager, which also hands it the connections its listeners accept from
// the peer's address. Single-threaded: every call on the event loop's thread — except UPDATE
// parsing when a parse pool is set (PBTS): the UPDATEs of one read of the connection are then
// decoded together on the pool (update_batch.h), in order on a strand of this session, and handed
// to the listener back on the event loop in the order received; UPDATEs decoded for a session
// that has gone down since are dropped. At most kMaxParsing UPDATEs wait for the pool; beyond
// that the event loop waits for it.
//
// Flow control towards the routing side: OnWritable() after each completed write that leaves at
// most Connection::kLowWater (256 KiB) of UPDATEs queued.

#include <atomic>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bgp/session/asio.h"
#include "bgp/session/connection.h"
#include "bgp/session/fsm.h"
#include "bgp/session/handler_fault.h"
#include "bgp/session/log_limiter.h"
#include "bgp/session/message_tap.h"
#include "bgp/session/peer_config.h"
#include "bgp/session/peer_status.h"
#include "bgp/session/session_link.h"
#include "bgp/session/update_batch.h"
#include "bgp/wire/attribute_store.h"
#include "bgp/wire/update_decoder.h"

namespace sluice::bgp {

class PeerSession final : public SessionSender, private ConnectionOwner {
 public:
  // `config` must be valid (PeerConfig::Validate) and `local` complete. `store` interns the
  // attributes of received UPDATEs; it must outlive the session and every route it produced.
  PeerSession(boost::asio::io_context& io, const PeerConfig& config, const LocalConfig& local,
              AttributeStore* store);
  ~PeerSession() override;  // closes connections silently: Stop() first for a NOTIFICATION
  PeerSession(const PeerSession&) = delete;
  PeerSession& operator=(const PeerSession&) = delete;

  static constexpr int kMaxParsing = 4096;
  static constexpr std::chrono::seconds kErrorLogInterval{10};

  // The routing side's listener for this peer (may be null: routes are then dropped).
  void set_listener(SessionListener* listener) { listener_ = listener; }
  // UPDATEs are decoded on `pool` (null: on the event loop, the default). The pool must outlive
  // the session's loop work; set it before Start() or between sessions.
  void set_parse_pool(boost::asio::thread_pool* pool) {
    parse_pool_ = pool;
    parse_strand_.reset();
  }
  // Monitoring taps (message_tap.h), shared with the PeerManager that owns the list.
  void set_taps(std::shared_ptr<const std::vector<MessageTap*>> taps) { taps_ = std::move(taps); }
  const PeerConfig& config() const { return config_; }

  // ManualStart: connect (or wait for the peer, when passive).
  void Start();
  // ManualStop: NOTIFICATION Cease with `subcode` (RFC 4486: 2 Administrative Shutdown, 3 Peer
  // De-configured, ...) on every connection, then Idle until Start().
  void Stop(uint8_t cease_subcode);
  // Stop(cease_subcode) then Start() — for an enabled peer; nothing for a disabled one.
  void Reset(uint8_t cease_subcode);
  // A new local AS or BGP Identifier: restarts a running session with Cease / Other Configuration
  // Change (RFC 4486 subcode 6).
  void SetLocal(const LocalConfig& local);
  // Graceful restart as we offer it (the R and F bits, our restart time): used by the OPENs sent
  // from now on.
  void SetGracefulRestart(const GracefulRestartConfig& gr);
  // A connection from the peer's address reached one of our listeners.
  void Accept(boost::asio::ip::tcp::socket socket);

  PeerStatus Status() const;
  FsmState state() const { return fsm_.state(); }

  // SessionSender.
  bool established() const override;
  bool SendMessages(std::vector<uint8_t> messages) override;
  size_t send_backlog() const override;
  void SendRouteRefresh(AfiSafi family) override;
  void ReportPrefixCount(size_t received, size_t accepted) override;
  void ReportRouteCounts(size_t received, size_t advertised) override;
  void PauseInput(bool paused) override;

 private:
  using Clock = SteadyClock;

  // ConnectionOwner.
  void OnConnected(Connection* c) override;
  void OnConnectFailed(Connection* c, const std::string& reason) override;
  void OnMessage(Connection* c, Bytes message) override;
  void OnSliceEnd(Connection* c) override;
  void OnHeaderError(Connection* c, const Notification& error) override;
  void OnClosed(Connection* c, const std::string& reason) override;
  void OnWritable(Connection* c) override;

  // The connection events, run under Guard.
  void HandleAccept(boost::asio::ip::tcp::socket socket);
  void HandleConnected(Connection* c);
  void HandleConnectFailed(Connection* c, const std::string& reason);
  void HandleMessage(Connection* c, Bytes message);
  void HandleHeaderError(Connection* c, const Notification& error);
  void HandleClosed(Connection* c, const std::string& reason);

  // Runs `body`, an entry point from the event loop; an exception from it is a Fault.
  template <typename Body>
  void Guard(std::string_view where, Body&& body);
  // An exception escaped the handling of this session (`where`): reset the session only.
  void Fault(std::string_view where, const HandlerFault& fault);
  // Runs one FSM event (a callable taking FsmActions*) and carries out the actions, in order;
  // events raised while actions run (by listener callbacks) queue behind them. `cause`: what a
  // kDown among the actions is counted as.
  template <typename Event>
  void Run(ResetCause cause, Event&& event);
  void Execute(FsmAction& action, ResetCause cause);
  void ArmTimer();
  // One line for a session leaving Established (warning unless a Cease ended it), and one for a
  // NOTIFICATION sent or received outside an Established session.
  void LogDown(const FsmAction& a) const;
  void LogNotification(Bytes message, const char* direction) const;
  std::optional<Side> SideOf(const Connection* c) const;
  void HandleUpdate(Bytes message);
  // The parse pool's side (peer_session_parse.cc): `message` joins the batch of this read, which
  // goes to the pool once the connection's handler returns (FlushParseBatch).
  void ParseOffLoop(Bytes message);
  void FlushParseBatch();
  void DropParseBatch();  // a batch of a session that has gone down
  void DeliverParsed(UpdateBatch::Decoded& decoded, uint64_t generation,
                     const std::weak_ptr<bool>& alive);
  void DeliverUpdate(UpdateMessage& update);
  // Frees a delivered batch on the parse pool, whose thread allocated its messages and made or
  // counted their sets: the loop neither waits on those lines nor hands the memory back to
  // another thread's cache.
  void FreeOffLoop(std::shared_ptr<UpdateBatch::Decoded> decoded);
  // Brackets the UPDATEs of one read for the listener (SessionListener::BeginUpdates): opened by
  // the first UPDATE of a slice, closed at the end of the connection's slice (decoded on the
  // loop) or of the parse pool's batch, and before the session goes down.
  void BeginUpdates();
  void EndUpdates();
  // Counts and logs (rate-limited) the RFC 7606 outcome of a malformed UPDATE.
  void NoteUpdateErrors(const UpdateMessage& update);
  // RFC 4760 §7: `families` off for the rest of the session.
  void DisableFamilies(AfiSafiSet families, const std::string& reason);
  // Posts the teardown of a prefix limit (Cease / Maximum Number of Prefixes Reached, RFC 4486
  // §4, with AFI/SAFI and `limit` when the session carries one family).
  void TearDownForLimit(ResetCause cause, size_t limit, const std::string& reason,
                        std::optional<double> restart_after_s);
  void CheckMaxPrefix(size_t received, size_t accepted);
  void HandleRouteRefresh(Bytes message);
  void CountIn(uint8_t type);
  void CountOut(uint8_t type);
  FsmSettings MakeSettings() const;
  // The NOTIFICATION for a deliberate end of the session (stop, reset, a prefix limit): `cease`
  // itself, or Cease / Hard Reset carrying its code, subcode and data when both sides set the N bit
  // (RFC 8538 §3, §5), so that the peer does not keep our routes.
  Notification Deliberate(Notification cease) const;
  // RFC 4724 §4.2 with RFC 8538 §4: whether the session that just ended lets the peer restart.
  bool EndsGracefully(const FsmAction& down) const;
  ConnectionOptions MakeOptions() const;
  // Monitoring (peer_session_tap.cc): who the session is with, as known on `side`.
  bool tapped() const { return taps_ && !taps_->empty(); }
  TapPeer MakeTapPeer(std::optional<Side> side) const;
  void TapStateChange(FsmState old_state);
  void TapMessage(Side side, Bytes message);
  void TapSentMessage(Side side, const std::vector<uint8_t>& message);
  void TapPeerUp(Side side);
  void TapPeerDown(const FsmAction& down);

  boost::asio::io_context& io_;
  PeerConfig config_;
  LocalConfig local_;
  GracefulRestartConfig graceful_;
  AttributeStore* store_;
  SessionListener* listener_ = nullptr;
  Fsm fsm_;
  std::shared_ptr<Connection> conns_[2];
  std::optional<boost::asio::ip::tcp::socket> accepting_;  // for FsmAction::kAccept
  struct Pending {
    FsmAction action;
    ResetCause cause;  // what a kDown counts as
  };
  std::deque<Pending> pending_;
  bool input_paused_ = false;  // PauseInput: the established connection reads nothing
  bool running_ = false;
  boost::asio::steady_timer timer_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);

  std::optional<Side> established_;
  Clock::time_point established_at_;
  EstablishedInfo info_;                // of the current or last session
  bool graceful_notification_ = false;  // this session: both sides set the N bit
  // This session's Graceful Restart capabilities: ours as sent, the peer's as received.
  std::optional<GracefulRestart> graceful_sent_, graceful_received_;
  std::shared_ptr<UpdateDecoder> decoder_;  // shared with parse jobs in flight
  UpdateMessage update_;
  boost::asio::thread_pool* parse_pool_ = nullptr;
  std::optional<boost::asio::strand<boost::asio::thread_pool::executor_type>> parse_strand_;
  std::shared_ptr<std::atomic<int>> parsing_ = std::make_shared<std::atomic<int>>(0);
  UpdateBatch parse_batch_;              // this read's UPDATEs, not yet handed to the pool
  uint64_t parse_batch_generation_ = 0;  // the session they belong to
  int64_t parse_batch_arrival_ = 0;      // when the first was read (stage/route_arrival.h)
  uint64_t session_generation_ = 0;      // changes when a session comes up or goes down
  PeerCounters counters_;
  AfiSafiSet disabled_families_;  // this session's, RFC 7606
  LogLimiter error_log_{kErrorLogInterval};
  bool max_prefix_exceeded_ = false;
  bool teardown_pending_ = false;  // max-prefix teardown posted: drop further UPDATEs
  bool updates_open_ = false;      // the listener was told BeginUpdates, not yet EndUpdates
  bool enabled_ = false;
  uint16_t local_port_ = 0, remote_port_ = 0;
  uint16_t keepalive_time_s_ = 0;    // negotiated on the last Established session
  std::optional<SteadyTime> armed_;  // when timer_ fires, if armed
  std::shared_ptr<const std::vector<MessageTap*>> taps_;
  // The OPENs of each connection, sent and received, for MessageTap::OnPeerUp.
  std::vector<uint8_t> sent_open_[2], received_open_[2];
};

template <typename Body>
void PeerSession::Guard(std::string_view where, Body&& body) {
  if (std::optional<HandlerFault> fault = CatchFault(body)) Fault(where, *fault);
}

}  // namespace sluice::bgp
